/**
 * Money that cannot become tickets because it is not what the order asked for: a capture
 * whose amount, currency or order id differs from its order's (docs/design.md "Payments").
 * Such a capture never pays the order; it is recorded as the PSP reports it (the payment row
 * takes the amount and currency actually captured) and given back in full through the one
 * refund path (./refund.ts), with the finding as an `amount_mismatch` discrepancy: `open`
 * while the refund is under way, `repaired` once it is made.
 *
 * The discrepancy is also the marker the other rules read: a mismatched capture is never an
 * order's kept capture (./apply.ts `extraCaptures`), never re-claims seats as a late payment
 * (./late-payment.ts), and a refund the PSP could not make yet is retried by the sweep
 * ({@link openMismatchRefunds}, lib/reconciliation/sweep.ts).
 */
import { eq, sql } from "drizzle-orm";
import { orders, payments } from "@/db/schema";
import { findDiscrepancy, recordDiscrepancy } from "@/lib/audit/discrepancies";
import type { Db } from "@/lib/db";
import { transitionPayment, type TransitionCause } from "@/lib/orders/state-machine";
import { PaymentProviderError, type PaymentSnapshot } from "@/lib/payments/provider";
import { refundPayment } from "@/lib/payments/refund";

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/** The discrepancy key of a mismatched capture (one per payment). */
export const mismatchKey = (paymentId: string) => `amount_mismatch_${paymentId}`;

/** True when this payment's capture was found not to match its order (inside or outside a transaction). */
export async function isMismatchedCapture(tx: Tx | Db, paymentId: string): Promise<boolean> {
  return (await findDiscrepancy(tx, mismatchKey(paymentId))) !== null;
}

/** What the PSP captured against what the order asks for. */
function mismatchFacts(order: typeof orders.$inferSelect, snapshot: PaymentSnapshot) {
  return {
    expected: { amountMinor: order.totalMinor, currency: order.currency, orderId: order.id },
    received: { amountMinor: snapshot.amountMinor, currency: snapshot.currency, orderId: snapshot.orderId },
  };
}

/** True when the PSP's capture is not exactly what the order asks for. */
export function captureMismatches(order: typeof orders.$inferSelect, snapshot: PaymentSnapshot): boolean {
  return snapshot.amountMinor !== order.totalMinor || snapshot.currency !== order.currency || snapshot.orderId !== order.id;
}

/**
 * Records a capture that does not match its order and refunds it in full.
 * Under the order's and the payment's row locks (in that order, like every path that changes
 * both): the payment becomes `captured` with the PSP's payment id, amount and currency, and the
 * finding is recorded (`open`); then the refund goes out. The order is left as it was (a
 * pending order stays payable until its hold ends).
 * @param snapshot the PSP's own record (status "captured", with a payment id).
 * @returns true when the capture is given back (now or before); false when the PSP could not
 *   refund now (the sweep retries).
 */
export async function refundMismatchedCapture(
  db: Db,
  payment: typeof payments.$inferSelect,
  order: typeof orders.$inferSelect,
  snapshot: PaymentSnapshot,
  cause: TransitionCause,
): Promise<boolean> {
  const facts = mismatchFacts(order, snapshot);
  const recorded = await db.transaction(async (tx) => {
    const [[lockedOrder], [current]] = await Promise.all([
      tx.select({ id: orders.id }).from(orders).where(eq(orders.id, order.id)).for("update"),
      tx.select().from(payments).where(eq(payments.id, payment.id)).for("update"),
    ]);
    if (!lockedOrder || !current) throw new Error(`order ${order.id} or payment ${payment.id} vanished`);
    if (current.status === "refunded") return false;
    if (current.status !== "captured") {
      const why = `${cause.reason}: captured ${snapshot.amountMinor} ${snapshot.currency} for order ${snapshot.orderId || "?"}, not the order's ${order.totalMinor} ${order.currency}`;
      await transitionPayment(tx, current, current.status, "captured", { ...cause, reason: why }, {
        providerPaymentId: snapshot.paymentId,
        capturedAt: snapshot.capturedAt ?? new Date(),
        ledgerConfirmedAt: new Date(),
      });
    }
    // The row keeps what was actually taken: that is what goes back.
    await tx.update(payments).set({ amountMinor: snapshot.amountMinor, currency: snapshot.currency, updatedAt: sql`now()` }).where(eq(payments.id, current.id));
    await recordDiscrepancy(tx, {
      key: mismatchKey(current.id),
      kind: "amount_mismatch",
      eventId: order.eventId,
      orderId: order.id,
      detail: { paymentId: current.id, ...facts },
      action: "order not paid by it; the captured amount is being refunded in full",
      status: "open",
      update: true,
    });
    return true;
  });
  if (!recorded) return true;
  return finishMismatchRefund(db, payment.id, cause);
}

/**
 * Refunds a mismatched capture at the PSP (the full captured amount, idempotent per payment)
 * and marks its finding repaired.
 * @returns true when it is refunded; false when the PSP did not refund it now (its finding
 *   stays `open` on the organizer's dashboard and the sweep tries again).
 * @throws database errors.
 */
export async function finishMismatchRefund(db: Db, paymentId: string, cause: TransitionCause): Promise<boolean> {
  const found = await findDiscrepancy(db, mismatchKey(paymentId));
  if (!found) return false;
  try {
    if (!(await refundPayment(db, paymentId, { ...cause, reason: `amount mismatch: the capture is not what the order asked for; refunded in full` }))) return false;
  } catch (error) {
    if (!(error instanceof PaymentProviderError)) throw error;
    console.warn(`refund of mismatched capture ${paymentId} failed; the sweep retries`, error.message);
    return false;
  }
  const payment = await db.query.payments.findFirst({ where: eq(payments.id, paymentId) });
  await recordDiscrepancy(db, {
    key: mismatchKey(paymentId),
    kind: "amount_mismatch",
    eventId: found.eventId,
    orderId: found.orderId,
    detail: { ...(found.detail as Record<string, unknown>), refundedMinor: payment?.amountMinor, refundedCurrency: payment?.currency },
    action: "order not paid by it; the captured amount was refunded in full",
    status: "repaired",
    update: true,
  });
  return true;
}

/**
 * Mismatched captures whose refund is still to be made (their finding `open`, the payment
 * still captured), for the sweep.
 * @param opts.eventId only this event's; @param opts.limit at most this many.
 */
export function openMismatchRefundsSql(opts: { eventId?: string; limit: number }) {
  const evt = opts.eventId ? sql`and d.event_id = ${opts.eventId}` : sql``;
  return sql`select p.id from discrepancies d join payments p on p.id = d.detail->>'paymentId'
             where d.kind = 'amount_mismatch' and d.status = 'open' and p.status = 'captured' ${evt} limit ${opts.limit}`;
}
