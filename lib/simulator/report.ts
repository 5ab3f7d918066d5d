/**
 * The on-sale simulator's arithmetic, kept pure so it is unit-tested: percentiles,
 * queue-fairness statistics (Spearman's rho for the pre-queue draw, a causal FIFO check
 * for later arrivals), the pass/fail verdict over the invariant checker's counts, and the
 * chart (an HTML page with inline SVG).
 */
import type { InvariantReport } from "@/lib/reconciliation/invariants";

/** Nearest-rank percentile of unsorted values (q in 0–1); null when empty. */
export function percentile(values: number[], q: number): number | null {
  if (values.length === 0) return null;
  const s = Float64Array.from(values).sort();
  return Math.round(s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]! * 10) / 10;
}

/** Ranks (1-based, ties averaged) of `xs`. */
function ranks(xs: number[]): number[] {
  const idx = xs.map((_, i) => i).sort((a, b) => xs[a]! - xs[b]!);
  const r = new Array<number>(xs.length);
  for (let i = 0; i < idx.length; ) {
    let j = i;
    while (j + 1 < idx.length && xs[idx[j + 1]!] === xs[idx[i]!]) j++;
    for (let k = i; k <= j; k++) r[idx[k]!] = (i + j) / 2 + 1;
    i = j + 1;
  }
  return r;
}

/** Spearman's rank correlation of paired samples (Pearson on ranks); 0 for fewer than 3 pairs. */
export function spearman(xs: number[], ys: number[]): number {
  const n = xs.length;
  if (n < 3 || ys.length !== n) return 0;
  const rx = ranks(xs);
  const ry = ranks(ys);
  const mean = (n + 1) / 2;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = rx[i]! - mean;
    const dy = ry[i]! - mean;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  return sxx && syy ? sxy / Math.sqrt(sxx * syy) : 0;
}

/**
 * The bound |rho| must stay under for a uniform random permutation: `z` standard errors
 * of Spearman's rho under independence (1/sqrt(n-1)); z = 5 makes a false alarm ~1e-6.
 */
export function rhoBound(n: number, z = 5): number {
  return n > 1 ? z / Math.sqrt(n - 1) : 1;
}

/** True when `positions` are exactly 1..n, each once. */
export function isPermutation(positions: number[]): boolean {
  const seen = new Uint8Array(positions.length + 1);
  for (const p of positions) {
    if (!Number.isInteger(p) || p < 1 || p > positions.length || seen[p]) return false;
    seen[p] = 1;
  }
  return true;
}

/** One join after the on-sale: when its first attempt left and its answer came back (ms), and the position given. */
export interface TimedJoin {
  sentAt: number;
  doneAt: number;
  position: number;
}

/**
 * FIFO after the on-sale, checked causally: a fan whose join was sent after another
 * fan's join had been answered must get a later position. Requests in flight at the same
 * time may be ordered either way (the server saw them in some order), so only causally
 * ordered pairs count. @returns the number of fans placed ahead of someone who was
 * answered before they even asked (0 = FIFO).
 */
export function fifoViolations(joins: TimedJoin[]): number {
  const bySent = [...joins].sort((a, b) => a.sentAt - b.sentAt);
  const byDone = [...joins].sort((a, b) => a.doneAt - b.doneAt);
  let bad = 0;
  let maxDonePos = 0;
  let j = 0;
  for (const x of bySent) {
    while (j < byDone.length && byDone[j]!.doneAt < x.sentAt) maxDonePos = Math.max(maxDonePos, byDone[j++]!.position);
    if (x.position < maxDonePos) bad++;
  }
  return bad;
}

/** The fairness section of the report. */
export interface FairnessReport {
  preQueueFans: number;
  /** Pre-queue positions are exactly 1..preQueueFans. */
  preQueuePermutation: boolean;
  /** Spearman's rho between join order and position in the pre-queue, and the bound it must stay under. */
  preQueueRho: number;
  preQueueRhoBound: number;
  laterFans: number;
  /** Causal FIFO violations among joins after the on-sale (must be 0). */
  fifoViolations: number;
  /** Spearman's rho between arrival and position after the on-sale (≈ 1). */
  laterRho: number;
  /** Fans holding more than one position (must be 0). */
  duplicatePositions: number;
}

/** Every count that must be zero for the run to pass, from the invariant checker and the fairness checks. */
export function violations(inv: InvariantReport, fair: FairnessReport): Record<string, number> {
  return {
    ...inv,
    preQueueNotPermutation: fair.preQueuePermutation ? 0 : 1,
    preQueueOrderLeak: Math.abs(fair.preQueueRho) <= fair.preQueueRhoBound ? 0 : 1,
    fifoViolations: fair.fifoViolations,
    duplicatePositions: fair.duplicatePositions,
  };
}

