/**
 * The hold's rate limit (@upstash/ratelimit, in Redis so every instance shares it): 10 hold
 * attempts per 10 s per fan. Throttled callers get 429 with Retry-After — never a 5xx.
 * The door's limits (joins per address inside the join's own Redis call, public status
 * reads per address per process) are lib/door/handler.ts `DOOR_LIMITS`.
 */
import { Ratelimit } from "@upstash/ratelimit";
import { RateLimitedError } from "@/lib/errors";
import { globalKey, hashTagged, redis } from "@/lib/redis";

type Limiter = { limit: (id: string) => Promise<{ success: boolean; reset: number }> };
let cached: Record<"hold", Limiter> | undefined;

function limiters() {
  cached ??= {
    /** 10 hold attempts per 10 s per fan. */
    hold: new Ratelimit({ redis: redis(), limiter: Ratelimit.slidingWindow(10, "10 s"), prefix: globalKey("rl", "hold"), analytics: false }),
  };
  return cached;
}

/**
 * Counts one request of `kind` for `id` (a fan id).
 * @throws {RateLimitedError} when over the limit.
 */
export async function enforceLimit(kind: "hold", id: string, now = Date.now()): Promise<void> {
  // The sliding window reads two keys (this window and the last): the tag keeps them in one slot.
  const r = await limiters()[kind].limit(hashTagged(id));
  if (!r.success) throw new RateLimitedError(Math.max(1, Math.ceil((r.reset - now) / 1000)));
}
