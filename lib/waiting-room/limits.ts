/**
 * Rate limits (@upstash/ratelimit, in Redis so every instance shares them):
 * join and status per IP, hold per fan. Throttled callers get 429 with Retry-After —
 * never a 5xx. Limits are per the figures below; a CDN in front absorbs most status polls.
 */
import { Ratelimit } from "@upstash/ratelimit";
import { AppError } from "@/lib/errors";
import { globalKey, redis } from "@/lib/redis";

type Limiter = { limit: (id: string) => Promise<{ success: boolean; reset: number }> };
let cached: Record<"join" | "status" | "hold", Limiter> | undefined;

function limiters() {
  cached ??= {
    /** 10 joins per 10 s per IP (a join is idempotent; more is a script). */
    join: new Ratelimit({ redis: redis(), limiter: Ratelimit.slidingWindow(10, "10 s"), prefix: globalKey("rl", "join"), analytics: false }),
    /** 60 public status reads per 10 s per IP (the page polls every ~2–3 s; many fans may share an IP). */
    status: new Ratelimit({ redis: redis(), limiter: Ratelimit.slidingWindow(60, "10 s"), prefix: globalKey("rl", "status"), analytics: false }),
    /** 10 hold attempts per 10 s per fan. */
    hold: new Ratelimit({ redis: redis(), limiter: Ratelimit.slidingWindow(10, "10 s"), prefix: globalKey("rl", "hold"), analytics: false }),
  };
  return cached;
}

/** A throttled request (429 `rate_limited`): how long to wait, in whole seconds (≥ 1), as `retryAfter`. */
export class RateLimitedError extends AppError {
  constructor(retryAfterSeconds: number) {
    super("rate_limited", "rate_limited", `Too many requests. Please wait ${retryAfterSeconds} second${retryAfterSeconds === 1 ? "" : "s"} and try again.`, { retryAfter: retryAfterSeconds });
  }
}

/**
 * Counts one request of `kind` for `id` (an IP or a fan id).
 * @throws {RateLimitedError} when over the limit.
 */
export async function enforceLimit(kind: "join" | "status" | "hold", id: string, now = Date.now()): Promise<void> {
  const r = await limiters()[kind].limit(id);
  if (!r.success) throw new RateLimitedError(Math.max(1, Math.ceil((r.reset - now) / 1000)));
}

