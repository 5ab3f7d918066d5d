/**
 * Which shows are on sale now or about to be: the one query the worker's on-sale jobs share —
 * the admission pacer (./pacing.ts, a step ahead of the on-sale) and the inventory's preparation
 * (lib/inventory/rebuild.ts, 10 minutes ahead). Here rather than in lib/events because both
 * callers sit in the layer below it (.dependency-cruiser.cjs).
 */
import { and, eq, gt, lte, sql } from "drizzle-orm";
import { events } from "@/db/schema";
import { sqlNow } from "@/lib/clock";
import type { Db } from "@/lib/db";

/**
 * The published events whose on-sale is at or before `now + aheadMs` (so also those on sale
 * already) and whose show has not started at `now`.
 * @param aheadMs how far ahead of their on-sale events count (ms, ≥ 0).
 * @param now a test's simulated clock (epoch ms); without it, Postgres's `now()` (lib/clock.ts).
 * @returns their ids, in no particular order.
 * @throws whatever the database read throws.
 */
export function eventsOnSaleWithin(db: Db, aheadMs: number, now?: number): Promise<{ id: string }[]> {
  const at = sqlNow(now === undefined ? undefined : new Date(now));
  return db
    .select({ id: events.id })
    .from(events)
    .where(and(eq(events.status, "published"), lte(events.onSaleAt, sql`${at} + ${aheadMs}::int * interval '1 millisecond'`), gt(events.startsAt, at)));
}
