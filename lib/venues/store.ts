/**
 * Persists a generated {@link VenuePlan} (sections, rows, seats with plan coordinates)
 * and reads a venue back. A venue is written once and shared by all its events.
 */
import { eq } from "drizzle-orm";
import { rows, seats, sections, venues } from "@/db/schema";
import type { Db } from "@/lib/db";
import { newId } from "@/lib/ids";
import type { VenuePlan } from "@/lib/venues/plan";

/** Seats are inserted in batches of this many rows (keeps each statement under Postgres's 65,535 parameters). */
const SEAT_BATCH = 5_000;

/** Where and what a venue is, beyond its plan. */
export interface VenueMeta {
  slug: string;
  name: string;
  city: string;
  /** IANA time zone, e.g. "Europe/London". */
  timeZone: string;
}

/**
 * Writes a venue and its whole plan in one transaction.
 * @returns the new venue id (`ven_…`) and its seat count.
 */
export async function createVenue(db: Db, meta: VenueMeta, plan: VenuePlan): Promise<{ venueId: string; capacity: number }> {
  const venueId = newId("ven");
  await db.transaction(async (tx) => {
    await tx.insert(venues).values({
      id: venueId,
      slug: meta.slug,
      name: meta.name,
      city: meta.city,
      timeZone: meta.timeZone,
      planWidth: plan.width,
      planHeight: plan.height,
      stage: plan.stage.map((p) => [p.x, p.y] as [number, number]),
      capacity: plan.capacity,
    });
    const pending: (typeof seats.$inferInsert)[] = [];
    for (const section of plan.sections) {
      const [createdSection] = await tx
        .insert(sections)
        .values({
          venueId,
          code: section.code,
          name: section.name,
          kind: section.kind,
          tier: section.tier,
          outline: section.outline.map((p) => [p.x, p.y] as [number, number]),
          labelX: section.labelAt.x,
          labelY: section.labelAt.y,
        })
        .returning({ id: sections.id });
      const createdRows = await tx
        .insert(rows)
        .values(section.rows.map((row) => ({ sectionId: createdSection!.id, label: row.label, sortOrder: row.sortOrder })))
        .returning({ id: rows.id, label: rows.label });
      const rowIdByLabel = new Map(createdRows.map((r) => [r.label, r.id]));
      for (const row of section.rows) {
        for (const seat of row.seats) {
          pending.push({
            venueId,
            sectionId: createdSection!.id,
            rowId: rowIdByLabel.get(row.label)!,
            number: seat.number,
            label: seat.label,
            ordinal: seat.ordinal,
            x: seat.x,
            y: seat.y,
          });
        }
      }
    }
    for (let i = 0; i < pending.length; i += SEAT_BATCH) {
      await tx.insert(seats).values(pending.slice(i, i + SEAT_BATCH));
    }
  });
  return { venueId, capacity: plan.capacity };
}

/** The venue with that slug, or undefined. */
export async function findVenueBySlug(db: Db, slug: string) {
  return db.query.venues.findFirst({ where: eq(venues.slug, slug) });
}
