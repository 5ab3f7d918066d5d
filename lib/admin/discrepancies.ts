/**
 * The organizer's view of reconciliation ("Discrepancies"): what reconciliation
 * found for one show (kind, order, status, the action taken, when), and running a pass
 * on demand. Scoped to the organizer who runs the show.
 */
import { desc, eq } from "drizzle-orm";
import { discrepancies, events } from "@/db/schema";
import { recordAdminAction } from "@/lib/audit/admin-actions";
import { AdminOrderError } from "@/lib/admin/orders";
import type { Db } from "@/lib/db";
import { reconcile } from "@/lib/reconciliation/reconcile";
import { totalViolations } from "@/lib/reconciliation/invariants";

/** One discrepancy as the page shows it. */
export interface DiscrepancyRow {
  id: string;
  kind: string;
  orderId: string | null;
  status: "open" | "repaired" | "needs_attention" | "dismissed";
  action: string | null;
  detail: unknown;
  detectedAt: Date;
  resolvedAt: Date | null;
}

/** Most rows {@link listDiscrepancies} returns. */
const DISCREPANCY_LIMIT = 200;

async function assertOwns(db: Db, organizerId: string, eventId: string) {
  const event = await db.query.events.findFirst({ where: eq(events.id, eventId) });
  if (!event) throw new AdminOrderError("not_found", "There is no such show.");
  if (event.organizerId !== organizerId) throw new AdminOrderError("not_your_show", "This show is run by another organizer.");
}

/**
 * The show's discrepancies, newest first (at most {@link DISCREPANCY_LIMIT}).
 * @throws {AdminOrderError} "not_found", "not_your_show".
 */
export async function listDiscrepancies(db: Db, organizerId: string, eventId: string): Promise<DiscrepancyRow[]> {
  await assertOwns(db, organizerId, eventId);
  return db
    .select({
      id: discrepancies.id,
      kind: discrepancies.kind,
      orderId: discrepancies.orderId,
      status: discrepancies.status,
      action: discrepancies.action,
      detail: discrepancies.detail,
      detectedAt: discrepancies.detectedAt,
      resolvedAt: discrepancies.resolvedAt,
    })
    .from(discrepancies)
    .where(eq(discrepancies.eventId, eventId))
    .orderBy(desc(discrepancies.detectedAt), desc(discrepancies.id))
    .limit(DISCREPANCY_LIMIT);
}

/** A reconciliation pass as the organizer sees it. */
export interface ReconcileSummary {
  expired: number;
  paidAtExpiry: number;
  paymentsQueried: number;
  ticketed: number;
  latePayments: number;
  extraCapturesRefunded: number;
  redisMismatchesRepaired: number;
  ticketsWithoutPayment: number;
  /** Invariant violations left after the pass (0 is the goal). */
  violations: number;
  errors: string[];
}

/**
 * Runs one reconciliation pass for the show now (lib/reconciliation/reconcile) and logs
 * it in the audit log.
 * @throws {AdminOrderError} "not_found", "not_your_show"; reconciliation's own errors.
 */
export async function reconcileEventNow(db: Db, organizerId: string, eventId: string): Promise<ReconcileSummary> {
  await assertOwns(db, organizerId, eventId);
  const r = await reconcile(db, { eventId });
  const summary: ReconcileSummary = {
    expired: r.sweep.expired,
    paidAtExpiry: r.sweep.paidAtExpiry,
    paymentsQueried: r.sweep.paymentsQueried,
    ticketed: r.sweep.ticketed,
    latePayments: r.sweep.latePayments,
    extraCapturesRefunded: r.sweep.extraCapturesRefunded,
    redisMismatchesRepaired: r.redisRebuilt.reduce((n, x) => n + x.mismatches, 0),
    ticketsWithoutPayment: r.ticketsWithoutPayment.length,
    violations: totalViolations(r.invariants),
    errors: r.sweep.errors,
  };
  await recordAdminAction(db, { organizerId, eventId, action: "reconcile", detail: { outcome: "done", ...summary } });
  return summary;
}
