/**
 * Admission pacing (docs/design.md "Waiting room", ADR 0015): the waiting room lets fans into
 * the shop only as fast as the shop answers them. The organizer's active cap says how many
 * fans may shop at once; the pacer lowers it to what the hold path carries with its latency
 * on target, from the hold latencies the app records (lib/metrics/holds.ts), and raises it
 * back while the latency has room — additive increase, multiplicative decrease, the rule
 * TCP's congestion control uses for the same problem (RFC 5681): find the most a shared
 * resource carries without queueing. The seed's failure table names the signal ("admission
 * too fast → hold-path latency/error rate visible"); the pacer acts on it so nobody has to
 * watch the dashboard at 10:00:01.
 *
 * It is the only writer of the `pacedCap` field of an event's `cfg` hash (./lua.ts); the
 * admission Lua admits up to min(cap, pacedCap). The local worker runs it every
 * {@link PACING_INTERVAL_MS} for the events on sale (lib/jobs/worker.ts).
 */
import { and, gt, lte, eq } from "drizzle-orm";
import { events } from "@/db/schema";
import type { Db } from "@/lib/db";
import { quantile, recentHoldLatencies } from "@/lib/metrics/holds";
import { redis } from "@/lib/redis";
import { queueKeys } from "@/lib/waiting-room/keys";
import { publicQueueStatus } from "@/lib/waiting-room/queue";

/** How often the pacer looks (ms); it judges the last two of the hold metrics' 5-s windows (lib/metrics/holds.ts). */
export const PACING_INTERVAL_MS = 5_000;

/** The pacer's constants: caps in fans, latency in ms. */
export const PACING = {
  /** The least a sale's pacing starts from, at the on-sale (or after Redis lost the field, from the fans shopping if more). */
  startCap: 100,
  /** Never below this: a slow shop still sells. */
  floorCap: 10,
  /** Fewer holds than this in the windows say nothing about latency. */
  minSamples: 10,
  /** Multiplicative decrease when the p99 is over the target. */
  decrease: 0.75,
  /** Growth while the p99 is under half the target (the shop is far from its limit). */
  fastIncrease: 1.25,
  /** Growth while the p99 is under the target: 5 % (at least one fan). */
  slowIncrease: 0.05,
} as const;

/** What one pacing step looks at. Caps and `active` in fans; `p99` in ms (null without samples). */
export interface PacingInput {
  /** The pacer's current cap, or null when the event is not paced yet. */
  pacedCap: number | null;
  /** The organizer's cap: the pacer never goes above it. */
  organizerCap: number;
  /** Fans shopping now (active admission slots). */
  active: number;
  /** Hold latency p99 over the last two windows (10 s; ms), and how many holds it was taken from. */
  p99: number | null;
  samples: number;
  /** The hold latency p99 to keep under (ms). */
  targetMs: number;
}

/**
 * The next paced cap (fans), by additive increase / multiplicative decrease. The signal is the
 * hold latency alone: the shop's slots count fans who left and keep their slot until it ends,
 * so how full the cap is says little.
 * - not paced yet (the on-sale just opened, or Redis lost the field) → from the fans shopping
 *   now, at least {@link PACING}.startCap — a slow start, as TCP's — then, with holds to judge
 *   by, the rule below;
 * - too few samples (fewer than {@link PACING}.minSamples holds) → +25 % (a shop that sends
 *   almost no holds is not loaded by them);
 * - p99 over the target → a quarter under the fans shopping now (or under the cap, if lower),
 *   but only once the last cut has taken effect (`active` at or under the cap: fans admitted
 *   before it are still shopping, and the latency they cause says nothing about the new cap);
 * - p99 under half the target → +25 %; under the target → +5 % (at least one fan).
 * Always within [floorCap, organizerCap] (floorCap only when the organizer's cap is above it).
 */
