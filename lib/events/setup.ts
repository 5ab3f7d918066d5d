/**
 * Setting up a show as its organizer: creating it from the form (through
 * {@link createEvent}), editing it, and publishing it.
 *
 * Rules of editing:
 * - Only the show's organizer may change it ({@link NotYourEventError} otherwise).
 * - Price levels and the event inventory (which seat sells at which level) may be replaced
 *   only while nobody can have bought: the show has no order at all (of any status — line
 *   items reference price levels) and, when published, its on-sale has not opened yet.
 *   Otherwise only the other fields change ({@link PriceLevelsLockedError} for a level change).
 * - Once a published show's on-sale has opened, the on-sale time is fixed ({@link OnSaleLockedError}):
 *   the waiting room has already drawn its pre-queue at that instant.
 * - "Opened", "in the future" and "before its on-sale" are Postgres's clock (docs/adr/0024),
 *   read in the statement that locks the show, never the app instance's.
 * - Publishing is a guarded `UPDATE … WHERE status = 'draft'`: publishing twice is a no-op.
 * - The admission rate and active cap are the waiting room's configuration: written through
 *   lib/waiting-room/config.ts, which also brings Redis in line after an edit.
 */
import { and, asc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { eventSeats, events, orders, priceLevels, venues } from "@/db/schema";
import { databaseNow, sqlNow } from "@/lib/clock";
import { uniqueViolation, type Db } from "@/lib/db";
import { forgetEvent } from "@/lib/events/cache";
import { forgetPublishedSlugs } from "@/lib/events/slugs";
import { createEvent, EmptyPriceLevelError } from "@/lib/events/create";
import {
  EventNotEditableError,
  EventNotFoundError,
  EventTimeError,
  NotYourEventError,
  OnSaleLockedError,
  PriceLevelsLockedError,
  SeatRuleError,
  SlugTakenError,
  UnknownVenueError,
} from "@/lib/events/errors";
import { MAX_PRICE_LEVELS, type EventCreateForm, type EventEditForm } from "@/lib/events/form";
import { assignSeats, canonicalLevels, currentAssignment, loadVenueSeats, lockReason, priceLevelInputSchema, sameAssignment, type PriceLevelInput } from "@/lib/events/seat-rules";
import { newId } from "@/lib/ids";
import { inventoryReady, rebuildInventory } from "@/lib/inventory/rebuild";
import { isTimeZone, LocalTimeError, zonedLocalToUtc } from "@/lib/time-zone";
import { refreshQueueConfig, writeQueueSettings } from "@/lib/waiting-room/config";

const INSERT_BATCH = 5_000;

/** The database or a transaction on it. */
type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0] | Db;

function toUtc(local: string, timeZone: string, field: "startsAt" | "onSaleAt"): Date {
  try {
    return zonedLocalToUtc(local, timeZone);
  } catch (e) {
    if (e instanceof LocalTimeError) throw new EventTimeError({ code: "no_such_local_time", time: local, timeZone, english: e.message }, field);
    throw e;
  }
}

function checkTimes(startsAt: Date, onSaleAt: Date, now: Date, startsAtChanged: boolean): void {
  if (startsAtChanged && startsAt <= now) throw new EventTimeError({ code: "show_in_past" }, "startsAt");
  if (onSaleAt >= startsAt) throw new EventTimeError({ code: "onsale_after_start" }, "onSaleAt");
}

/**
 * Creates a draft show from the parsed "new show" form: resolves the venue and its time
 * zone, turns the local times into UTC, checks the seat rules against the venue, then
 * calls {@link createEvent}.
 * @returns the new event id and the seats put on sale per level name.
 * @param now a test's simulated clock; without it, Postgres's.
 * @throws {UnknownVenueError} {EventTimeError} {SeatRuleError} {SlugTakenError} (each names its form field).
 */
export async function createEventFromForm(db: Db, organizerId: string, form: EventCreateForm, now?: Date) {
  const venue = await db.query.venues.findFirst({ where: eq(venues.id, form.venueId) });
  if (!venue) throw new UnknownVenueError();
  const startsAt = toUtc(form.startsAt, venue.timeZone, "startsAt");
  const onSaleAt = toUtc(form.onSaleAt, venue.timeZone, "onSaleAt");
  checkTimes(startsAt, onSaleAt, await databaseNow(db, now), true);
  const levels = await canonicalLevels(db, venue.id, form.priceLevels);
  try {
    return await createEvent(db, {
      venueId: venue.id,
      organizerId,
      name: form.name,
      slug: form.slug,
      description: form.description,
      status: "draft",
      startsAt,
      onSaleAt,
      timeZone: venue.timeZone,
      holdMinutes: form.holdMinutes,
      perFanLimit: form.perFanLimit,
      admissionRatePerMinute: form.admissionRatePerMinute,
      activeCap: form.activeCap,
      priceLevels: levels,
    });
  } catch (e) {
    if (e instanceof EmptyPriceLevelError) throw emptyLevel(e, levels);
    if (uniqueViolation(e) === "events_slug_unique") throw new SlugTakenError(form.slug);
    throw e;
  }
}