/** What the sale achieved, for {@link jobViolations}. */
export interface SaleOutcome {
  capacity: number;
  /** Seats sold when the checks ran. */
  sold: number;
  /** Every fan who joined had had its turn when the sale stopped (serving counter ≥ queue length). */
  queueExhausted: boolean;
  /**
   * Seats unsold in the end that, when the sale stopped, were held by a hold still running
   * whose fan the fault mix had made a non-payer (abandoned, forged, gave up after a decline,
   * paid only after the expiry) and whose order then ended unpaid: until that hold ran out no
   * other fan could buy them, and it ran out after the sale. (0 when none.)
   */
  heldAtStopByNonPayers?: number;
  /** Fans who tried to join and never got a queue position. */
  fansNeverQueued: number;
  /** The door's server-side join p99 (ms, from Server-Timing), null when no join carried it. */
  doorJoinP99Ms: number | null;
  /** The bound the door's join p99 must stay within (ms). */
  doorP99BoundMs: number;
}

/**
 * The run's job, as counts that must be zero — so a run that broke nothing but did not do
 * the job fails too:
 * - `notSoldOut`: seats left unsold although fans were still waiting for a turn (a sale whose
 *   every queued fan had a turn may end with seats nobody wanted: that is explained, not failed;
 *   so are seats a non-paying fan still held, its hold running, when the sale stopped —
 *   {@link SaleOutcome.heldAtStopByNonPayers}; a seat free at the stop, held by a fan who meant
 *   to pay, or held past its expiry is still a failure);
 * - `fansNeverQueued`: fans who tried and never got a place in the queue;
 * - `doorP99OverBound`: 1 when the door's join p99 exceeded its bound (or no join reported one).
 */
export function jobViolations(o: SaleOutcome): Record<"notSoldOut" | "fansNeverQueued" | "doorP99OverBound", number> {
  return {
    notSoldOut: o.queueExhausted ? 0 : Math.max(0, o.capacity - o.sold - (o.heldAtStopByNonPayers ?? 0)),
    fansNeverQueued: o.fansNeverQueued,
    doorP99OverBound: o.doorJoinP99Ms === null || o.doorJoinP99Ms > o.doorP99BoundMs ? 1 : 0,
  };
}

/** True when every violation count is zero. */
export function passed(v: Record<string, number>): boolean {
  return Object.values(v).every((n) => n === 0);
}

/** One sample of the sale over time (seconds since the on-sale). */
export interface TimelinePoint {
  t: number;
  queueLength: number;
  serving: number;
  sold: number;
  held: number;
  /** Fans shopping (active admission slots), and the organizer's cap on them. */
  active?: number;
  cap?: number;
  /** The admission rate in force (fans/min): the organizer's, or the pacer's when lower (lib/waiting-room/rate.ts). */
  rate?: number;
  /**
   * The hold path's p50 and p99 (ms) over the app's last complete 5-s window of hold metrics
   * (lib/metrics/holds.ts `recentHoldLatencies`: what the pacer judges and the dashboard shows);
   * absent when that window had no holds.
   */
  holdP50Ms?: number;
  holdP99Ms?: number;
}

type Series = [(p: TimelinePoint) => number, string, string];

