/** A show as its edit page reads it: venue, levels with seat counts, lock state, and the form's starting values. */
import { asc, eq, sql } from "drizzle-orm";
import { events, eventSeats, orders, priceLevels, venues } from "@/db/schema";
import { databaseNow } from "@/lib/clock";
import type { Db } from "@/lib/db";
import type { PriceLevelsLockedError } from "@/lib/events/errors";
import type { EventFormValues } from "@/lib/events/form";
import { currentAssignment, describeAssignment, loadVenueSeats, lockReason } from "@/lib/events/seat-rules";
import { formatMajorUnits } from "@/lib/format";
import { utcToZonedLocal } from "@/lib/time-zone";
import type { VenueSummary } from "@/lib/venues/queries";

/** A price level with the number of seats it sells. Price in minor units. */
export interface SetupPriceLevel {
  id: string;
  name: string;
  priceMinor: number;
  currency: string;
  color: string;
  seats: number;
}

/** Everything the edit page shows about one show. */
export interface EventSetup {
  event: typeof events.$inferSelect;
  venue: VenueSummary;
  levels: SetupPriceLevel[];
  seatsOnSale: number;
  orderCount: number;
  /** Null when price levels and seats may still change; otherwise why not. */
  levelsLocked: PriceLevelsLockedError["reason"] | null;
  /** The form's starting values (times in the event's time zone, prices in major units, rules derived from the inventory). */
  form: EventFormValues;
  /** False when the derived rules do not reproduce the stored seat assignment exactly. */
  rulesExact: boolean;
}

/** The show, its venue, levels with seat counts and the form's starting values; null for an unknown show. No ownership check: callers use requireOrganizerOfEvent first. */
export async function getEventSetup(db: Db, eventId: string, now?: Date): Promise<EventSetup | null> {
  const [row] = await db.select({ event: events, venue: venues }).from(events).innerJoin(venues, eq(events.venueId, venues.id)).where(eq(events.id, eventId));
  if (!row) return null;
  const { event, venue } = row;
  const levels = await db
    .select({ id: priceLevels.id, name: priceLevels.name, priceMinor: priceLevels.priceMinor, currency: priceLevels.currency, color: priceLevels.color, seats: sql<number>`count(${eventSeats.seatId})::int` })
    .from(priceLevels)
    .leftJoin(eventSeats, eq(eventSeats.priceLevelId, priceLevels.id))
    .where(eq(priceLevels.eventId, eventId))
    .groupBy(priceLevels.id)
    .orderBy(asc(priceLevels.sortOrder));
  const [{ n: orderCount } = { n: 0 }] = await db.select({ n: sql<number>`count(*)::int` }).from(orders).where(eq(orders.eventId, eventId));
  const venueSeats = await loadVenueSeats(db, venue.id);
  const stored = await currentAssignment(db, eventId, levels.map((l) => l.id));
  const described = describeAssignment(venueSeats, stored, levels.length);
  // Whether sales have opened, by Postgres's clock (docs/adr/0024), as the edit itself decides it.
  const levelsLocked = lockReason(event, orderCount, await databaseNow(db, now));
  return {
    event,
    venue: { id: venue.id, slug: venue.slug, name: venue.name, city: venue.city, timeZone: venue.timeZone, capacity: venue.capacity },
    levels,
    seatsOnSale: levels.reduce((n, l) => n + l.seats, 0),
    orderCount,
    levelsLocked,
    rulesExact: described.exact,
    form: {
      venueId: venue.id,
      name: event.name,
      slug: event.slug,
      description: event.description,
      startsAt: utcToZonedLocal(event.startsAt, event.timeZone),
      onSaleAt: utcToZonedLocal(event.onSaleAt, event.timeZone),
      holdMinutes: String(event.holdMinutes),
      perFanLimit: String(event.perFanLimit),
      admissionRatePerMinute: String(event.admissionRatePerMinute),
      activeCap: String(event.activeCap),
      priceLevels: levels.map((l, i) => ({ name: l.name, price: formatMajorUnits(l.priceMinor, l.currency), currency: l.currency, color: l.color, ...described.rules[i]! })),
    },
  };
}

