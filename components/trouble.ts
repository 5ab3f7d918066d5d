/**
 * How the fan's pages behave when StarArena answers "we're having trouble" (a 503 from a
 * Redis or Postgres outage, a 502/504 from a proxy, or no answer at all): keep the place,
 * say so in plain words, and try again with exponential back-off and jitter so that a
 * million waiting browsers do not all return in the same second when the service is back.
 * (Back-off shape: AWS Architecture Blog, "Exponential Backoff And Jitter".)
 */

/** True for answers that mean "our side is in trouble, try again later" (0 = no answer: network error). */
export function isTrouble(status: number): boolean {
  return status === 0 || status === 502 || status === 503 || status === 504;
}

/**
 * Milliseconds to wait before attempt `attempt` (0-based) after trouble: 2 s, 4 s, 8 s … at
 * most 30 s, never less than the server's `Retry-After` (seconds), with ±25 % jitter.
 */
export function troubleDelayMs(attempt: number, retryAfterSeconds = 0): number {
  const base = Math.max(retryAfterSeconds * 1000, Math.min(30_000, 2_000 * 2 ** Math.max(0, attempt)));
  return Math.round(base * (0.75 + Math.random() * 0.5));
}

/** The `Trouble` namespace's translator (next-intl's `useTranslations("Trouble")`). */
type TroubleTranslator = (key: "place" | "turn" | "message", values?: Record<string, string | number>) => string;

/**
 * What the fan reads while we retry, in the page's language: what is kept (the fan's place in
 * the queue, or their turn to buy) and when we try again (whole seconds, at least 1).
 */
export function troubleMessage(t: TroubleTranslator, delayMs: number, kept: "place" | "turn" = "place"): string {
  return t("message", { kept: t(kept), seconds: Math.max(1, Math.round(delayMs / 1000)) });
}

/** True for an action failure code that means an outage (lib/errors.ts, lib/redis-tcp.ts). */
export function isTroubleCode(code: string): boolean {
  return code === "redis_unavailable" || code === "postgres_unavailable" || code === "internal";
}
