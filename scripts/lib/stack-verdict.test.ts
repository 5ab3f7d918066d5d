/** The stack's cache verdict fails when the cache did not absorb the reads, or the counter counted nothing. */
import { describe, expect, it } from "vitest";
import { cacheVerdict, readCacheVerdict } from "./stack-verdict";

const report = (reads: number, perSecond: number, sent: number) => ({ originStatus: { reads, perSecondDuringSale: perSecond }, endpoints: { "queue status (through the cache)": { requests: sent } } });

describe("the stack's cache verdict", () => {
  it("passes run 3's figures (80,940 through nginx, 143 at the origin, 0.5/s)", () => {
    expect(cacheVerdict(report(143, 0.5, 80_940)).ok).toBe(true);
  });
  it("fails when every read reached the origin, when the origin saw too many a second, or when nothing was counted", () => {
    expect(cacheVerdict(report(80_940, 270, 80_940)).ok).toBe(false); // no caching
    expect(cacheVerdict(report(3_000, 10, 80_940)).ok).toBe(false); // 10/s > 5/s
    expect(cacheVerdict(report(0, 0, 80_940)).ok).toBe(false); // the counter is broken
    expect(cacheVerdict({}).ok).toBe(false);
  });
  it("fails, without throwing, when the simulation left no report", () => {
    expect(readCacheVerdict("test-results/no-such-report.json").ok).toBe(false);
  });
});
