/**
 * Admission pacing (docs/design.md "Waiting room", ADR 0015): the waiting room lets fans into
 * the shop only as fast as the shop answers them. The organizer's admission rate says how
 * many fans a minute may start shopping; the pacer lowers it to what the hold path carries
 * with its latency on target, from the hold latencies the app records (lib/metrics/holds.ts),
 * and raises it back while the latency has room — additive increase, multiplicative decrease,
 * the rule TCP's congestion control uses for the same problem (RFC 5681): find the most a
 * shared resource carries without queueing. The seed's failure table names the signal
 * ("admission too fast → hold-path latency/error rate visible"); the pacer acts on it so
 * nobody has to watch the dashboard at 10:00:01.
 *
 * It paces the rate, not the active cap: the shop's load follows the fans who have just come
 * in (the seat map, the hold, the checkout all come in a turn's first seconds), while a slot
 * is kept by fans who have finished (a hold runs until it is paid or expires), so a cap moved
 * to the latency stalled admissions behind idle slots and then let a step of fans in at once
 * (BENCHMARKS.md, "Pacing the rate", 2026-12-06). The organizer's cap still bounds how many
 * shop at once.
 *
 * It is the only writer of the `pacedRate` and `pacedCutAt` fields of an event's `cfg` hash
 * (./lua.ts); the admission Lua admits at min(rate, pacedRate). The local worker runs it every
 * {@link PACING_INTERVAL_MS} for the events on sale (lib/jobs/worker.ts).
 */
import type { Db } from "@/lib/db";
import { quantile, recentHoldWindows } from "@/lib/metrics/holds";
import { redis } from "@/lib/redis";
import { queueKeys } from "@/lib/waiting-room/keys";
import { eventsOnSaleWithin } from "@/lib/waiting-room/on-sale";

/** How often the pacer looks (ms); it judges the last two of the hold metrics' 5-s windows (lib/metrics/holds.ts). */
export const PACING_INTERVAL_MS = 5_000;

/** The pacer's constants: rates in fans per minute, latency and time in ms. */
export const PACING = {
  /**
   * Where a sale's pacing starts, at the on-sale (or after Redis lost the field): 5 fans a
   * second, what this project's 2-core machine's shop carried on target while the door's
   * flood took the cores (BENCHMARKS.md); a shop with room reaches the organizer's 4,800/min
   * in 16 steps (80 s).
   */
  startRate: 300,
  /** Never below this (1 fan every 2 s): a slow shop still sells. */
  floorRate: 30,
  /** Fewer holds than this in the windows say nothing about latency. */
  minSamples: 10,
  /** Multiplicative decrease when the p99 is over the target. */
  decrease: 0.75,
  /** Growth while the p99 is under half the target (the shop is far from its limit): +20 % a step, twice in 20 s. */
  fastIncrease: 1.2,
  /** Growth while the p99 is under the target: 5 % (at least one fan a minute). */
  slowIncrease: 0.05,
  /**
   * No second cut within this long of the last (ms): the windows judged then still hold the
   * holds of fans let in before it — TCP cuts once per round trip for the same reason.
   */
  cutHoldOffMs: 2 * PACING_INTERVAL_MS,
  /**
   * How many of the latest windows give the hold path's unloaded median (the lowest median of a
   * window with enough holds): 12 (a minute).
   */
  baseWindows: 12,
  /**
   * Queueing shows in the median: a p99 over the target is cut for only when the windows' p50 is
   * over this many times the unloaded one (taken as at most a quarter of the target, so a shop
   * slow all along still counts as queueing). Else the slow holds are a few outliers (a GC
   * pause, a reconciliation pass) that admitting fewer fans would not make faster — TCP Vegas's
   * idea of acting on the delay above the base round trip (Brakmo & Peterson, 1995).
   */
  queueingRatio: 1.5,
} as const;

/** What one pacing step looks at. Rates in fans/min; `p99` in ms (null without samples). */
export interface PacingInput {
  /** The pacer's current rate, or null when the event is not paced yet. */
  pacedRate: number | null;
  /** The organizer's rate: the pacer never goes above it. */
  organizerRate: number;
  /** Hold latency p99 and p50 over the last two windows (10 s; ms), and how many holds they were taken from. */
  p99: number | null;
  p50?: number | null;
  samples: number;
  /** The hold path's unloaded median (ms): the lowest window median of the last minute; null when unknown. */
  baseP50?: number | null;
  /** The hold latency p99 to keep under (ms). */
  targetMs: number;
  /** Milliseconds since the pacer's last cut (Infinity when none). */
  sinceCutMs: number;
}

/**
 * The next paced rate (fans/min), by additive increase / multiplicative decrease on the hold
 * latency:
 * - not paced yet (the on-sale is about to open, or Redis lost the field) → from
 *   {@link PACING}.startRate — a slow start, as TCP's — then, with holds to judge by, the
 *   rule below;
 * - too few samples (fewer than {@link PACING}.minSamples holds) → +25 % (a shop that sends
 *   almost no holds is not loaded by them);
 * - p99 over the target → a quarter less, unless the last cut was within
 *   {@link PACING}.cutHoldOffMs (then unchanged: its effect is not in the windows yet) or the
 *   median is within {@link PACING}.queueingRatio of the unloaded median (at most a quarter of
 *   the target; then unchanged: no queue to drain, only outliers);
 * - p99 under half the target → +20 %; under the target → +5 % (at least one fan a minute).
 * Always within [floorRate, organizerRate] (floorRate only when the organizer's is above it).
 */
