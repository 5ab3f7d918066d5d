/**
 * The show an on-sale simulation sells: a venue of the requested size (the arena plan from
 * 5,000 seats, a small hall below), an organizer, and a published show whose on-sale opens
 * after the pre-queue window — five price levels in the arena, two in a hall.
 */
import { eq } from "drizzle-orm";
import { eventSeats, priceLevels, seats } from "@/db/schema";
import { ensureUser } from "@/lib/auth/users";
import type { Db } from "@/lib/db";
import { createEvent } from "@/lib/events/create";
import { ARENA_MIN_CAPACITY, arenaPlan, smallArenaPlan } from "@/lib/venues/plan";
import { createVenue } from "@/lib/venues/store";

/** The simulated show as the fans and the report need it. */
export interface SimulatedShow {
  eventId: string;
  /** Its address under /events/. */
  slug: string;
  /** Epoch ms. */
  onSaleAt: number;
  /** Seats on sale. */
  capacity: number;
  /** Price levels, best first, and the seat ordinals each sells. */
  levels: { id: string; name: string }[];
  ordinalsByLevel: number[][];
}

/**
 * Creates the venue and the show.
 * @param opts.capacity seats; @param opts.holdMinutes the show's hold time; @param opts.rate fans per minute;
 *   @param opts.cap the active cap; @param opts.onSaleInMs when the on-sale opens, from now (ms); @param opts.runTag makes slugs unique.
 */
export async function createSimulatedShow(
  db: Db,
  opts: { capacity: number; holdMinutes: number; rate: number; cap: number; onSaleInMs: number; runTag: string },
): Promise<SimulatedShow> {
  const organizerId = await ensureUser(db, { email: `onsale-organizer-${opts.runTag}@onsale.stararena.test`, password: "onsale-organizer", name: "On-sale organizer", role: "organizer" });
  const isArena = opts.capacity >= ARENA_MIN_CAPACITY;
  const plan = isArena ? arenaPlan({ capacity: opts.capacity }) : smallArenaPlan(opts.capacity);
  const { venueId } = await createVenue(db, { slug: `onsale-venue-${opts.runTag}`, name: `${plan.name} (simulation)`, city: "Berlin", timeZone: "Europe/Berlin" }, plan);
  const onSaleAt = Date.now() + opts.onSaleInMs;
  const { eventId } = await createEvent(db, {
    venueId,
    organizerId,
    slug: `onsale-${opts.runTag}`,
    name: `On-sale simulation ${opts.runTag}`,
    status: "published",
    startsAt: new Date(Date.now() + 30 * 86_400_000),
    onSaleAt: new Date(onSaleAt),
    timeZone: "Europe/Berlin",
    holdMinutes: opts.holdMinutes,
    perFanLimit: 4,
    admissionRatePerMinute: opts.rate,
    activeCap: opts.cap,
    priceLevels: isArena
      ? [
          { name: "Floor standing", priceMinor: 12_900, currency: "EUR", color: "#e11d48", seats: [{ tier: "floor" }] },
          { name: "Premium lower", priceMinor: 16_900, currency: "EUR", color: "#7c3aed", seats: [{ tier: "lower", rows: { from: 1, to: 8 } }] },
          { name: "Lower bowl", priceMinor: 11_900, currency: "EUR", color: "#2563eb", seats: [{ tier: "lower" }] },
          { name: "Upper bowl", priceMinor: 7_900, currency: "EUR", color: "#0d9488", seats: [{ tier: "upper", rows: { from: 1, to: 12 } }] },
          { name: "Upper rear", priceMinor: 4_900, currency: "EUR", color: "#ca8a04", seats: [{ tier: "upper" }] },
        ]
      : [
          { name: "Front", priceMinor: 6_900, currency: "EUR", color: "#7c3aed", seats: [{ rows: { from: 1, to: Math.max(1, Math.floor(plan.capacity / 25 / 3)) } }] },
          { name: "Rest", priceMinor: 3_900, currency: "EUR", color: "#0d9488", seats: [{ tier: "main" }] },
        ],
  });
  const levels = await db.select({ id: priceLevels.id, name: priceLevels.name }).from(priceLevels).where(eq(priceLevels.eventId, eventId)).orderBy(priceLevels.sortOrder);
  const seatLevel = await db.select({ ordinal: seats.ordinal, levelId: eventSeats.priceLevelId }).from(eventSeats).innerJoin(seats, eq(eventSeats.seatId, seats.id)).where(eq(eventSeats.eventId, eventId));
  const levelIndex = new Map(levels.map((l, i) => [l.id, i]));
  const ordinalsByLevel: number[][] = levels.map(() => []);
  for (const s of seatLevel) ordinalsByLevel[levelIndex.get(s.levelId)!]!.push(s.ordinal);
  for (const o of ordinalsByLevel) o.sort((a, b) => a - b);
  return { eventId, slug: `onsale-${opts.runTag}`, onSaleAt, capacity: seatLevel.length, levels, ordinalsByLevel };
}
