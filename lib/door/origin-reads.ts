/**
 * How many public queue-status reads reached the origin — this process, behind whatever CDN or
 * caching proxy is in front — per event and per second, counted where they are answered
 * (lib/door/handler.ts) and added to Redis so every door process and app instance sums into
 * one figure (docs/scaling.md: the CDN must absorb the fans' polls; this says whether it did).
 *
 * Counting costs no Redis call per read: counts wait in memory and go out in one pipeline at
 * most once a second per process, on the next read after the second turns (no timer, so the
 * door stays portable to an edge runtime). Best effort: a failed flush drops its counts.
 */
import type { Redis } from "@upstash/redis";
import { eventKey } from "@/lib/redis-core";

/** Redis hash of an event's origin status reads: field = second (Unix, s), value = reads. */
export const originReadsKey = (eventId: string) => eventKey(eventId, "metrics", "status-origin");

/** Counts a process's origin status reads and flushes them to Redis at most once per second. */
export class OriginReadCounter {
  private pending = new Map<string, Map<number, number>>();
  private flushedAt = 0;

  constructor(
    private readonly redis: Redis,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one public status answer for `eventId` now; flushes earlier seconds when a second has passed. */
  note(eventId: string): void {
    const at = this.now();
    const second = Math.floor(at / 1000);
    let bySecond = this.pending.get(eventId);
    if (!bySecond) this.pending.set(eventId, (bySecond = new Map()));
    bySecond.set(second, (bySecond.get(second) ?? 0) + 1);
    if (at - this.flushedAt >= 1_000) void this.flush();
  }

  /** Adds every pending count to Redis (one pipeline); resolves when written, never rejects. */
  async flush(): Promise<void> {
    this.flushedAt = this.now();
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      const p = this.redis.pipeline();
      for (const [eventId, bySecond] of batch) {
        const key = originReadsKey(eventId);
        for (const [second, n] of bySecond) p.hincrby(key, String(second), n);
        p.expire(key, 86_400);
      }
      await p.exec();
    } catch {
      // metrics are best effort
    }
  }
}

/**
 * An event's origin status reads as counted by every process.
 * @returns reads per second (Unix s → count), ascending by second
 */
export async function originStatusReads(redis: Redis, eventId: string): Promise<[second: number, reads: number][]> {
  const raw = (await redis.hgetall<Record<string, number | string>>(originReadsKey(eventId))) ?? {};
  return Object.entries(raw)
    .map(([s, n]) => [Number(s), Number(n)] as [number, number])
    .sort((a, b) => a[0] - b[0]);
}
