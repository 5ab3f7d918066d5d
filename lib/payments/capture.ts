/**
 * What happens when the PSP says money was taken — from a webhook, from the fan's
 * browser returning, from an active query, or from the PSP's ledger. All of them call
 * {@link recordCapture}; guarded transitions make the first one win and the others no-ops.
 *
 * Believed only for a checkout the app created, for that checkout's order, amount and
 * currency: anything else is not marked paid and is recorded as a discrepancy. A capture
 * known from a webhook alone is not yet *confirmed*: reconciliation checks it against
 * the PSP's ledger (lib/reconciliation/ledger.ts) and voids it if the PSP does not have it.
 */
import { and, eq, inArray, ne } from "drizzle-orm";
import { eventSeats, lineItems, orders, payments } from "@/db/schema";
import type { Db } from "@/lib/db";
import { confirmInRedis } from "@/lib/inventory/hold";
import { transitionOrder, transitionPayment, type TransitionCause } from "@/lib/orders/state-machine";
import { enqueue } from "@/lib/outbox";
import type { PaymentSnapshot } from "@/lib/payments/provider";
import { resolveLatePayment } from "@/lib/payments/late-payment";
import { refundPayment } from "@/lib/payments/refund";
import { recordDiscrepancy } from "@/lib/reconciliation/discrepancies";
import { issueTickets } from "@/lib/tickets/issue";
import { freeSlot } from "@/lib/waiting-room/queue";

/** What {@link recordCapture} concluded. */
export type CaptureOutcome =
  | "not_captured" // the snapshot does not show money taken: nothing done
  | "paid" // this call moved the order to paid
  | "already_paid" // an earlier call did
  | "amount_mismatch"
  | "unknown_checkout"
  | "late_payment" // the order had expired or was cancelled: seats re-claimed, or the payment refunded
  | "double_capture"; // the order was already paid by another payment: this one refunded

/** Options of {@link recordCapture}. */
export interface CaptureOptions {
  /**
   * The snapshot comes from the PSP's own records (an active query or its ledger), not
   * from a webhook: the payment is marked confirmed (`ledger_confirmed_at`) at once.
   */
  confirmed?: boolean;
}

/**
 * Records a captured payment and, when it is the order's, pays the order, confirms the
 * hold in Redis and issues the tickets. A capture for an order that ended meanwhile
 * (expired, cancelled, refunded) is a late payment: re-claimed or refunded
 * (./late-payment.ts).
 * @param provider the PSP's name ("sandbox", "stripe").
 * @param snapshot the PSP's view; its status must be "captured".
 */
