import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getTranslations, setRequestLocale } from "next-intl/server";
import { cache } from "react";
import { BuyPanel } from "@/components/buy-panel";
import { db } from "@/lib/db";
import { getPublishedEventBySlug } from "@/lib/events/queries";
import { formatInZone } from "@/lib/format";
import { intlLocale, type Locale } from "@/lib/i18n/config";
import { LiveLevels } from "./live-levels";

/**
 * Cacheable: regenerated at most every 15 s (ISR), so a flood of visitors costs one render; a
 * cache may still serve an older copy first. So the seats left are live in the browser (from the
 * map's own availability, every 2 s) and say when they were counted (./live-levels.tsx).
 */
export const revalidate = 15;
export const dynamicParams = true;
export function generateStaticParams(): { slug: string }[] {
  return [];
}

/** The show, read once per render: the metadata and the page share it (React's request cache). */
const showBySlug = cache((slug: string) => getPublishedEventBySlug(db(), slug));

export async function generateMetadata({ params }: PageProps<"/[locale]/events/[slug]">): Promise<Metadata> {
  const { slug, locale } = await params;
  const show = await showBySlug(slug);
  const t = await getTranslations({ locale: locale as Locale, namespace: "Event" });
  return { title: show?.event.name ?? t("notFound") };
}

export default async function EventPage({ params }: PageProps<"/[locale]/events/[slug]">) {
  const { slug, locale } = (await params) as { slug: string; locale: Locale };
  setRequestLocale(locale);
  const t = await getTranslations("Event");
  const fmt = intlLocale(locale);
  const show = await showBySlug(slug);
  if (!show) notFound();
  const { event, venue, levels } = show;
  return (
    <article className="space-y-8">
      <header className="space-y-2">
        <h1 className="text-4xl font-bold" data-testid="event-name">
          {event.name}
        </h1>
        <p className="text-lg text-white/80">
          {venue.name}, {venue.city} · {formatInZone(event.startsAt, event.timeZone, fmt)}
        </p>
        <p className="text-white/70">{event.description}</p>
        <p className="text-sm text-white/60">
          {t("facts", { onSale: formatInZone(event.onSaleAt, event.timeZone, fmt), minutes: event.holdMinutes, limit: event.perFanLimit })}
        </p>
      </header>

      <LiveLevels eventId={event.id} levels={levels} at={show.availableAt.toISOString()} timeZone={event.timeZone} />

      <section aria-labelledby="map-heading" className="space-y-3">
        <h2 id="map-heading" className="text-xl font-semibold">
          {t("buyTickets")}
        </h2>
        <BuyPanel
          eventId={event.id}
          slug={event.slug}
          perFanLimit={event.perFanLimit}
          timeZone={event.timeZone}
          onSaleAt={event.onSaleAt.toISOString()}
          levels={levels.map((l) => ({ id: l.id, name: l.name, priceMinor: l.priceMinor, currency: l.currency, remaining: l.remaining }))}
        />
      </section>
    </article>
  );
}