/** One SVG panel of lines over time (s since the on-sale), `yMax` at the top; an optional dotted reference line. */
function panel(points: TimelinePoint[], series: Series[], yMax: number, reference?: { value: number; color: string }): string {
  const W = 1000;
  const H = 420;
  const pad = { l: 70, r: 20, t: 40, b: 50 };
  const tMin = Math.min(0, ...points.map((p) => p.t));
  const tMax = Math.max(1, ...points.map((p) => p.t));
  const x = (t: number) => pad.l + ((t - tMin) / (tMax - tMin)) * (W - pad.l - pad.r);
  const y = (v: number) => H - pad.b - (v / yMax) * (H - pad.t - pad.b);
  const lines = series
    .map(([v, color]) => `<polyline fill="none" stroke="${color}" stroke-width="2" points="${points.map((p) => `${x(p.t).toFixed(1)},${y(v(p)).toFixed(1)}`).join(" ")}"/>`)
    .join("\n");
  const ticksY = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const v = Math.round(yMax * f);
    return `<line x1="${pad.l}" x2="${W - pad.r}" y1="${y(v)}" y2="${y(v)}" stroke="#e5e7eb"/><text x="${pad.l - 6}" y="${y(v) + 4}" text-anchor="end" font-size="11">${v.toLocaleString("en")}</text>`;
  });
  const step = Math.max(10, Math.ceil((tMax - tMin) / 10 / 10) * 10);
  const ticksX: string[] = [];
  for (let t = Math.ceil(tMin / step) * step; t <= tMax; t += step) ticksX.push(`<text x="${x(t)}" y="${H - pad.b + 16}" text-anchor="middle" font-size="11">${t}s</text>`);
  // Legend entries side by side, each as wide as its label (~7 px per character at 12 px).
  let lx = pad.l;
  const legend = series
    .map(([, color, label]) => {
      const entry = `<rect x="${lx}" y="12" width="12" height="12" fill="${color}"/><text x="${lx + 16}" y="22" font-size="12">${label}</text>`;
      lx += 16 + label.length * 7 + 24;
      return entry;
    })
    .join("");
  const onSale = tMin < 0 ? `<line x1="${x(0)}" x2="${x(0)}" y1="${pad.t}" y2="${H - pad.b}" stroke="#dc2626" stroke-dasharray="4 3"/><text x="${x(0) + 4}" y="${pad.t + 12}" font-size="11" fill="#dc2626">on-sale</text>` : "";
  const refLine = reference ? `<line x1="${pad.l}" x2="${W - pad.r}" y1="${y(reference.value)}" y2="${y(reference.value)}" stroke="${reference.color}" stroke-dasharray="2 4"/>` : "";
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">
${ticksY.join("\n")}
${ticksX.join("\n")}
${refLine}
${onSale}
${lines}
${legend}
<text x="${(W + pad.l) / 2}" y="${H - 10}" text-anchor="middle" font-size="12">seconds since the on-sale</text>
</svg>`;
}

/**
 * An HTML page with inline SVG charts over time: fans joined (queue positions handed out),
 * fans still waiting (joined − admitted), admitted (serving counter), seats held and sold;
 * and, when the timeline has them, the fans shopping against the organizer's cap, the
 * admission rate in force (the admission pacer's, lib/waiting-room/pacing.ts, when it is below
 * the organizer's), and the hold path's server-side p50/p99 per 5-s window.
 */
export function chartHtml(title: string, points: TimelinePoint[], capacity: number): string {
  const yMax = Math.max(capacity, ...points.map((p) => Math.max(p.queueLength, p.serving, p.sold)), 1);
  const sale = panel(
    points,
    [
      [(p) => p.queueLength, "#2563eb", "joined (positions)"],
      [(p) => Math.max(0, p.queueLength - p.serving), "#64748b", "waiting"],
      [(p) => p.serving, "#7c3aed", "admitted (serving counter)"],
      [(p) => p.held, "#ca8a04", "seats held"],
      [(p) => p.sold, "#16a34a", "seats sold"],
    ],
    yMax,
    { value: capacity, color: "#16a34a" },
  );
  const shopping = points.filter((p) => p.active !== undefined && p.cap !== undefined);
  const shop =
    shopping.length > 0
      ? `<h2 style="font-size:15px">The shop: fans shopping at once and the organizer's cap</h2>\n${panel(
          shopping,
          [
            [(p) => p.active!, "#7c3aed", "fans shopping (active)"],
            [(p) => p.cap!, "#dc2626", "organizer's cap"],
          ],
          Math.max(1, ...shopping.map((p) => Math.max(p.active!, p.cap!))),
        )}`
      : "";
  const rated = points.filter((p) => p.rate !== undefined && p.t >= 0);
  const rates =
    rated.length > 0
      ? `<h2 style="font-size:15px">Admission rate in force (fans a minute: the organizer's, or the pacer's when lower)</h2>\n${panel(
          rated,
          [[(p) => p.rate!, "#0891b2", "admission rate in force"]],
          Math.max(1, ...rated.map((p) => p.rate!)),
        )}`
      : "";
  const timed = points.filter((p) => p.holdP99Ms !== undefined && p.t >= 0);
  const holds =
    timed.length > 0
      ? `<h2 style="font-size:15px">The hold path's latency, server-side (ms, each 5-s window of the app's hold metrics; dotted: the 100-ms target)</h2>\n${panel(
          timed,
          [
            [(p) => p.holdP99Ms!, "#dc2626", "hold p99"],
            [(p) => p.holdP50Ms ?? 0, "#2563eb", "hold p50"],
          ],
          Math.max(200, ...timed.map((p) => p.holdP99Ms!)),
          { value: 100, color: "#dc2626" },
        )}`
      : "";
  const esc = (s: string) => s.replace(/[<>&]/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;" })[c]!);
  return `<!doctype html><html lang="en"><meta charset="utf-8"><title>${esc(title)}</title>
<body style="font-family:system-ui,sans-serif;margin:24px"><h1 style="font-size:18px">${esc(title)}</h1>
${sale}
${shop}
${rates}
${holds}
</body></html>
`;
}
