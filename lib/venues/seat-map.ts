/**
 * The seat map of one event in a compact, cacheable shape: venue geometry plus, per
 * seat in ordinal order, its plan coordinates and price level. Availability is served
 * separately (lib/inventory/availability) because it changes every second while the
 * geometry does not.
 */
import { and, asc, eq } from "drizzle-orm";
import { eventSeats, events, priceLevels, seats, sections, venues } from "@/db/schema";
import type { Db } from "@/lib/db";

/** What the seat-map canvas needs. Coordinates in plan units; prices in minor units. */
export interface SeatMapData {
  eventId: string;
  width: number;
  height: number;
  stage: [number, number][];
  levels: { id: string; name: string; color: string; priceMinor: number; currency: string }[];
  sections: { code: string; name: string; kind: "seated" | "general_admission"; outline: [number, number][]; labelX: number; labelY: number }[];
  /** Parallel arrays indexed by seat ordinal. `level` is an index into `levels`, or -1 when the seat is not on sale. */
  seats: { x: number[]; y: number[]; level: number[]; label: string[] };
}

/** The event's seat map, or null for an unknown event. */
export async function getSeatMap(db: Db, eventId: string): Promise<SeatMapData | null> {
  const [row] = await db
    .select({ venue: venues })
    .from(events)
    .innerJoin(venues, eq(events.venueId, venues.id))
    .where(eq(events.id, eventId))
    .limit(1);
  if (!row) return null;
  const { venue } = row;
  const levels = await db
    .select({ id: priceLevels.id, name: priceLevels.name, color: priceLevels.color, priceMinor: priceLevels.priceMinor, currency: priceLevels.currency })
    .from(priceLevels)
    .where(eq(priceLevels.eventId, eventId))
    .orderBy(asc(priceLevels.sortOrder));
  const levelIndex = new Map(levels.map((l, i) => [l.id, i]));
  const sectionRows = await db
    .select({ code: sections.code, name: sections.name, kind: sections.kind, outline: sections.outline, labelX: sections.labelX, labelY: sections.labelY })
    .from(sections)
    .where(eq(sections.venueId, venue.id))
    .orderBy(asc(sections.id));
  const seatRows = await db
    .select({ ordinal: seats.ordinal, x: seats.x, y: seats.y, label: seats.label, priceLevelId: eventSeats.priceLevelId })
    .from(seats)
    // The venue's seats, each with THIS show's price level (another show of the venue has its own inventory).
    .leftJoin(eventSeats, and(eq(eventSeats.seatId, seats.id), eq(eventSeats.eventId, eventId)))
    .where(eq(seats.venueId, venue.id))
    .orderBy(asc(seats.ordinal));
  const n = venue.capacity;
  const out: SeatMapData["seats"] = { x: new Array(n).fill(0), y: new Array(n).fill(0), level: new Array(n).fill(-1), label: new Array(n).fill("") };
  for (const s of seatRows) {
    out.x[s.ordinal] = Math.round(s.x * 10) / 10;
    out.y[s.ordinal] = Math.round(s.y * 10) / 10;
    out.label[s.ordinal] = s.label;
    out.level[s.ordinal] = s.priceLevelId ? (levelIndex.get(s.priceLevelId) ?? -1) : -1;
  }
  return { eventId, width: venue.planWidth, height: venue.planHeight, stage: venue.stage, levels, sections: sectionRows, seats: out };
}
