/**
 * The caching proxy's verdict for `npm run stack -- --sim` (scripts/stack.ts), from the on-sale
 * report: it fails unless status reads reached the origin at all (the app's counter,
 * lib/door/origin-reads.ts, works) and at most {@link MAX_ORIGIN_STATUS_PER_SECOND} a second
 * during the sale while the simulator sent at least {@link MIN_ABSORBED_RATIO} times as many
 * through the cache. Source of the bound: `s-maxage=1` behind one nginx with `proxy_cache_lock`
 * gives ~1 origin read a second; background refreshes and per-process memo misses add a few.
 */
import { readFileSync } from "node:fs";

/** Origin status reads a second (during the sale) above which the cache did not do its job. */
export const MAX_ORIGIN_STATUS_PER_SECOND = 5;
/** Status requests sent through the cache per origin read, below which it did not absorb them. */
export const MIN_ABSORBED_RATIO = 10;

/** What the report says about the cache: `ok`, and a line for a person. */
export interface CacheVerdict {
  ok: boolean;
  line: string;
}

/** Judges an on-sale report (scripts/onsale.ts `--json`); a report without the origin count fails. */
export function cacheVerdict(report: { originStatus?: { reads: number; perSecondDuringSale: number }; endpoints?: Record<string, { requests: number }> }): CacheVerdict {
  const origin = report.originStatus;
  const sent = report.endpoints?.["queue status (through the cache)"]?.requests ?? 0;
  if (!origin) return { ok: false, line: "✗ cache: the report has no origin status count" };
  const ratio = origin.reads > 0 ? sent / origin.reads : 0;
  const ok = origin.reads > 0 && origin.perSecondDuringSale <= MAX_ORIGIN_STATUS_PER_SECOND && ratio >= MIN_ABSORBED_RATIO;
  return {
    ok,
    line: `${ok ? "✓" : "✗"} cache: ${sent} status requests through nginx, ${origin.reads} reached the origin (${origin.perSecondDuringSale}/s during the sale; bound ${MAX_ORIGIN_STATUS_PER_SECOND}/s, absorbed ${ratio.toFixed(0)}× ≥ ${MIN_ABSORBED_RATIO}×)`,
  };
}

/**
 * {@link cacheVerdict} of the report file at `file`; a missing or unreadable report is a failed
 * verdict (the simulation did not finish), not an exception.
 */
export function readCacheVerdict(file: string): CacheVerdict {
  let report: unknown;
  try {
    report = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    return { ok: false, line: `✗ cache: no report to read at ${file} (${e instanceof Error ? e.message : String(e)})` };
  }
  return cacheVerdict(report as Parameters<typeof cacheVerdict>[0]);
}