export function nextPacedCap(input: PacingInput): number {
  const ceiling = Math.max(1, input.organizerCap);
  const floor = Math.min(PACING.floorCap, ceiling);
  const clamp = (n: number) => Math.min(ceiling, Math.max(floor, Math.round(n)));
  const grow = (cap: number, factor: number) => clamp(Math.max(cap + 1, cap * factor));
  const quiet = input.p99 === null || input.samples < PACING.minSamples;
  if (input.pacedCap === null) {
    const start = clamp(Math.max(PACING.startCap, input.active));
    return quiet ? start : nextPacedCap({ ...input, pacedCap: start });
  }
  const cap = clamp(input.pacedCap);
  if (quiet) return grow(cap, PACING.fastIncrease);
  if (input.p99! > input.targetMs) return input.active <= cap ? clamp(Math.min(cap, input.active) * PACING.decrease) : cap;
  if (input.p99! <= input.targetMs / 2) return grow(cap, PACING.fastIncrease);
  return grow(cap, 1 + PACING.slowIncrease);
}

/** One pacing step's record, for the worker's log and the tests (`active` 0: the step did not need to look). */
export interface PacingStep {
  eventId: string;
  from: number | null;
  to: number;
  active: number;
  p99: number | null;
  samples: number;
}

/**
 * Paces one event: reads its waiting room's state and the last two windows' hold latencies,
 * writes the next paced cap into its `cfg` hash. An event whose waiting room is not in Redis
 * is left alone (the next status call restores it, unpaced, and the next step paces it).
 * @param targetMs the hold latency p99 to keep under (ms).
 */
export async function paceEvent(db: Db, eventId: string, targetMs: number, now = Date.now()): Promise<PacingStep> {
  const cfg = queueKeys(eventId)[0]!;
  const [latencies, stored] = await Promise.all([recentHoldLatencies(eventId, now, 2), redis().hget<number | string>(cfg, "pacedCap")]);
  const sorted = latencies.sort((a, b) => a - b);
  const p99 = quantile(sorted, 0.99);
  const paced = stored === null || stored === undefined ? null : Number(stored);
  const quiet = sorted.length < PACING.minSamples;
  // A paced event without holds to judge only grows: no need to read the waiting room.
  const status = quiet && paced !== null ? null : await publicQueueStatus(db, eventId, now);
  const organizerCap = status?.activeCap ?? Number(await redis().hget<number | string>(cfg, "cap"));
  const active = status?.active ?? 0;
  const to = nextPacedCap({ pacedCap: paced, organizerCap, active, p99, samples: sorted.length, targetMs });
  // Only while the waiting room exists (HSET on a lost hash would make a config without onSaleAt).
  if (to !== paced && (await redis().exists(cfg))) await redis().hset(cfg, { pacedCap: to });
  return { eventId, from: paced, to, active, p99, samples: sorted.length };
}

/** Stops pacing an event: the organizer's cap applies alone again. */
export async function unpaceEvent(eventId: string): Promise<void> {
  await redis().hdel(queueKeys(eventId)[0]!, "pacedCap");
}

/**
 * The events to pace at `now`: published, show not started, and on sale now or within the next
 * {@link PACING_INTERVAL_MS} — so the slow start's cap is in place at the on-sale itself, not at
 * the worker's first step after it (which came 0–5 s late and let up to five seconds of the
 * admission rate in unpaced: 322 fans in one 1,000,000-fan run).
 */
export async function eventsToPace(db: Db, now = Date.now()): Promise<{ id: string }[]> {
  return db
    .select({ id: events.id })
    .from(events)
    .where(and(eq(events.status, "published"), lte(events.onSaleAt, new Date(now + PACING_INTERVAL_MS)), gt(events.startsAt, new Date(now))));
}

/**
 * Paces every event on sale now or about to be ({@link eventsToPace}).
 * @param targetMs the hold latency p99 to keep under (ms); 0 turns pacing off (every
 *   event's paced cap is removed).
 * @returns the steps taken.
 */
export async function paceOnSales(db: Db, targetMs: number, now = Date.now()): Promise<PacingStep[]> {
  const onSale = await eventsToPace(db, now);
  if (targetMs <= 0) {
    await Promise.all(onSale.map((e) => unpaceEvent(e.id)));
    return [];
  }
  return Promise.all(onSale.map((e) => paceEvent(db, e.id, targetMs, now)));
}
