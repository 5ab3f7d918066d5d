/**
 * Money that cannot become tickets because it is not what the order asked for: a capture
 * whose amount, currency or order id differs from its order's (docs/design.md "Payments").
 * Such a capture never pays the order; it is recorded as the PSP reports it (the payment row
 * takes the PSP's payment id, amount and currency) and given back in full through the one
 * refund path (./refund.ts), with the finding as an `amount_mismatch` discrepancy under
 * {@link captureMismatchKey}: `open` while the refund is under way, `repaired` once it is made.
 *
 * The finding is also the mark ./kept.ts reads: a mismatched capture is never a capture that
 * keeps its order (I3's extra captures, a refund or void of the order's real payment, partial
 * refunds, the sweep) and never re-claims seats as a late payment (./late-payment.ts). The
 * sweep retries by the payment's own state, whatever the finding says
 * ({@link mismatchRefundsDueSql}, lib/reconciliation/sweep.ts).
 */
import { eq, sql } from "drizzle-orm";
import { orders, payments } from "@/db/schema";
import { discrepancyId, findDiscrepancy, recordDiscrepancy } from "@/lib/audit/discrepancies";
import type { Db } from "@/lib/db";
import { enqueueEmailToUser } from "@/lib/mail/outbox";
import { endSoldOrder, reopenAfterEnd, type EndedOrder } from "@/lib/orders/end-sold";
import { transitionPayment, type TransitionCause } from "@/lib/orders/state-machine";
import { captureMismatchKey, keptCaptures } from "@/lib/payments/kept";
import { PaymentProviderError, type PaymentSnapshot } from "@/lib/payments/provider";
import { refundPayment } from "@/lib/payments/refund";

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
 * finding is recorded (`open`), which marks it mismatched; then the refund goes out.
 * A pending order stays payable until its hold ends. An order this payment kept until now (a
 * row recorded as captured before captures were confirmed with the PSP, from a message's own
 * amount) with no other kept capture is not paid: it ends `refunded` in the same transaction
 * (tickets void, seats back on sale, the fan told) before any money goes back, so tickets never
 * stay valid on money given back (I4).
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
  const why = `${cause.reason}: captured ${snapshot.amountMinor} ${snapshot.currency} for order ${snapshot.orderId || "?"}, not the order's ${order.totalMinor} ${order.currency}`;
  const recorded = await db.transaction(async (tx): Promise<{ ended: EndedOrder | null } | null> => {
    const [[lockedOrder], [current]] = await Promise.all([
      tx.select().from(orders).where(eq(orders.id, order.id)).for("update"),
      tx.select().from(payments).where(eq(payments.id, payment.id)).for("update"),
    ]);
    if (!lockedOrder || !current) throw new Error(`order ${order.id} or payment ${payment.id} vanished`);
    if (current.status === "refunded") return null;
    // Did this payment keep a paid order until now (it alone)? Read before it is marked.
    const keptOrder =
      current.status === "captured" && (lockedOrder.status === "paid" || lockedOrder.status === "ticketed") && (await keptCaptures(tx, order.id)).join() === current.id;
    if (current.status !== "captured") {
      await transitionPayment(tx, current, current.status, "captured", { ...cause, reason: why }, {
        providerPaymentId: snapshot.paymentId,
        capturedAt: snapshot.capturedAt ?? new Date(),
        ledgerConfirmedAt: new Date(),
      });
    }
    // The row keeps what was actually taken, under the PSP's own payment id: that is what goes back.
    await tx
      .update(payments)
      .set({ amountMinor: snapshot.amountMinor, currency: snapshot.currency, providerPaymentId: snapshot.paymentId, ledgerConfirmedAt: sql`coalesce(${payments.ledgerConfirmedAt}, now())`, updatedAt: sql`now()` })
      .where(eq(payments.id, current.id));
    await recordDiscrepancy(tx, {
      key: captureMismatchKey(current.id),
      kind: "amount_mismatch",
      eventId: order.eventId,
      orderId: order.id,
      detail: { paymentId: current.id, ...facts, ...(keptOrder ? { orderEnded: lockedOrder.status } : {}) },
      action: keptOrder
        ? `the order had been counted as paid by it: order refunded, tickets void, seats back on sale; the captured amount is being refunded in full`
        : "order not paid by it; the captured amount is being refunded in full",
      status: "open",
      update: true,
    });
    if (!keptOrder) return { ended: null };
    const ended = await endSoldOrder(tx, order.id, "refunded", { ...cause, reason: `${why}; the order is not paid by it` });
    if (ended) {
      await enqueueEmailToUser(tx, "order_refunded", { orderId: order.id, amountMinor: snapshot.amountMinor, currency: snapshot.currency, seats: ended.seatsReleased }, order.fanId, `order_refunded:${order.id}`);
    }
    return { ended };
  });
  if (!recorded) return true;
  if (recorded.ended) await reopenAfterEnd(recorded.ended);
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
  const found = await findDiscrepancy(db, captureMismatchKey(paymentId));
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
    key: captureMismatchKey(paymentId),
    kind: "amount_mismatch",
    eventId: found.eventId,
    orderId: found.orderId,
    detail: { ...(found.detail as Record<string, unknown>), refundedMinor: payment?.amountMinor, refundedCurrency: payment?.currency },
    action: (found.detail as { orderEnded?: string }).orderEnded
      ? "the order had been counted as paid by it: order refunded, tickets void, seats back on sale; the captured amount was refunded in full"
      : "order not paid by it; the captured amount was refunded in full",
    status: "repaired",
    update: true,
  });
  return true;
}

/**
 * Mismatched captures the sweep still has to settle, by the payment's own state whatever
 * the finding says (two writers may leave it behind the money): the payment still
 * `captured` (the refund is due), or `refunded` while the finding is not yet `repaired`
 * (a process that ended between the refund and the finding). {@link finishMismatchRefund}
 * settles both.
 * @param opts.eventId only this event's; @param opts.limit at most this many.
 */
export function mismatchRefundsDueSql(opts: { eventId?: string; limit: number }) {
  const evt = opts.eventId ? sql`and d.event_id = ${opts.eventId}` : sql``;
  return sql`select p.id from discrepancies d join payments p on p.id = d.detail->>'paymentId'
             where d.kind = 'amount_mismatch' and d.id = ${discrepancyId(captureMismatchKey(""))}::text || p.id
               and (p.status = 'captured' or (p.status = 'refunded' and d.status <> 'repaired')) ${evt}
             limit ${opts.limit}`;
}
