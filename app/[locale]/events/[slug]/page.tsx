import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { cache } from "react";
import { BuyPanel } from "@/components/buy-panel";
import { PriceLevelTable } from "@/components/price-level-table";
import { db } from "@/lib/db";
import { getPublishedEventBySlug } from "@/lib/events/queries";
import { formatCount, formatInZone } from "@/lib/format";

/** Cacheable: regenerated at most every 15 s (ISR), so a flood of visitors costs one render. Live availability loads client-side. */
export const revalidate = 15;
export const dynamicParams = true;
export function generateStaticParams(): { slug: string }[] {
  return [];
}

/** The show, read once per render: the metadata and the page share it (React's request cache). */
const showBySlug = cache((slug: string) => getPublishedEventBySlug(db(), slug));

export async function generateMetadata({ params }: PageProps<"/events/[slug]">): Promise<Metadata> {
  const show = await showBySlug((await params).slug);
  return { title: show?.event.name ?? "Show not found" };
}

export default async function EventPage({ params }: PageProps<"/events/[slug]">) {
  const show = await showBySlug((await params).slug);
  if (!show) notFound();
  const { event, venue, levels } = show;
  const total = levels.reduce((n, l) => n + l.total, 0);
  const remaining = levels.reduce((n, l) => n + l.remaining, 0);
  return (
    <article className="space-y-8">
      <header className="space-y-2">
        <h1 className="text-4xl font-bold" data-testid="event-name">
          {event.name}
        </h1>
        <p className="text-lg text-white/80">
          {venue.name}, {venue.city} · {formatInZone(event.startsAt, event.timeZone)}
        </p>
        <p className="text-white/70">{event.description}</p>
        <p className="text-sm text-white/60">
          On-sale: {formatInZone(event.onSaleAt, event.timeZone)} · hold time {event.holdMinutes} min · up to {event.perFanLimit} tickets per fan
        </p>
      </header>

      <section aria-labelledby="levels-heading" className="space-y-3">
        <h2 id="levels-heading" className="text-xl font-semibold">
          Price levels <span className="text-sm font-normal text-white/60">({formatCount(remaining)} of {formatCount(total)} left)</span>
        </h2>
        <PriceLevelTable
          testId="price-levels"
          levelHeader="Level"
          figureHeader="Remaining"
          rows={levels.map((l) => ({ ...l, figure: `${formatCount(l.remaining)} / ${formatCount(l.total)}` }))}
        />
      </section>

      <section aria-labelledby="map-heading" className="space-y-3">
        <h2 id="map-heading" className="text-xl font-semibold">
          Buy tickets
        </h2>
        <BuyPanel
          eventId={event.id}
          slug={event.slug}
          perFanLimit={event.perFanLimit}
          onSaleAt={event.onSaleAt.toISOString()}
          levels={levels.map((l) => ({ id: l.id, name: l.name, priceMinor: l.priceMinor, currency: l.currency, remaining: l.remaining }))}
        />
      </section>
    </article>
  );
}
