/**
 * Hold-path metrics for the live dashboard (docs/design.md failure table: "admission too fast
 * → hold-path latency/error rate visible"). Per event and per minute, in Redis: counts by
 * outcome, and a sample of latencies (ms, the newest 2,000 per minute) for percentiles.
 * Keys expire after an hour. Recording never fails the hold it measures.
 */
import { eventKey, redis } from "@/lib/redis";
import { noteTiming, requestStartedAt } from "@/lib/request-scope";

/** How a hold attempt ended: held, refused for a reason the fan can act on (seat taken, limit…), or failed unexpectedly. */
export type HoldOutcome = "held" | "refused" | "error";

const minute = (ms: number) => Math.floor(ms / 60_000);
const SAMPLE = 2_000;
/** The admission pacer's window (ms): latencies are also kept per window of this length, newest {@link RECENT_SAMPLE}. */
export const RECENT_WINDOW_MS = 5_000;
const RECENT_SAMPLE = 1_000;
const recentWindow = (ms: number) => Math.floor(ms / RECENT_WINDOW_MS);

/** Records one hold attempt: `ms` is its duration in milliseconds. */
export async function recordHoldAttempt(eventId: string, ms: number, outcome: HoldOutcome, now = Date.now()): Promise<void> {
  const m = minute(now);
  const counts = eventKey(eventId, "metrics", "hold", m);
  const lat = eventKey(eventId, "metrics", "holdms", m);
  const recent = eventKey(eventId, "metrics", "holdms5", recentWindow(now));
  try {
    const p = redis().pipeline();
    p.hincrby(counts, outcome, 1);
    p.expire(counts, 3_600);
    p.lpush(lat, Math.round(ms));
    p.ltrim(lat, 0, SAMPLE - 1);
    p.expire(lat, 3_600);
    p.lpush(recent, Math.round(ms));
    p.ltrim(recent, 0, RECENT_SAMPLE - 1);
    p.expire(recent, 120);
    await p.exec();
  } catch {
    // metrics are best effort
  }
}

/**
 * Times `fn` and records its outcome; `classify` maps a thrown error to "refused" or "error".
 * The time runs from the request's arrival at the server (lib/request-scope.ts) when there is
 * one, so it includes the wait for the event loop and the session check, as the fan's answer
 * does; else from the call.
 * @param andThen the caller's own follow-up to a successful `fn` (e.g. keeping the fan's slot):
 *   it runs beside the recording, so the two share one round trip to Redis instead of two in a
 *   row (the hold-alone request's p99 was 119 ms against its hold's 99 in a 1,000,000-fan run,
 *   BENCHMARKS.md 2026-12-07). Its error is the call's error; the hold's time is already noted.
 * @returns what `fn` returned.
 */
export async function measureHold<T>(eventId: string, fn: () => Promise<T>, classify: (error: unknown) => HoldOutcome, andThen?: (result: T) => Promise<unknown>): Promise<T> {
  const started = requestStartedAt() ?? performance.now();
  let result: T;
  try {
    result = await fn();
  } catch (error) {
    const ms = performance.now() - started;
    noteTiming("hold", ms);
    await recordHoldAttempt(eventId, ms, classify(error));
    throw error;
  }
  const ms = performance.now() - started;
  noteTiming("hold", ms); // the same figure in the answer's Server-Timing, so the report and the dashboard compare
  await Promise.all([recordHoldAttempt(eventId, ms, "held"), andThen?.(result)]);
  return result;
}

/** Hold attempts over the last `minutes` minutes: counts by outcome and latency percentiles (ms; null without samples). */
export interface HoldStats {
  attempts: number;
  held: number;
  refused: number;
  errors: number;
  /** errors / attempts (0 when no attempts). */
  errorRate: number;
  p50: number | null;
  p99: number | null;
}

/** The q-quantile (0–1) of sorted values, nearest-rank. */
export function quantile(sorted: number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** Reads the last `minutes` minutes of hold metrics for an event. */
export async function holdStats(eventId: string, minutes = 5, now = Date.now()): Promise<HoldStats> {
  const m = minute(now);
  const p = redis().pipeline();
  for (let i = 0; i < minutes; i++) {
    p.hgetall(eventKey(eventId, "metrics", "hold", m - i));
    p.lrange(eventKey(eventId, "metrics", "holdms", m - i), 0, -1);
  }
  const replies = (await p.exec()) as unknown[];
  let held = 0;
  let refused = 0;
  let errors = 0;
  const samples: number[] = [];
  for (let i = 0; i < replies.length; i += 2) {
    const c = (replies[i] ?? {}) as Record<string, number | string>;
    held += Number(c.held ?? 0);
    refused += Number(c.refused ?? 0);
    errors += Number(c.error ?? 0);
    for (const v of (replies[i + 1] ?? []) as (string | number)[]) samples.push(Number(v));
  }
  samples.sort((a, b) => a - b);
  const attempts = held + refused + errors;
  return { attempts, held, refused, errors, errorRate: attempts ? errors / attempts : 0, p50: quantile(samples, 0.5), p99: quantile(samples, 0.99) };
}

/**
 * The hold latencies (ms) recorded in the `windows` complete {@link RECENT_WINDOW_MS} windows
 * before the one `now` falls in, at most 1,000 per window: what the admission pacer reads.
 */
export async function recentHoldLatencies(eventId: string, now = Date.now(), windows = 1): Promise<number[]> {
  return (await recentHoldWindows(eventId, now, windows)).flat();
}

/**
 * The same latencies window by window (ms, newest window first): `windows` arrays, one per
 * complete {@link RECENT_WINDOW_MS} window before the one `now` falls in (empty when it had
 * no holds or has expired: they are kept 2 minutes).
 */
export async function recentHoldWindows(eventId: string, now = Date.now(), windows = 1): Promise<number[][]> {
  const p = redis().pipeline();
  for (let k = 1; k <= windows; k++) p.lrange(eventKey(eventId, "metrics", "holdms5", recentWindow(now) - k), 0, -1);
  const replies = (await p.exec()) as ((number | string)[] | null)[];
  return replies.map((r) => (r ?? []).map(Number));
}
