/**
 * When each simulated fan arrives, shaped like the seed's case (1,000,000 reminded,
 * ~300,000 clicks in the first 10 s after the on-sale with ~2 retries each): a share before
 * the on-sale, spread evenly over the pre-queue window; `firstShare` of all fans in the first
 * 10 s after it (these are the impatient ones who click again); the rest thinning out over
 * the burst window. Fans are taken in random order (Fisher–Yates), so a fan's index says
 * nothing about when it arrives or where it ends up.
 */

/** The arrival schedule of one run. */
export interface ArrivalSchedule {
  /** Epoch ms at which fan `i` arrives. */
  at: Float64Array;
  /** Fan indexes in arrival order. */
  byArrival: Int32Array;
  /** How many times fan `i` sends its join again after the first answer (only the first 10 s's fans: the seed's retries). */
  retries: Uint8Array;
  /** Fans arriving before the on-sale, in its first 10 s (or the whole burst when shorter), and later. */
  nPre: number;
  nFirst: number;
  nLater: number;
  /** The length of the "first seconds" window (ms): 10 s, or the burst when shorter. */
  firstMs: number;
}

/**
 * How many of `n` fans arrive in each window: before the on-sale (`preShare`), in its first
 * 10 s (`firstShare`; everyone after the on-sale when the burst is no longer than 10 s), and
 * later; and the length of the first window (ms). The one rule for the schedule and its report.
 */
export function arrivalShares(n: number, opts: { preShare: number; firstShare: number; burstSeconds: number }): Pick<ArrivalSchedule, "nPre" | "nFirst" | "nLater" | "firstMs"> {
  const nPre = Math.round(n * opts.preShare);
  const firstMs = Math.min(10_000, opts.burstSeconds * 1000);
  const nFirst = opts.burstSeconds * 1000 <= firstMs ? n - nPre : Math.min(n - nPre, Math.round(n * opts.firstShare));
  return { nPre, nFirst, nLater: n - nPre - nFirst, firstMs };
}

/**
 * The schedule for `n` fans.
 * @param opts.preFrom epoch ms when the pre-queue window opens (now); @param opts.onSaleAt epoch ms.
 * @param opts.preShare share of fans (0–1) arriving before the on-sale; @param opts.firstShare in its first 10 s.
 * @param opts.burstSeconds the burst window after the on-sale (s); @param opts.retries joins sent again by each first-10-s fan.
 * @param opts.random uniform [0, 1) (tests).
 */
export function arrivalSchedule(
  n: number,
  opts: { preFrom: number; onSaleAt: number; preShare: number; firstShare: number; burstSeconds: number; retries: number; random?: () => number },
): ArrivalSchedule {
  const random = opts.random ?? Math.random;
  const order = Int32Array.from({ length: n }, (_, i) => i);
  for (let k = n - 1; k > 0; k--) {
    const j = Math.floor(random() * (k + 1));
    const t = order[k]!;
    order[k] = order[j]!;
    order[j] = t;
  }
  const { nPre, nFirst, nLater, firstMs } = arrivalShares(n, opts);
  const burstMs = opts.burstSeconds * 1000;
  const at = new Float64Array(n);
  const retries = new Uint8Array(n);
  for (let k = 0; k < n; k++) {
    const i = order[k]!;
    if (k < nPre) at[i] = opts.preFrom + (k / Math.max(1, nPre)) * (opts.onSaleAt - opts.preFrom - 1_000);
    else if (k < nPre + nFirst) {
      at[i] = opts.onSaleAt + random() * firstMs;
      retries[i] = opts.retries;
    } else at[i] = opts.onSaleAt + firstMs + random() ** 1.5 * (burstMs - firstMs);
  }
  const byArrival = Int32Array.from(order).sort((a, b) => at[a]! - at[b]!);
  return { at, byArrival, retries, nPre, nFirst, nLater, firstMs };
}
