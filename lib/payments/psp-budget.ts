/**
 * The payment provider's request budget: StarArena asks its PSP to open checkouts no faster
 * than the PSP's rate limit allows, shared by every app instance (a fixed one-second window in
 * Redis, @upstash/ratelimit). Past the budget a fan's checkout is refused for a second — 429
 * `psp_busy` with Retry-After: 1, the hold kept — instead of the PSP refusing it with its own
 * 429 after the round trip, or every instance hammering it at once.
 *
 * Why a budget: Stripe's default live-mode limit is 100 operations per second per account and
 * 25 in test mode (docs.stripe.com/rate-limits), while a 20,000-seat on-sale admitting 4,800
 * fans a minute wants ~60 checkouts a second at its peak, plus refunds, cancellations and the
 * reconciliation's ledger reads. `PSP_CHECKOUTS_PER_SECOND` (lib/env.ts) sets it: by default
 * 50 with Stripe (half its live limit, the rest left for the other calls), unlimited with the
 * built-in sandbox; raise it once the provider has raised the account's limit. The admission
 * rate (fans a minute × the share who pay ÷ 60) should stay under it: docs/scaling.md.
 */
import { Ratelimit } from "@upstash/ratelimit";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { globalKey, hashTagged, redis } from "@/lib/redis";

/** Stripe's default live-mode limit is 100 operations/s; half of it goes to opening checkouts. */
export const STRIPE_DEFAULT_CHECKOUTS_PER_SECOND = 50;

/** The checkout budget refused this one: 429 with Retry-After: 1; the fan's hold is kept. */
export class PspBusyError extends AppError {
  constructor() {
    super("rate_limited", "psp_busy", "Many fans are paying right now. Your seats are held: try again in a second.", { retryAfter: 1 });
  }
}

/** Checkouts per second the budget allows for `provider`, or 0 for no limit. */
export function checkoutsPerSecond(provider: string): number {
  const configured = env().PSP_CHECKOUTS_PER_SECOND;
  if (configured !== undefined) return configured;
  return provider === "stripe" ? STRIPE_DEFAULT_CHECKOUTS_PER_SECOND : 0;
}

const limiters = new Map<string, Ratelimit>();

/**
 * Takes one checkout from `provider`'s budget for this second.
 * @throws {PspBusyError} when this second's budget is spent; {RedisUnavailableError} when Redis is down
 */
export async function takeCheckoutBudget(provider: string): Promise<void> {
  const perSecond = checkoutsPerSecond(provider);
  if (perSecond <= 0) return;
  const key = `${provider}:${perSecond}`;
  let limiter = limiters.get(key);
  if (!limiter) {
    limiter = new Ratelimit({ redis: redis(), limiter: Ratelimit.fixedWindow(perSecond, "1 s"), prefix: globalKey("psp", "checkouts"), analytics: false });
    limiters.set(key, limiter);
  }
  const r = await limiter.limit(hashTagged(provider));
  if (!r.success) throw new PspBusyError();
}
