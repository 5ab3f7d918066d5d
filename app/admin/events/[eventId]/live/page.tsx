import { LiveView } from "@/components/live-view";
import { requireOrganizerOfEvent } from "@/lib/auth/session";

export const metadata = { title: "Live on-sale" };

/** The organizer's live view of one show's on-sale, with the waiting-room controls. */
export default async function LivePage({ params }: PageProps<"/admin/events/[eventId]/live">) {
  const { eventId } = await params;
  const { event } = await requireOrganizerOfEvent(eventId, `/admin/events/${eventId}/live`);
  return <LiveView eventId={event.id} name={event.name} />;
}