function emptyLevel(e: EmptyPriceLevelError, levels: { name: string }[]): SeatRuleError {
  const i = Math.max(0, levels.findIndex((l) => l.name === e.level));
  return new SeatRuleError({ code: "level_without_seats", level: e.level }, i);
}

/**
 * Applies the parsed "edit show" form: local times are read in the show's time zone;
 * price levels (when the form has them) are checked against the venue and passed on.
 * @throws what {@link updateEvent} throws, with {@link EmptyPriceLevelError} turned into a {@link SeatRuleError}.
 */
export async function updateEventFromForm(db: Db, eventId: string, organizerId: string, form: EventEditForm, now?: Date) {
  const event = await db.query.events.findFirst({ where: eq(events.id, eventId) });
  if (!event) throw new EventNotFoundError();
  if (event.organizerId !== organizerId) throw new NotYourEventError();
  const levels = form.priceLevels ? await canonicalLevels(db, event.venueId, form.priceLevels) : undefined;
  try {
    return await updateEvent(
      db,
      eventId,
      organizerId,
      {
        name: form.name,
        description: form.description,
        startsAt: toUtc(form.startsAt, event.timeZone, "startsAt"),
        onSaleAt: toUtc(form.onSaleAt, event.timeZone, "onSaleAt"),
        holdMinutes: form.holdMinutes,
        perFanLimit: form.perFanLimit,
        admissionRatePerMinute: form.admissionRatePerMinute,
        activeCap: form.activeCap,
        ...(levels ? { priceLevels: levels } : {}),
      },
      now,
    );
  } catch (e) {
    if (e instanceof EmptyPriceLevelError && levels) throw emptyLevel(e, levels);
    throw e;
  }
}

/** What {@link updateEvent} accepts: any subset of the editable fields. Instants are UTC `Date`s. */
const eventUpdateSchema = z.object({
  name: z.string().trim().min(1).max(120).optional(),
  description: z.string().max(2_000).optional(),
  startsAt: z.date().optional(),
  onSaleAt: z.date().optional(),
  timeZone: z.string().refine(isTimeZone, "timeZone must be an IANA time zone such as Europe/Berlin").optional(),
  holdMinutes: z.number().int().min(1).max(120).optional(),
  perFanLimit: z.number().int().min(1).max(50).optional(),
  admissionRatePerMinute: z.number().int().min(1).max(1_000_000).optional(),
  activeCap: z.number().int().min(1).max(1_000_000).optional(),
  /** Replaces all levels and the inventory (same rules as createEvent); refused once locked unless unchanged. */
  priceLevels: z.array(priceLevelInputSchema).min(1).max(MAX_PRICE_LEVELS).optional(),
});

/** Input of {@link updateEvent}. */
export type EventUpdateInput = z.input<typeof eventUpdateSchema>;

/** What {@link updateEvent} did. */
export interface UpdateEventResult {
  eventId: string;
  slug: string;
  status: "draft" | "published" | "cancelled";
  /** True when the price levels and inventory were replaced. */
  levelsReplaced: boolean;
  /** Seats on sale per level name after the update (null when levels were not given). */
  seatsByLevel: Record<string, number> | null;
}

/**
 * Edits a show as its organizer, in one transaction under a row lock on the event.
 * Price levels given identical to the stored ones (same names, prices, colours and seat
 * assignment) are left alone; different ones replace the levels and the inventory — only
 * while the show has no order and, if published, before its on-sale. For a published show,
 * Redis follows afterwards: a built inventory is rebuilt, and the waiting room's on-sale,
 * rate and cap are updated when Redis holds its configuration.
 * @throws {z.ZodError} on malformed input; {@link EventNotFoundError}, {@link NotYourEventError},
 *   {@link EventNotEditableError}, {@link PriceLevelsLockedError}, {@link OnSaleLockedError},
 *   {@link EventTimeError}, {@link EmptyPriceLevelError}.
 * @param now a test's simulated clock; without it, Postgres's `now()` in the statement that locks the show.
 */
