import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getTranslations, setRequestLocale } from "next-intl/server";
import { cache } from "react";
import { BuyPanel } from "@/components/buy-panel";
import { PriceLevelTable } from "@/components/price-level-table";
import { db } from "@/lib/db";
import { getPublishedEventBySlug } from "@/lib/events/queries";
import { formatCount, formatInZone } from "@/lib/format";
import { intlLocale, type Locale } from "@/lib/i18n/config";

/** Cacheable: regenerated at most every 15 s (ISR), so a flood of visitors costs one render. Live availability loads client-side. */
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
  const total = levels.reduce((n, l) => n + l.total, 0);
  const remaining = levels.reduce((n, l) => n + l.remaining, 0);
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

      <section aria-labelledby="levels-heading" className="space-y-3">
        <h2 id="levels-heading" className="text-xl font-semibold">
          {t("priceLevels")} <span className="text-sm font-normal text-white/60">{t("levelsLeft", { left: formatCount(remaining, fmt), total: formatCount(total, fmt) })}</span>
        </h2>
        <PriceLevelTable
          testId="price-levels"
          levelHeader={t("level")}
          priceHeader={t("price")}
          locale={fmt}
          figureHeader={t("remaining")}
          rows={levels.map((l) => ({ ...l, figure: `${formatCount(l.remaining, fmt)} / ${formatCount(l.total, fmt)}` }))}
        />
      </section>

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
