import { notFound } from "next/navigation";
import { QueueView } from "@/components/queue-view";
import { requireUser } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { getPublishedEventBySlug } from "@/lib/events/queries";
import { formatInZone } from "@/lib/format";

export const metadata = { title: "Waiting room" };

/** The waiting room of one show: countdown before the on-sale, then place, progress and ETA. */
export default async function QueuePage({ params }: PageProps<"/events/[slug]/queue">) {
  const { slug } = await params;
  await requireUser(`/events/${slug}/queue`);
  const show = await getPublishedEventBySlug(db(), slug);
  if (!show) notFound();
  return (
    <QueueView
      eventId={show.event.id}
      slug={slug}
      name={show.event.name}
      onSaleAt={show.event.onSaleAt.toISOString()}
      onSaleLabel={formatInZone(show.event.onSaleAt, show.event.timeZone)}
    />
  );
}
