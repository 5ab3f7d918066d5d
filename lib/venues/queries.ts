/** Venues as the organizer's set-up pages list them: the venue picker and each venue's sections. */
import { asc, eq, sql } from "drizzle-orm";
import { rows, seats, sections, venues } from "@/db/schema";
import type { Db } from "@/lib/db";

/**
 * What a seat's label is composed from (lib/venues/seat-label.ts `SeatParts`), as columns for
 * drizzle selects joined to `seats`, `sections` and `rows`: pages compose the label in the
 * reader's language; the stored English label stays what ticket codes sign (docs/adr/0029).
 */
export const seatPartColumns = {
  section: sections.code,
  standing: sql<boolean>`${sections.kind} = 'general_admission'`,
  row: rows.label,
  number: seats.number,
};

/** A venue as the form's venue picker shows it. */
export interface VenueSummary {
  id: string;
  slug: string;
  name: string;
  city: string;
  timeZone: string;
  capacity: number;
}

/** All venues, by name. */
export async function listVenues(db: Db): Promise<VenueSummary[]> {
  return db
    .select({ id: venues.id, slug: venues.slug, name: venues.name, city: venues.city, timeZone: venues.timeZone, capacity: venues.capacity })
    .from(venues)
    .orderBy(asc(venues.name));
}

/** One section of a venue with its size, for the seat-rule hints. */
export interface VenueSection {
  code: string;
  name: string;
  tier: string;
  kind: "seated" | "general_admission";
  /** Number of rows (row 1 is nearest the stage). */
  rows: number;
  seats: number;
}

/** The venue's sections in plan order: codes, tiers, row and seat counts (empty for an unknown venue). */
export async function venueSections(db: Db, venueId: string): Promise<VenueSection[]> {
  return db
    .select({
      code: sections.code,
      name: sections.name,
      tier: sections.tier,
      kind: sections.kind,
      rows: sql<number>`count(distinct ${rows.id})::int`,
      seats: sql<number>`count(${seats.id})::int`,
    })
    .from(sections)
    .leftJoin(rows, eq(rows.sectionId, sections.id))
    .leftJoin(seats, eq(seats.rowId, rows.id))
    .where(eq(sections.venueId, venueId))
    .groupBy(sections.id)
    .orderBy(asc(sections.id));
}

