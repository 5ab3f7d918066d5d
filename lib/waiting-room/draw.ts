/**
 * The pre-queue draw as a fan's page (or the simulator) uses it, without asking the origin:
 * every pre-queue fan gets a draw at join, fixed per fan and on-sale (lib/waiting-room/room.ts `drawKey`);
 * at the on-sale the draws' order is the queue's order. Also how often a waiting page
 * polls. Pure functions, safe in the browser.
 */
/** Pre-queue draws are integers in [0, DRAW_RANGE): 48 uniform bits. */
export const DRAW_RANGE = 2 ** 48;

/**
 * A pre-queue fan's place estimated from its draw alone (1-based): the draws are uniform,
 * so the fraction of the range below it is the fraction of the pre-queue ahead of it.
 * Off by about √(n·q·(1−q)) places (e.g. ±90 of 30,000); the exact place is `position` from /me.
 */
export function estimatedPreQueuePosition(draw: number, preQueueSize: number): number {
  return Math.min(preQueueSize, Math.max(1, Math.floor((draw / DRAW_RANGE) * preQueueSize) + 1));
}

/**
 * Whether a pre-queue fan (after the on-sale) should now ask for its exact place (/queue/me):
 * when the public status says its draw has been served, or when the serving counter is
 * within 50 + 3σ places of its estimated place (σ = √(n·q·(1−q)), the estimate's spread).
 * So a small pre-queue learns exact places at once, and a large one asks a few at a time as
 * the turn approaches instead of all fans in the on-sale's first second.
 * @param draw the fan's draw (FanQueueStatus.draw); `null` → true (ask).
 * @param pub the public status (PublicQueueStatus, ./queue.ts) or the part of it used here.
 */
export function preQueueTurnNear(draw: number | null, pub: { servingCounter: number; servingDraw: number; preQueueSize: number }): boolean {
  if (draw === null || pub.servingDraw >= draw) return true;
  const n = pub.preQueueSize;
  const q = draw / DRAW_RANGE;
  const margin = 50 + 3 * Math.sqrt(n * q * (1 - q));
  return pub.servingCounter + margin >= estimatedPreQueuePosition(draw, n);
}

/** Longest pause between a waiting fan's status polls (ms). */
export const MAX_POLL_MS = 30_000;

/**
 * How long a waiting fan's page waits before its next look at the public status (ms): the
 * base interval while the turn is near, stretching to a twentieth of the estimated wait
 * (at most {@link MAX_POLL_MS}, 30 s) for fans far back — a fan 10,000 places back at 4,800 fans
 * a minute (a 2-minute wait) looks every 6 s instead of every 2.5 s, so the CDN's and the
 * browsers' work follows what can change, and the page is still on time: the serving
 * counter reaches the fan no sooner than the estimate, and the last polls are at the base rate.
 * @param ahead fans ahead (estimated for a pre-queue fan); @param ratePerMinute admission rate.
 */
export function pollDelayMs(ahead: number, ratePerMinute: number, baseMs = 2_500): number {
  if (!(ratePerMinute > 0) || ahead <= 0) return baseMs;
  const waitMs = (ahead / ratePerMinute) * 60_000;
  return Math.round(Math.min(MAX_POLL_MS, Math.max(baseMs, waitMs / 20)));
}