export async function updateEvent(db: Db, eventId: string, organizerId: string, input: EventUpdateInput, now?: Date): Promise<UpdateEventResult> {
  const v = eventUpdateSchema.parse(input);
  const result = await db.transaction(async (tx) => {
    // The show, locked, and Postgres's clock from the same statement: whether the on-sale has
    // opened is decided by it, not by this instance's clock.
    const [locked] = await tx
      .select({ ev: events, nowMs: sql<number>`extract(epoch from ${sqlNow(now)}) * 1000`.mapWith(Number) })
      .from(events)
      .where(eq(events.id, eventId))
      .for("update");
    if (!locked) throw new EventNotFoundError();
    const { ev } = locked;
    const at = new Date(locked.nowMs);
    if (ev.organizerId !== organizerId) throw new NotYourEventError();
    if (ev.status === "cancelled") throw new EventNotEditableError();
    const startsAt = v.startsAt ?? ev.startsAt;
    const onSaleAt = v.onSaleAt ?? ev.onSaleAt;
    const onSaleMoved = onSaleAt.getTime() !== ev.onSaleAt.getTime();
    if (onSaleMoved && ev.status === "published" && ev.onSaleAt <= at) throw new OnSaleLockedError();
    checkTimes(startsAt, onSaleAt, at, startsAt.getTime() !== ev.startsAt.getTime());

    let levelsReplaced = false;
    let seatsByLevel: Record<string, number> | null = null;
    if (v.priceLevels) {
      const venueSeats = await loadVenueSeats(tx, ev.venueId);
      const planned = assignSeats(venueSeats, v.priceLevels);
      seatsByLevel = Object.fromEntries(v.priceLevels.map((l) => [l.name, 0]));
      for (const i of planned.values()) seatsByLevel[v.priceLevels[i]!.name]! += 1;
      for (const l of v.priceLevels) if (seatsByLevel[l.name] === 0) throw new EmptyPriceLevelError(l.name);

      const stored = await tx.select().from(priceLevels).where(eq(priceLevels.eventId, eventId)).orderBy(asc(priceLevels.sortOrder));
      const sameLevels =
        stored.length === v.priceLevels.length &&
        stored.every((s, i) => {
          const n = v.priceLevels![i]!;
          return s.name === n.name && s.priceMinor === n.priceMinor && s.currency === n.currency && s.color.toLowerCase() === n.color.toLowerCase();
        });
      const unchanged = sameLevels && sameAssignment(planned, await currentAssignment(tx, eventId, stored.map((s) => s.id)));
      if (!unchanged) {
        const [{ n: orderCount } = { n: 0 }] = await tx.select({ n: sql<number>`count(*)::int` }).from(orders).where(eq(orders.eventId, eventId));
        const reason = lockReason(ev, orderCount, at);
        if (reason) throw new PriceLevelsLockedError(reason);
        await replaceInventory(tx, eventId, v.priceLevels, planned);
        levelsReplaced = true;
      }
    }

    await tx
      .update(events)
      .set({
        ...(v.name !== undefined ? { name: v.name } : {}),
        ...(v.description !== undefined ? { description: v.description } : {}),
        ...(v.timeZone !== undefined ? { timeZone: v.timeZone } : {}),
        ...(v.holdMinutes !== undefined ? { holdMinutes: v.holdMinutes } : {}),
        ...(v.perFanLimit !== undefined ? { perFanLimit: v.perFanLimit } : {}),
        startsAt,
        onSaleAt,
        updatedAt: at,
      })
      .where(eq(events.id, eventId));
    // The rate and cap belong to the waiting room's configuration (its one writer).
    await writeQueueSettings(tx, eventId, { ratePerMinute: v.admissionRatePerMinute, activeCap: v.activeCap });
    return { eventId, slug: ev.slug, status: ev.status, levelsReplaced, seatsByLevel };
  });

  forgetEvent(eventId);
  if (result.status === "published") {
    if (result.levelsReplaced && (await inventoryReady(eventId))) await rebuildInventory(db, eventId);
    await refreshQueueConfig(db, eventId);
  }
  return result;
}

/** Deletes the event's inventory and levels and writes the new ones (inside the caller's transaction). */
async function replaceInventory(tx: Tx, eventId: string, levels: PriceLevelInput[], planned: Map<number, number>): Promise<void> {
  const ids = levels.map(() => newId("pl"));
  await tx.delete(eventSeats).where(eq(eventSeats.eventId, eventId));
  await tx.delete(priceLevels).where(eq(priceLevels.eventId, eventId));
  await tx.insert(priceLevels).values(
    levels.map((l, i) => ({ id: ids[i]!, eventId, name: l.name, priceMinor: l.priceMinor, currency: l.currency, color: l.color, sortOrder: i })),
  );
  const inventory = [...planned].map(([seatId, i]) => ({ eventId, seatId, priceLevelId: ids[i]! }));
  for (let i = 0; i < inventory.length; i += INSERT_BATCH) await tx.insert(eventSeats).values(inventory.slice(i, i + INSERT_BATCH));
}


/**
 * Publishes a draft show: a guarded `UPDATE … WHERE status = 'draft'` (and the organizer owns it).
 * @returns true when this call published it; false when it was not a draft (already published: a no-op).
 * @throws {EventNotFoundError} {NotYourEventError} {EventNotEditableError} (a cancelled show).
 */
export async function publishEvent(db: Db, eventId: string, organizerId: string): Promise<boolean> {
  const updated = await db
    .update(events)
    .set({ status: "published", updatedAt: new Date() })
    .where(and(eq(events.id, eventId), eq(events.organizerId, organizerId), eq(events.status, "draft")))
    .returning({ id: events.id });
  forgetEvent(eventId);
  forgetPublishedSlugs();
  if (updated.length === 1) return true;
  const event = await db.query.events.findFirst({ where: eq(events.id, eventId), columns: { organizerId: true, status: true } });
  if (!event) throw new EventNotFoundError();
  if (event.organizerId !== organizerId) throw new NotYourEventError();
  if (event.status === "cancelled") throw new EventNotEditableError();
  return false;
}
