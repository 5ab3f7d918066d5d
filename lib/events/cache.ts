/**
 * A per-process copy of an event's row and its price-level ids, kept for at most
 * {@link EVENT_CACHE_TTL_MS}, for the paths an on-sale runs thousands of times a second:
 * every hold attempt (most of them refused once seats run short) and every checkout
 * would otherwise read the same two rows from Postgres. Concurrent callers share one
 * read (single flight).
 *
 * Staleness: an organizer's edit (publish, new on-sale time, hold minutes, per-fan limit,
 * price levels) is seen at once by the instance that made it ({@link forgetEvent} is
 * called by lib/events/setup.ts and lib/events/demo-reset.ts) and by other instances within the TTL. That is safe
 * because nothing here decides a seat: Redis claims seats atomically and Postgres's
 * constraints (I1) and the per-fan recount (I6) guard the order (ADR 0008).
 */
import { eq } from "drizzle-orm";
import { events, priceLevels } from "@/db/schema";
import type { Db } from "@/lib/db";

/** How long a copy is used, in milliseconds. */
export const EVENT_CACHE_TTL_MS = 1_000;
/** Copies kept at most; the oldest goes first (an instance serves a handful of shows at once). */
const MAX_ENTRIES = 500;

/** The event row and the ids of its price levels. */
export interface CachedEvent {
  event: typeof events.$inferSelect;
  priceLevelIds: ReadonlySet<string>;
}

const entries = new Map<string, { until: number; value: Promise<CachedEvent | null> }>();

/**
 * The event and its price-level ids, from this process's copy when it is younger than the
 * TTL, else from Postgres (one read shared by concurrent callers).
 * @returns null when there is no such event.
 * @throws whatever the database read throws (the failed read is not kept).
 */
export function cachedEvent(db: Db, eventId: string, now = Date.now()): Promise<CachedEvent | null> {
  const hit = entries.get(eventId);
  if (hit && hit.until > now) return hit.value;
  const value = Promise.all([
    db.query.events.findFirst({ where: eq(events.id, eventId) }),
    db.select({ id: priceLevels.id }).from(priceLevels).where(eq(priceLevels.eventId, eventId)),
  ]).then(([event, levels]) => (event ? { event, priceLevelIds: new Set(levels.map((l) => l.id)) } : null));
  entries.delete(eventId);
  entries.set(eventId, { until: now + EVENT_CACHE_TTL_MS, value });
  if (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value!);
  value.catch(() => {
    if (entries.get(eventId)?.value === value) entries.delete(eventId);
  });
  return value;
}

/** Drops this process's copy of an event (after an edit), or of every event without an id. */
export function forgetEvent(eventId?: string): void {
  if (eventId === undefined) entries.clear();
  else entries.delete(eventId);
}
