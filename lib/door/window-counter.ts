/**
 * A per-key request counter over fixed windows, in this process's memory: at most `max` hits
 * per key per window of `windowMs`. Memory is bounded by the keys seen in one window (the
 * map is dropped whole when a new window starts). Runtime-neutral.
 * Used where a shared (Redis) count would cost more than the answer it protects: the door's
 * public status read, which is memoized and CDN-cacheable (lib/door/handler.ts).
 */
export class WindowCounter {
  private counts = new Map<string, number>();
  private windowStart: number;

  /** @param now clock in ms. */
  constructor(
    private readonly max: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.windowStart = now();
  }

  /**
   * Counts one hit for `key`.
   * @returns 0 when allowed, else the ms until the window ends (the caller's Retry-After).
   */
  hit(key: string): number {
    const t = this.now();
    if (t - this.windowStart >= this.windowMs) {
      this.windowStart = t - ((t - this.windowStart) % this.windowMs);
      this.counts = new Map();
    }
    const n = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, n);
    return n > this.max ? this.windowStart + this.windowMs - t : 0;
  }
}
