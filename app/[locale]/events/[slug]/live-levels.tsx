"use client";
/**
 * The show page's price levels with the seats left in each, live: counted in the browser from
 * the same two answers the seat map draws from (its geometry, which says each seat's level, and
 * the availability bitset it polls every 2 s — one request each, shared through the query
 * cache), with the count's time in the venue's zone. Until they arrive it shows what the page
 * was rendered with, and when: the page itself may be served from a cache.
 */
import { useQuery } from "@tanstack/react-query";
import { useLocale, useTranslations } from "next-intl";
import { useMemo } from "react";
import { PriceLevelTable } from "@/components/price-level-table";
import { formatCount, formatTimeInZone } from "@/lib/format";
import { intlLocale } from "@/lib/i18n/config";
import type { Availability } from "@/lib/inventory/availability";
import { countByLevel, decodeBits } from "@/lib/inventory/availability-bits";
import type { SeatMapData } from "@/lib/venues/seat-map";

/** A level as the server counted it. */
export interface LiveLevel {
  id: string;
  name: string;
  color: string;
  priceMinor: number;
  currency: string;
  total: number;
  remaining: number;
}

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  return (await res.json()) as T;
}

/** @param at when the server counted `levels` (ISO); @param timeZone the venue's IANA zone. */
export function LiveLevels({ eventId, levels, at, timeZone }: { eventId: string; levels: LiveLevel[]; at: string; timeZone: string }) {
  const t = useTranslations("Event");
  const fmt = intlLocale(useLocale());
  // The seat map's own queries (components/seat-map.tsx): same keys, so one request serves both.
  const map = useQuery({ queryKey: ["seat-map", eventId], queryFn: () => getJson<SeatMapData>(`/api/events/${eventId}/seat-map`), staleTime: Infinity });
  const availability = useQuery({
    queryKey: ["availability", eventId],
    queryFn: () => getJson<Availability>(`/api/events/${eventId}/availability`),
    refetchInterval: 2_000,
  });
  const live = useMemo(() => {
    if (!map.data || !availability.data) return null;
    const counts = countByLevel(decodeBits(availability.data.bits), map.data.seats.level, map.data.levels.length);
    const byId = new Map(map.data.levels.map((l, i) => [l.id, { total: counts.total[i]!, remaining: counts.free[i]! }]));
    return { at: availability.data.at, byId };
  }, [map.data, availability.data]);

  const rows = levels.map((l) => ({ ...l, ...(live?.byId.get(l.id) ?? {}) }));
  const total = rows.reduce((n, l) => n + l.total, 0);
  const remaining = rows.reduce((n, l) => n + l.remaining, 0);
  const asOf = formatTimeInZone(new Date(live?.at ?? at), timeZone, fmt, { seconds: true });
  return (
    <section aria-labelledby="levels-heading" className="space-y-3" data-testid="live-levels" data-live={live ? "true" : "false"} data-as-of={live?.at ?? at}>
      <h2 id="levels-heading" className="text-xl font-semibold">
        {t("priceLevels")}{" "}
        <span className="text-sm font-normal text-white/70" data-testid="levels-left">
          {t("levelsLeft", { left: formatCount(remaining, fmt), total: formatCount(total, fmt) })}
        </span>
      </h2>
      <PriceLevelTable
        testId="price-levels"
        levelHeader={t("level")}
        priceHeader={t("price")}
        locale={fmt}
        figureHeader={t("remaining")}
        rows={rows.map((l) => ({ ...l, figure: `${formatCount(l.remaining, fmt)} / ${formatCount(l.total, fmt)}` }))}
      />
      <p className="text-xs text-white/70" data-testid="levels-as-of">
        {t("asOf", { time: asOf })}
      </p>
    </section>
  );
}