export function nextPacedRate(input: PacingInput): number {
  const ceiling = Math.max(1, input.organizerRate);
  const floor = Math.min(PACING.floorRate, ceiling);
  const clamp = (n: number) => Math.min(ceiling, Math.max(floor, Math.round(n)));
  const grow = (rate: number, factor: number) => clamp(Math.max(rate + 1, rate * factor));
  const quiet = input.p99 === null || input.samples < PACING.minSamples;
  if (input.pacedRate === null) {
    const start = clamp(PACING.startRate);
    return quiet ? start : nextPacedRate({ ...input, pacedRate: start });
  }
  const rate = clamp(input.pacedRate);
  if (quiet) return grow(rate, PACING.fastIncrease);
  if (input.p99! > input.targetMs) {
    const base = input.baseP50 == null ? null : Math.min(input.baseP50, input.targetMs / 4);
    const queueing = input.p50 == null || base === null || input.p50 > base * PACING.queueingRatio;
    return !queueing || input.sinceCutMs < PACING.cutHoldOffMs ? rate : clamp(rate * PACING.decrease);
  }
  if (input.p99! <= input.targetMs / 2) return grow(rate, PACING.fastIncrease);
  return grow(rate, 1 + PACING.slowIncrease);
}

/** One pacing step's record, for the worker's log and the tests. Rates in fans/min. */
export interface PacingStep {
  eventId: string;
  from: number | null;
  to: number;
  p99: number | null;
  p50?: number | null;
  baseP50?: number | null;
  samples: number;
}

/**
 * Paces one event: reads its waiting room's rates and the last two windows' hold latencies,
 * writes the next paced rate into its `cfg` hash (and when it cut). An event whose waiting
 * room is not in Redis is left alone (the next status call restores it, unpaced, and the next
 * step paces it).
 * @param targetMs the hold latency p99 to keep under (ms).
 */
export async function paceEvent(eventId: string, targetMs: number, now = Date.now()): Promise<PacingStep> {
  const cfg = queueKeys(eventId)[0]!;
  const [windows, fields] = await Promise.all([recentHoldWindows(eventId, now, PACING.baseWindows), redis().hmget<Record<string, string | number | null>>(cfg, "rate", "pacedRate", "pacedCutAt")]);
  const sorted = [...windows[0]!, ...windows[1]!].sort((a, b) => a - b);
  const p99 = quantile(sorted, 0.99);
  const p50 = quantile(sorted, 0.5);
  const medians = windows.filter((w) => w.length >= PACING.minSamples).map((w) => quantile(w.sort((a, b) => a - b), 0.5)!);
  const baseP50 = medians.length > 0 ? Math.min(...medians) : null;
  const stored = fields?.pacedRate;
  const paced = stored === null || stored === undefined ? null : Number(stored);
  const organizerRate = Number(fields?.rate ?? 0);
  if (!(organizerRate > 0)) return { eventId, from: paced, to: paced ?? 0, p99, samples: sorted.length };
  const cutAt = Number(fields?.pacedCutAt ?? NaN);
  const to = nextPacedRate({ pacedRate: paced, organizerRate, p99, p50, baseP50, samples: sorted.length, targetMs, sinceCutMs: Number.isFinite(cutAt) ? now - cutAt : Infinity });
  // Only while the waiting room exists (HSET on a lost hash would make a config without onSaleAt).
  if (to !== paced && (await redis().exists(cfg))) await redis().hset(cfg, paced !== null && to < paced ? { pacedRate: to, pacedCutAt: now } : { pacedRate: to });
  return { eventId, from: paced, to, p99, p50, baseP50, samples: sorted.length };
}

/** Stops pacing an event: the organizer's rate applies alone again. */
export async function unpaceEvent(eventId: string): Promise<void> {
  await redis().hdel(queueKeys(eventId)[0]!, "pacedRate", "pacedCutAt");
}

/**
 * The events to pace at `now`: published, show not started, and on sale now or within the next
 * {@link PACING_INTERVAL_MS} — so the slow start's rate is in place at the on-sale itself, not at
 * the worker's first step after it (which came 0–5 s late and let up to five seconds of the
 * admission rate in unpaced: 322 fans in one 1,000,000-fan run).
 */
export function eventsToPace(db: Db, now?: number): Promise<{ id: string }[]> {
  return eventsOnSaleWithin(db, PACING_INTERVAL_MS, now);
}

/**
 * Paces every event on sale now or about to be ({@link eventsToPace}).
 * @param targetMs the hold latency p99 to keep under (ms); 0 turns pacing off (every
 *   event's paced cap is removed).
 * @returns the steps taken.
 */
export async function paceOnSales(db: Db, targetMs: number, now?: number): Promise<PacingStep[]> {
  const onSale = await eventsToPace(db, now);
  if (targetMs <= 0) {
    await Promise.all(onSale.map((e) => unpaceEvent(e.id)));
    return [];
  }
  return Promise.all(onSale.map((e) => paceEvent(e.id, targetMs, now ?? Date.now())));
}
