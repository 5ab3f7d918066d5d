/**
 * Reconciliation: compare orders, the PSP's own ledger, tickets and Redis inventory;
 * repair what is safe to repair, record every finding as a discrepancy (kind, order,
 * action, time) for the organizer dashboard. Runs on a cron (Inngest) and from the local
 * worker (every minute), and once from `npm run reconcile` (docs/adr/0010).
 *
 * A pass: the sweep (lib/reconciliation/sweep.ts), then the ledger pass per provider
 * (lib/reconciliation/ledger.ts: PSP captures and refunds matched to our payments both
 * ways), then Redis drift, then tickets without money, then the invariant checker —
 * optionally also before the repairs, so a report can show what was wrong and is not any more.
 *
 * The periodic job runs it as a `routine` pass: the repairs only. Measured in a 20,000-fan
 * on-sale simulation (5,000 seats, reconciling every 10 s): the full pass cost the worker
 * 54 of its 70 CPU-seconds and Postgres ~⅓ of a core, all of it in work nobody read there —
 * the invariant checker's scans of every order, payment and ticket, and an active PSP query
 * for every open payment each time (the sweep already asks about those silent for a minute).
 */
import { sql } from "drizzle-orm";
import { databaseNow } from "@/lib/clock";
import type { Db } from "@/lib/db";
import { rebuildInventory } from "@/lib/inventory/rebuild";
import { recordDiscrepancy } from "@/lib/audit/discrepancies";
import { checkInvariants, persistentRedisMismatches, type InvariantReport } from "@/lib/reconciliation/invariants";
import { advanceLedgerCursor, emptyLedgerReport, ledgerProviders, ledgerWindow, reconcileLedger, type LedgerReport } from "@/lib/reconciliation/ledger";
import { sweep, type SweepReport } from "@/lib/reconciliation/sweep";
import { keptCaptureSql } from "@/lib/payments/kept";
import { finishRequestedRefunds } from "@/lib/payments/refund-tickets";

/** One reconciliation pass's findings. */
export interface ReconcileReport {
  sweep: SweepReport;
  /** One per configured PSP (a ledger that could not be listed has its error in `errors`). */
  ledger: LedgerReport[];
  redisRebuilt: { eventId: string; mismatches: number }[];
  ticketsWithoutPayment: string[];
  /** The invariant check before any repair (only with `checkBefore`). */
  before?: InvariantReport;
  /** The invariant check after the repairs; null in a `routine` pass. */
  invariants: InvariantReport | null;
  /** Wall time of each part of the pass (ms): sweep, ledger, redis, tickets, invariants. */
  ms: Record<"sweep" | "ledger" | "redis" | "tickets" | "invariants", number>;
}

/** Options of {@link reconcile}. */
export interface ReconcileOptions {
  eventId?: string;
  now?: Date;
  redisRecheckMs?: number;
  checkBefore?: boolean;
  graceMs?: number;
  routine?: boolean;
}

const rows = async <T>(db: Db, q: ReturnType<typeof sql>) => (await db.execute(q)) as unknown as T[];

/**
 * The ledger pass for every configured PSP (lib/reconciliation/ledger.ts). Globally, each
 * provider's window starts at its cursor, which moves on only after a pass without errors;
 * for one event, the window starts at the event's creation and the cursor stays.
 * Never throws: a ledger that cannot be listed is reported in its `errors`.
 */
export async function reconcileLedgers(db: Db, opts: { eventId?: string; now?: Date } = {}): Promise<LedgerReport[]> {
  const reports: LedgerReport[] = [];
  for (const provider of ledgerProviders()) {
    const window = await ledgerWindow(db, provider.name, opts);
    try {
      const { report } = await reconcileLedger(db, provider, window, opts);
      reports.push(report);
      if (!opts.eventId && report.errors.length === 0) await advanceLedgerCursor(db, provider.name, window.to);
    } catch (error) {
      const message = error instanceof Error ? error.message.split("\n")[0]! : String(error);
      reports.push(emptyLedgerReport(provider.name, window, [`listing the ledger failed: ${message}`]));
    }
  }
  return reports;
}

