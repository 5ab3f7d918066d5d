/**
 * Read models for fan pages: the list of shows and one show with its price levels and
 * remaining counts. Free-seat counts come from the source the seat map draws — the Redis
 * inventory's free bitmap, Postgres while it is not built (lib/inventory/availability.ts) — so
 * the home page, the price table and the map agree; seats on sale are counted in Postgres.
 */
import { and, asc, eq, sql } from "drizzle-orm";
import { eventSeats, events, priceLevels, venues } from "@/db/schema";
import type { Db } from "@/lib/db";
import { freeSeatCounts, levelAvailability } from "@/lib/inventory/availability";

/** One row of the home page. Prices in minor units. */
export interface EventListItem {
  id: string;
  slug: string;
  name: string;
  venueName: string;
  city: string;
  startsAt: Date;
  onSaleAt: Date;
  /** True once the on-sale instant has passed (by the database clock). */
  onSaleOpen: boolean;
  timeZone: string;
  seatsOnSale: number;
  seatsAvailable: number;
  minPriceMinor: number | null;
  maxPriceMinor: number | null;
  currency: string | null;
}

/** Published shows, soonest on-sale first, with their free seats as the map counts them. */
export async function listPublishedEvents(db: Db): Promise<EventListItem[]> {
  const list = await db
    .select({
      id: events.id,
      slug: events.slug,
      name: events.name,
      venueName: venues.name,
      city: venues.city,
      startsAt: events.startsAt,
      onSaleAt: events.onSaleAt,
      onSaleOpen: sql<boolean>`${events.onSaleAt} <= now()`,
      timeZone: events.timeZone,
      seatsOnSale: sql<number>`(select count(*)::int from ${eventSeats} es where es.event_id = ${events.id})`,
      seatsAvailable: sql<number>`(select count(*)::int from ${eventSeats} es where es.event_id = ${events.id} and es.status = 'available')`,
      minPriceMinor: sql<number | null>`(select min(price_minor)::int from ${priceLevels} p where p.event_id = ${events.id})`,
      maxPriceMinor: sql<number | null>`(select max(price_minor)::int from ${priceLevels} p where p.event_id = ${events.id})`,
      currency: sql<string | null>`(select min(currency) from ${priceLevels} p where p.event_id = ${events.id})`,
    })
    .from(events)
    .innerJoin(venues, eq(events.venueId, venues.id))
    .where(eq(events.status, "published"))
    .orderBy(asc(events.onSaleAt), asc(events.name));
  // Postgres's count stands for a show whose Redis inventory is not built (as the map's does).
  const free = await freeSeatCounts(list.map((e) => e.id));
  return list.map((e) => ({ ...e, seatsAvailable: free.get(e.id) ?? e.seatsAvailable }));
}

/** A price level with its inventory counts. */
export interface PriceLevelSummary {
  id: string;
  name: string;
  priceMinor: number;
  currency: string;
  color: string;
  total: number;
  remaining: number;
}

/** A published show by its slug, with its venue: the event row and the venue row, or null. */
export async function findPublishedEvent(db: Db, slug: string) {
  const [row] = await db
    .select({ event: events, venue: venues })
    .from(events)
    .innerJoin(venues, eq(events.venueId, venues.id))
    .where(and(eq(events.slug, slug), eq(events.status, "published")))
    .limit(1);
  return row ?? null;
}

/**
 * One show for its event page: the event, its venue and its price levels with their seats on
 * sale and free, counted from one availability snapshot (lib/inventory/availability.ts
 * `levelAvailability`, the map's source) taken at `availableAt`.
 */
export async function getPublishedEventBySlug(db: Db, slug: string) {
  const row = await findPublishedEvent(db, slug);
  if (!row) return null;
  const [list, counts] = await Promise.all([
    db
      .select({ id: priceLevels.id, name: priceLevels.name, priceMinor: priceLevels.priceMinor, currency: priceLevels.currency, color: priceLevels.color })
      .from(priceLevels)
      .where(eq(priceLevels.eventId, row.event.id))
      .orderBy(asc(priceLevels.sortOrder)),
    levelAvailability(db, row.event.id),
  ]);
  const levels: PriceLevelSummary[] = list.map((l) => {
    const c = counts?.levels.get(l.id);
    return { ...l, total: c?.total ?? 0, remaining: c?.available ?? 0 };
  });
  return { ...row, levels, availableAt: new Date(counts?.at ?? Date.now()) };
}

/** The organizer's own shows with sold and on-sale counts, newest on-sale first. */
export async function listOrganizerEvents(db: Db, organizerId: string) {
  return db
    .select({
      id: events.id,
      slug: events.slug,
      name: events.name,
      status: events.status,
      onSaleAt: events.onSaleAt,
      timeZone: events.timeZone,
      seatsOnSale: sql<number>`(select count(*)::int from ${eventSeats} es where es.event_id = ${events.id})`,
      seatsSold: sql<number>`(select count(*)::int from ${eventSeats} es where es.event_id = ${events.id} and es.status = 'sold')`,
    })
    .from(events)
    .where(eq(events.organizerId, organizerId))
    .orderBy(sql`${events.onSaleAt} desc`);
}
