/**
 * Read models for fan pages: the list of shows and one show with its price levels and
 * remaining counts. Counts come from the event inventory in Postgres.
 */
import { and, asc, eq, sql } from "drizzle-orm";
import { eventSeats, events, priceLevels, venues } from "@/db/schema";
import type { Db } from "@/lib/db";

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

/** Published shows, soonest on-sale first. */
export async function listPublishedEvents(db: Db): Promise<EventListItem[]> {
  const rows = await db
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
  return rows;
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

/** One show for its event page: the event, its venue and its price levels with remaining counts. */
export async function getPublishedEventBySlug(db: Db, slug: string) {
  const [row] = await db
    .select({ event: events, venue: venues })
    .from(events)
    .innerJoin(venues, eq(events.venueId, venues.id))
    .where(and(eq(events.slug, slug), eq(events.status, "published")))
    .limit(1);
  if (!row) return null;
  const levels: PriceLevelSummary[] = await db
    .select({
      id: priceLevels.id,
      name: priceLevels.name,
      priceMinor: priceLevels.priceMinor,
      currency: priceLevels.currency,
      color: priceLevels.color,
      total: sql<number>`count(${eventSeats.seatId})::int`,
      remaining: sql<number>`(count(${eventSeats.seatId}) filter (where ${eventSeats.status} = 'available'))::int`,
    })
    .from(priceLevels)
    .leftJoin(eventSeats, eq(eventSeats.priceLevelId, priceLevels.id))
    .where(eq(priceLevels.eventId, row.event.id))
    .groupBy(priceLevels.id)
    .orderBy(asc(priceLevels.sortOrder));
  return { ...row, levels };
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