/**
 * Runs one reconciliation pass.
 * @param opts.eventId only this event (its ledger window starts at its creation; the global cursor is left alone).
 * @param opts.redisRecheckMs gap between the two looks at Redis drift (default 3,000 ms).
 * @param opts.checkBefore also run the invariant checker before repairing (`npm run reconcile`).
 * @param opts.graceMs the checker's in-flight allowance (default 60 s).
 * @param opts.routine the periodic job's pass (the local worker, the Inngest cron): the repairs
 *   only — the sweep asks the PSP about open payments only once they have been silent for a
 *   minute (as it always does), and the invariant checker does not run (`invariants` is null).
 *   The on-demand pass (`npm run reconcile`, the organizer's button) asks about every open
 *   payment at once and checks the invariants.
 */
export async function reconcile(db: Db, opts: ReconcileOptions & { routine: true }): Promise<ReconcileReport & { invariants: null }>;
export async function reconcile(db: Db, opts?: ReconcileOptions & { routine?: false }): Promise<ReconcileReport & { invariants: InvariantReport }>;
export async function reconcile(db: Db, opts: ReconcileOptions = {}): Promise<ReconcileReport> {
  // Postgres's clock, read once for the pass (lib/clock.ts); the sweep reads it again itself.
  const now = await databaseNow(db, opts.now);
  const checkOpts = { eventId: opts.eventId, now, graceMs: opts.graceMs };
  const ms: ReconcileReport["ms"] = { sweep: 0, ledger: 0, redis: 0, tickets: 0, invariants: 0 };
  const timed = async <T>(part: keyof typeof ms, fn: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    try {
      return await fn();
    } finally {
      ms[part] += Math.round(performance.now() - t0);
    }
  };
  const before = opts.checkBefore ? await timed("invariants", () => checkInvariants(db, checkOpts)) : undefined;
  const sweepReport = await timed("sweep", () => sweep(db, { now: opts.now, eventId: opts.eventId, paymentQueryAfterMs: opts.routine ? undefined : 0 }));
  // Partial refunds left half-done (PSP asked, tickets not voided yet): finished under their own keys (docs/adr/0020).
  await timed("sweep", async () => sweepReport.errors.push(...(await finishRequestedRefunds(db, { eventId: opts.eventId })).errors));
  const ledger = await timed("ledger", () => reconcileLedgers(db, { eventId: opts.eventId, now }));
  // Redis drift: rebuild an event whose Redis inventory contradicts Postgres — only for
  // contradictions that outlast holds in flight (a rebuild mid-sale for a transient one
  // would drop those holds from Redis).
  const redisRebuilt: ReconcileReport["redisRebuilt"] = [];
  await timed("redis", async () => {
    const events = opts.eventId
      ? [{ id: opts.eventId }]
      : await rows<{ id: string }>(db, sql`select id from events where status = 'published'`);
    for (const { id } of events) {
      const entries = await persistentRedisMismatches(db, id, opts.redisRecheckMs);
      const mismatches = entries.length;
      if (mismatches === 0) continue;
      await rebuildInventory(db, id);
      redisRebuilt.push({ eventId: id, mismatches });
      await recordDiscrepancy(db, {
        key: `redis_drift_${id}_${now.getTime()}`,
        kind: "redis_drift",
        eventId: id,
        // The first entries name the seats and holds, so an operator can trace the path that drifted.
        detail: { mismatches, entries: entries.slice(0, 20) },
        action: "Redis inventory rebuilt from Postgres",
        status: "repaired",
      });
    }
  });

  // Tickets without a kept payment (I4): never repaired automatically — a person decides.
  const orphaned = await timed("tickets", async () => {
    const evt = opts.eventId ? sql`and o.event_id = ${opts.eventId}` : sql``;
    const found = await rows<{ order_id: string; event_id: string }>(
      db,
      sql`select distinct t.order_id, o.event_id from tickets t join orders o on o.id = t.order_id
          where t.status = 'valid' and not exists (select 1 from payments p where p.order_id = o.id and ${keptCaptureSql("p")}) ${evt}`,
    );
    for (const o of found) {
      await recordDiscrepancy(db, {
        key: `tickets_without_payment_${o.order_id}`,
        kind: "tickets_without_payment",
        eventId: o.event_id,
        orderId: o.order_id,
        detail: {},
        action: "none: needs an organizer (void the tickets or record the payment)",
        status: "needs_attention",
      });
    }
    return found;
  });
  const invariants = opts.routine ? null : await timed("invariants", () => checkInvariants(db, checkOpts));
  return { sweep: sweepReport, ledger, redisRebuilt, ticketsWithoutPayment: orphaned.map((o) => o.order_id), before, invariants, ms };
}
