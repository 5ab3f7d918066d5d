import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { EventAdminNav } from "@/app/admin/_components/event-nav";
import { LiveView } from "@/components/live-view";
import { requireOrganizerOfEvent } from "@/lib/auth/session";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("Live"))("metaTitle") };
}

/** The organizer's live view of one show's on-sale, with the waiting-room controls; its times in the show's venue zone. */
export default async function LivePage({ params }: PageProps<"/admin/events/[eventId]/live">) {
  const { eventId } = await params;
  const { event } = await requireOrganizerOfEvent(eventId, `/admin/events/${eventId}/live`);
  return (
    <div className="space-y-4">
      <EventAdminNav eventId={event.id} name={event.name} current="live" />
      <LiveView eventId={event.id} name={event.name} timeZone={event.timeZone} />
    </div>
  );
}