export async function recordCapture(db: Db, provider: string, snapshot: PaymentSnapshot, cause: TransitionCause, opts: CaptureOptions = {}): Promise<CaptureOutcome> {
  // Only a real capture counts: a signed message claiming one without a payment is not money.
  if (snapshot.status !== "captured" || !snapshot.paymentId) return "not_captured";
  const payment = await db.query.payments.findFirst({ where: and(eq(payments.provider, provider), eq(payments.checkoutSessionId, snapshot.checkoutSessionId)) });
  if (!payment) {
    await recordDiscrepancy(db, {
      key: `unknown_checkout_${provider}_${snapshot.checkoutSessionId}`,
      kind: "unknown_checkout",
      orderId: (await db.query.orders.findFirst({ where: eq(orders.id, snapshot.orderId) }))?.id ?? null,
      detail: { provider, snapshot },
      action: "none: no payment of ours has this checkout session",
      status: "needs_attention",
    });
    return "unknown_checkout";
  }
  const order = (await db.query.orders.findFirst({ where: eq(orders.id, payment.orderId) }))!;
  if (snapshot.amountMinor !== order.totalMinor || snapshot.currency !== order.currency || snapshot.orderId !== order.id) {
    await recordDiscrepancy(db, {
      key: `amount_mismatch_${payment.id}`,
      kind: "amount_mismatch",
      eventId: order.eventId,
      orderId: order.id,
      detail: { expected: { amountMinor: order.totalMinor, currency: order.currency, orderId: order.id }, received: { amountMinor: snapshot.amountMinor, currency: snapshot.currency, orderId: snapshot.orderId } },
      action: "order not marked paid",
      status: "needs_attention",
    });
    return "amount_mismatch";
  }

  const outcome = await db.transaction(async (tx): Promise<CaptureOutcome> => {
    const locked = (await tx.select().from(orders).where(eq(orders.id, order.id)).for("update"))[0]!;
    const current = (await tx.select().from(payments).where(eq(payments.id, payment.id)).for("update"))[0]!;
    const confirmedAt = opts.confirmed ? new Date() : null;
    if (current.status !== "captured" && current.status !== "refunded") {
      await transitionPayment(tx, current, current.status, "captured", cause, {
        providerPaymentId: snapshot.paymentId,
        capturedAt: snapshot.capturedAt ?? new Date(),
        ledgerConfirmedAt: confirmedAt,
      });
    } else if (current.status === "captured" && confirmedAt && !current.ledgerConfirmedAt) {
      await tx.update(payments).set({ ledgerConfirmedAt: confirmedAt }).where(eq(payments.id, current.id));
    }
    if (locked.status === "pending_payment") {
      await transitionOrder(tx, order.id, "pending_payment", "paid", cause);
      const sold = await tx
        .update(lineItems)
        .set({ status: "sold" })
        .where(and(eq(lineItems.orderId, order.id), eq(lineItems.status, "held")))
        .returning({ seatId: lineItems.seatId });
      if (sold.length > 0) {
        await tx
          .update(eventSeats)
          .set({ status: "sold" })
          .where(and(eq(eventSeats.eventId, order.eventId), inArray(eventSeats.seatId, sold.map((s) => s.seatId))));
      }
      await enqueue(tx, "order/paid", { orderId: order.id, eventId: order.eventId }, `order/paid:${order.id}`);
      return "paid";
    }
    if (locked.status === "paid" || locked.status === "ticketed") {
      const other = await tx
        .select({ id: payments.id })
        .from(payments)
        .where(and(eq(payments.orderId, order.id), ne(payments.id, payment.id), eq(payments.status, "captured")));
      if (other.length > 0) {
        await recordDiscrepancy(tx, {
          key: `double_capture_${payment.id}`,
          kind: "double_capture",
          eventId: order.eventId,
          orderId: order.id,
          detail: { kept: other[0]!.id, extra: payment.id, amountMinor: snapshot.amountMinor },
          action: "extra capture refunded in full",
          status: "repaired",
        });
        return "double_capture";
      }
      return "already_paid";
    }
    // expired, cancelled or refunded: the order stopped waiting for this money.
    return "late_payment";
  });

  if (outcome === "paid" || outcome === "already_paid") {
    await confirmInRedis(order.eventId, order.holdId);
    // Issuance failing must not undo or block the payment: the order waits in `paid` and the
    // ticket-issuance job (or the sweep) retries until the tickets exist.
    await issueTickets(db, order.id, cause).catch((error: unknown) => {
      console.warn(`ticket issuance for ${order.id} failed; it will be retried`, error instanceof Error ? error.message : error);
    });
    // The fan bought: their admission slot goes to the next fan in the queue.
    if (outcome === "paid") await freeSlot(db, order.eventId, order.fanId);
  }
  if (outcome === "double_capture") await refundPayment(db, payment.id, { ...cause, reason: `second capture for order ${order.id}: refunded (I3)` });
  if (outcome === "late_payment") await resolveLatePayment(db, payment.id, cause);
  return outcome;
}

/** Marks a payment declined (the order stays pending_payment: the fan may try again until the hold expires). */
export async function recordDecline(db: Db, provider: string, checkoutSessionId: string, cause: TransitionCause): Promise<boolean> {
  const payment = await db.query.payments.findFirst({ where: and(eq(payments.provider, provider), eq(payments.checkoutSessionId, checkoutSessionId)) });
  if (!payment || (payment.status !== "created" && payment.status !== "pending")) return false;
  return transitionPayment(db, payment, payment.status, "declined", cause);
}
