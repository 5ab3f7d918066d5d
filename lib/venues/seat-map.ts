/**
 * The seat map of one event in a compact, cacheable shape: venue geometry plus, per
 * seat in ordinal order, its plan coordinates and price level. Availability is served
 * separately (lib/inventory/availability) because it changes every second while the
 * geometry does not.
 */
import { and, asc, eq } from "drizzle-orm";
import { eventSeats, events, priceLevels, rows, seats, sections, venues } from "@/db/schema";
import type { Db } from "@/lib/db";

/** What the seat-map canvas needs. Coordinates in plan units; prices in minor units. */
export interface SeatMapData {
  eventId: string;
  width: number;
  height: number;
  stage: [number, number][];
  levels: { id: string; name: string; color: string; priceMinor: number; currency: string }[];
  sections: { code: string; name: string; kind: "seated" | "general_admission"; outline: [number, number][]; labelX: number; labelY: number }[];
  /** Each dense row index's label as printed on a ticket ("7", "B", "GA3"): with the section's code and kind and the seat's number, a seat's label is composed in the reader's language (lib/venues/seat-label.ts). */
  rows: string[];
  /**
   * Parallel arrays indexed by seat ordinal. `level` is an index into `levels`, or -1 when the
   * seat is not on sale; `section` an index into `sections`; `row` a dense row index, in the
   * order of the sections and then of their rows (front to back), so rows r and r + 1 of one
   * section are neighbours; `number` the seat's number in its row. (No stored English label:
   * the reader's language composes it from these.)
   */
  seats: { x: number[]; y: number[]; level: number[]; section: number[]; row: number[]; number: number[] };
  /** The usual distance between neighbouring seats of a row, in plan units (the median): what the map scales so a seat is big enough to tap. */
  pitch: number;
}

/**
 * The median distance between seats that follow each other in a row (plan units), from the
 * parallel arrays of {@link SeatMapData.seats}; 1 when no row has two seats.
 */
export function seatPitch(seats: Pick<SeatMapData["seats"], "x" | "y" | "row" | "number">): number {
  const byRow = new Map<number, number[]>();
  for (let i = 0; i < seats.x.length; i++) {
    const list = byRow.get(seats.row[i]!) ?? [];
    list.push(i);
    byRow.set(seats.row[i]!, list);
  }
  const gaps: number[] = [];
  for (const list of byRow.values()) {
    list.sort((a, b) => seats.number[a]! - seats.number[b]!);
    for (let k = 1; k < list.length; k++) gaps.push(Math.hypot(seats.x[list[k]!]! - seats.x[list[k - 1]!]!, seats.y[list[k]!]! - seats.y[list[k - 1]!]!));
  }
  if (gaps.length === 0) return 1;
  gaps.sort((a, b) => a - b);
  return Math.round(gaps[gaps.length >> 1]! * 100) / 100;
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
    .select({ id: sections.id, code: sections.code, name: sections.name, kind: sections.kind, outline: sections.outline, labelX: sections.labelX, labelY: sections.labelY })
    .from(sections)
    .where(eq(sections.venueId, venue.id))
    .orderBy(asc(sections.id));
  const rowRows = await db
    .select({ id: rows.id, sectionId: rows.sectionId, sortOrder: rows.sortOrder, label: rows.label })
    .from(rows)
    .innerJoin(sections, eq(rows.sectionId, sections.id))
    .where(eq(sections.venueId, venue.id));
  const sectionIndex = new Map(sectionRows.map((s, i) => [s.id, i]));
  rowRows.sort((a, b) => sectionIndex.get(a.sectionId)! - sectionIndex.get(b.sectionId)! || a.sortOrder - b.sortOrder);
  const rowIndex = new Map(rowRows.map((r, i) => [r.id, i]));
  const seatRows = await db
    .select({ ordinal: seats.ordinal, x: seats.x, y: seats.y, sectionId: seats.sectionId, rowId: seats.rowId, number: seats.number, priceLevelId: eventSeats.priceLevelId })
    .from(seats)
    // The venue's seats, each with THIS show's price level (another show of the venue has its own inventory).
    .leftJoin(eventSeats, and(eq(eventSeats.seatId, seats.id), eq(eventSeats.eventId, eventId)))
    .where(eq(seats.venueId, venue.id))
    .orderBy(asc(seats.ordinal));
  const n = venue.capacity;
  const filled = <T>(v: T): T[] => new Array<T>(n).fill(v);
  const out: SeatMapData["seats"] = { x: filled(0), y: filled(0), level: filled(-1), section: filled(0), row: filled(0), number: filled(0) };
  for (const s of seatRows) {
    out.x[s.ordinal] = Math.round(s.x * 10) / 10;
    out.y[s.ordinal] = Math.round(s.y * 10) / 10;
    out.level[s.ordinal] = s.priceLevelId ? (levelIndex.get(s.priceLevelId) ?? -1) : -1;
    out.section[s.ordinal] = sectionIndex.get(s.sectionId) ?? 0;
    out.row[s.ordinal] = rowIndex.get(s.rowId) ?? 0;
    out.number[s.ordinal] = s.number;
  }
  return {
    eventId,
    width: venue.planWidth,
    height: venue.planHeight,
    stage: venue.stage,
    levels,
    sections: sectionRows.map((s) => ({ code: s.code, name: s.name, kind: s.kind, outline: s.outline, labelX: s.labelX, labelY: s.labelY })),
    rows: rowRows.map((r) => r.label),
    seats: out,
    pitch: seatPitch(out),
  };
}
