import { EventAdminNav } from "@/app/admin/_components/event-nav";
import { LiveView } from "@/components/live-view";
import { requireOrganizerOfEvent } from "@/lib/auth/session";

export const metadata = { title: "Live on-sale" };

/** The organizer's live view of one show's on-sale, with the waiting-room controls. */
export default async function LivePage({ params }: PageProps<"/admin/events/[eventId]/live">) {
  const { eventId } = await params;
  const { event } = await requireOrganizerOfEvent(eventId, `/admin/events/${eventId}/live`);
  return (
    <div className="space-y-4">
      <EventAdminNav eventId={event.id} name={event.name} current="live" />
      <LiveView eventId={event.id} name={event.name} />
    </div>
  );
}
