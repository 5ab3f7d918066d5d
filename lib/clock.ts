/**
 * One clock (docs/adr/0024-one-clock.md). Every comparison that decides an expiry, a deadline
 * or a window — a hold's end, a checkout's, a grace period, a refund's retry — is made with
 * Postgres's `now()` (or Redis's `TIME` inside a Lua script), never with a process's wall
 * clock: the app instances, the worker, the door and Inngest run on machines whose clocks
 * drift apart, and a worker 30 s ahead must not end holds 30 s early.
 *
 * A `now` passed in is a test's simulated clock; without one, Postgres decides.
 */
import { sql, type SQL } from "drizzle-orm";
import type { Db } from "@/lib/db";
import { redis } from "@/lib/redis";

/**
 * The instant a statement compares with: `now` as a timestamptz parameter when a test passes
 * one, else Postgres's `now()` (the transaction's start, the same in every statement of it).
 */
export function sqlNow(now?: Date): SQL {
  return now ? sql`${now.toISOString()}::timestamptz` : sql`now()`;
}

/** Postgres's `now()` (one round trip; off the hot paths only), or `now` when a test passes one. */
export async function databaseNow(db: Pick<Db, "execute">, now?: Date): Promise<Date> {
  if (now) return now;
  const [row] = (await db.execute(sql`select now() as now`)) as unknown as { now: Date | string }[];
  return new Date(row!.now);
}

/** Redis's `TIME` in ms: the clock the Lua scripts compare with (one round trip). */
export async function redisNowMs(): Promise<number> {
  const [seconds, micros] = await redis().time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/**
 * How far apart two processes' clocks may be before a check that must use a local clock
 * (a signed token's `exp`, verified by jose) refuses what another process issued in time.
 * Such a check is only a filter: the decision itself is made with Postgres's or Redis's clock.
 * (lib/waiting-room/token.ts keeps its own copy: the door's handler may not reach this module's imports.)
 */
export const MAX_CLOCK_SKEW_MS = 60_000;
