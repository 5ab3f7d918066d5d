/**
 * Reconciliation: compare orders, PSP payments, tickets and Redis inventory; repair what
 * is safe to repair, record every finding as a discrepancy (kind, order, action, time)
 * for the organizer dashboard. Runs on a cron (Inngest) or from the local worker, and
 * once from `npm run reconcile`.
 */
import { sql } from "drizzle-orm";
import type { Db } from "@/lib/db";
import { rebuildInventory } from "@/lib/inventory/rebuild";
import { recordDiscrepancy } from "@/lib/reconciliation/discrepancies";
import { checkInvariants, persistentRedisMismatches, type InvariantReport } from "@/lib/reconciliation/invariants";
import { sweep, type SweepReport } from "@/lib/reconciliation/sweep";

/** One reconciliation pass's findings. */
export interface ReconcileReport {
  sweep: SweepReport;
  redisRebuilt: { eventId: string; mismatches: number }[];
  ticketsWithoutPayment: string[];
  invariants: InvariantReport;
}

const rows = async <T>(db: Db, q: ReturnType<typeof sql>) => (await db.execute(q)) as unknown as T[];

/** Runs one reconciliation pass. @param opts.eventId only this event. @param opts.redisRecheckMs gap between the two looks at Redis drift (default 3,000 ms). */
export async function reconcile(db: Db, opts: { eventId?: string; now?: Date; redisRecheckMs?: number } = {}): Promise<ReconcileReport> {
  const now = opts.now ?? new Date();
  const sweepReport = await sweep(db, { now, eventId: opts.eventId, paymentQueryAfterMs: 0 });

  // Redis drift: rebuild an event whose Redis inventory contradicts Postgres — only for
  // contradictions that outlast holds in flight (a rebuild mid-sale for a transient one
  // would drop those holds from Redis).
  const events = opts.eventId
    ? [{ id: opts.eventId }]
    : await rows<{ id: string }>(db, sql`select id from events where status = 'published'`);
  const redisRebuilt: ReconcileReport["redisRebuilt"] = [];
  for (const { id } of events) {
    const mismatches = await persistentRedisMismatches(db, id, opts.redisRecheckMs);
    if (mismatches === 0) continue;
    await rebuildInventory(db, id);
    redisRebuilt.push({ eventId: id, mismatches });
    await recordDiscrepancy(db, {
      key: `redis_drift_${id}_${now.getTime()}`,
      kind: "redis_drift",
      eventId: id,
      detail: { mismatches },
      action: "Redis inventory rebuilt from Postgres",
      status: "repaired",
    });
  }

  // Tickets without a kept payment (I4): never repaired automatically — a person decides.
  const evt = opts.eventId ? sql`and o.event_id = ${opts.eventId}` : sql``;
  const orphaned = await rows<{ order_id: string; event_id: string }>(
    db,
    sql`select distinct t.order_id, o.event_id from tickets t join orders o on o.id = t.order_id
        where t.status = 'valid' and not exists (select 1 from payments p where p.order_id = o.id and p.status = 'captured') ${evt}`,
  );
  for (const o of orphaned) {
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
  return { sweep: sweepReport, redisRebuilt, ticketsWithoutPayment: orphaned.map((o) => o.order_id), invariants: await checkInvariants(db, { eventId: opts.eventId, now }) };
}
