/**
 * A capture that lands after its order stopped waiting for it (DESIGN.md: "a payment that
 * lands after expiry either re-claims the same seats (if still free) or is refunded
 * automatically — never silently kept").
 *
 * 1. Try to re-claim the order's seats: a new Redis hold on exactly those seats, then in
 *    one Postgres transaction the released line items become sold again (the partial
 *    unique index refuses if anyone holds one), the order goes `expired|cancelled → paid`.
 * 2. Otherwise refund the payment in full and keep the order closed.
 * Either way a discrepancy records what happened, and the fan's order page says so.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import { eventSeats, events, lineItems, orders, payments, seats } from "@/db/schema";
import { uniqueViolation, type Db } from "@/lib/db";
import { newId } from "@/lib/ids";
import { InventoryError } from "@/lib/inventory/errors";
import { confirmInRedis, holdInRedis, releaseInRedis } from "@/lib/inventory/hold";
import { transitionOrder, type TransitionCause } from "@/lib/orders/state-machine";
import { enqueue } from "@/lib/outbox";
import { refundPayment } from "@/lib/payments/refund";
import { recordDiscrepancy } from "@/lib/reconciliation/discrepancies";
import { issueTickets } from "@/lib/tickets/issue";

/** What happened to a late payment. */
export type LatePaymentOutcome = "reclaimed" | "refunded" | "not_late";

/**
 * Resolves a captured payment whose order is expired or cancelled.
 * @throws {PaymentProviderError} when the refund cannot be made now (a sweep retries).
 */
export async function resolveLatePayment(db: Db, paymentId: string, cause: TransitionCause): Promise<LatePaymentOutcome> {
  const payment = await db.query.payments.findFirst({ where: eq(payments.id, paymentId) });
  if (!payment || payment.status !== "captured") return "not_late";
  const order = (await db.query.orders.findFirst({ where: eq(orders.id, payment.orderId) }))!;
  if (order.status !== "expired" && order.status !== "cancelled") return "not_late";
  const event = (await db.query.events.findFirst({ where: eq(events.id, order.eventId) }))!;

  const items = await db
    .select({ id: lineItems.id, seatId: lineItems.seatId, ordinal: seats.ordinal })
    .from(lineItems)
    .innerJoin(seats, eq(lineItems.seatId, seats.id))
    .where(and(eq(lineItems.orderId, order.id), eq(lineItems.status, "released")));

  const holdId = newId("hld");
  let reclaimed = false;
  if (items.length > 0) {
    try {
      // Per-fan limit: the fan's own seats coming back count as before, so allow them on top of what they have now.
      await holdInRedis({
        eventId: order.eventId,
        holdId,
        fanId: order.fanId,
        expiresAt: new Date(Date.now() + event.holdMinutes * 60_000),
        perFanLimit: event.perFanLimit + items.length,
        request: { kind: "seats", ordinals: items.map((i) => i.ordinal) },
      });
      reclaimed = await db.transaction(async (tx) => {
        const locked = (await tx.select().from(orders).where(eq(orders.id, order.id)).for("update"))[0]!;
        if (locked.status !== "expired" && locked.status !== "cancelled") return false;
        await tx.update(lineItems).set({ status: "sold" }).where(and(eq(lineItems.orderId, order.id), eq(lineItems.status, "released")));
        await tx
          .update(eventSeats)
          .set({ status: "sold" })
          .where(and(eq(eventSeats.eventId, order.eventId), inArray(eventSeats.seatId, items.map((i) => i.seatId))));
        await tx.update(orders).set({ holdId, updatedAt: sql`now()` }).where(eq(orders.id, order.id));
        await transitionOrder(tx, order.id, locked.status, "paid", { ...cause, reason: `late payment ${payment.id}: seats still free, re-claimed` });
        await enqueue(tx, "order/paid", { orderId: order.id, eventId: order.eventId }, `order/paid:${order.id}`);
        return true;
      });
    } catch (error) {
      if (!(error instanceof InventoryError) && !uniqueViolation(error)) throw error;
      reclaimed = false;
    }
    if (!reclaimed) await releaseInRedis(order.eventId, holdId);
  }

  if (reclaimed) {
    await confirmInRedis(order.eventId, holdId);
    await recordDiscrepancy(db, {
      key: `late_payment_${payment.id}`,
      kind: "late_payment",
      eventId: order.eventId,
      orderId: order.id,
      detail: { paymentId: payment.id, orderStatusBefore: order.status },
      action: "seats were still free: re-claimed and sold",
      status: "repaired",
    });
    await issueTickets(db, order.id, cause);
    return "reclaimed";
  }
  await refundPayment(db, payment.id, { ...cause, reason: `late payment for ${order.status} order ${order.id}: seats gone, refunded in full` });
  await recordDiscrepancy(db, {
    key: `late_payment_${payment.id}`,
    kind: "late_payment",
    eventId: order.eventId,
    orderId: order.id,
    detail: { paymentId: payment.id, orderStatus: order.status },
    action: "seats were taken: payment refunded in full",
    status: "repaired",
  });
  return "refunded";
}

