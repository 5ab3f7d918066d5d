/**
 * A capture that lands after its order stopped waiting for it (docs/design.md: "a payment that
 * lands after expiry either re-claims the same seats (if still free) or is refunded
 * automatically — never silently kept").
 *
 * One guarded step, under the payment's and the order's row locks, whatever the order's
 * closed state:
 * - `expired`, show still on sale: try to re-claim exactly its seats — Redis first (the
 *   fast gate, with the show's real per-fan limit), then in Postgres the per-fan recount
 *   under the fan's advisory lock (I6, the rule) and the seats themselves (I1: the partial
 *   unique index refuses a seat live in another order); the order goes `expired → paid`.
 * - otherwise (`cancelled`: the fan gave the seats back, or the organizer released the
 *   hold; `refunded`; seats taken; per-fan limit; show off sale): the decision to refund
 *   is recorded with its true reason in the same transaction, then the PSP refunds.
 * A Redis claim that does not end in a committed re-claim is released, so no hold leaks.
 * A refund the PSP cannot make now keeps the recorded decision; the sweep retries it
 * (the payment stays captured on a closed order), and a webhook can be answered 2xx.
 */
import { and, count, desc, eq, inArray, sql } from "drizzle-orm";
import { events, lineItems, orders, orderTransitions, seats, type payments } from "@/db/schema";
import { uniqueViolation, type Db } from "@/lib/db";
import { newId } from "@/lib/ids";
import { FanLimitError, SeatsTakenError } from "@/lib/inventory/errors";
import { confirmInRedis, holdInRedis, releaseInRedis, releaseUnlessWritten } from "@/lib/inventory/hold";
import { sellReleasedSeats } from "@/lib/orders/seats";
import { transitionOrder, type TransitionCause } from "@/lib/orders/state-machine";
import { enqueue } from "@/lib/outbox";
import { lockPayment } from "@/lib/payments/locks";
import { PaymentProviderError } from "@/lib/payments/provider";
import { refundPayment } from "@/lib/payments/refund";
import { isMismatchedCapture } from "@/lib/payments/kept";
import { findDiscrepancy, recordDiscrepancy } from "@/lib/audit/discrepancies";
import { issueTickets } from "@/lib/tickets/issue";

/**
 * What happened to a late payment: `reclaimed` (paid, tickets follow), `refunded`,
 * `refund_pending` (decided and recorded; the PSP did not refund yet, the sweep retries),
 * or `not_late` (not a captured payment on a closed order).
 */
export type LatePaymentOutcome = "reclaimed" | "refunded" | "refund_pending" | "not_late";

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

const CLOSED = new Set(["expired", "cancelled", "refunded"]);
const keyOf = (paymentId: string) => `late_payment_${paymentId}`;

/** What the locked step decided. */
type Decision =
  | { outcome: "not_late" }
  | { outcome: "reclaimed"; eventId: string; orderId: string; holdId: string; statusBefore: string }
  | { outcome: "refund"; reason: string; eventId: string; orderId: string; paymentId: string };

/**
 * Resolves a captured payment whose order is expired, cancelled or refunded.
 * @returns see {@link LatePaymentOutcome}.
 * @throws database or Redis errors before anything was decided (nothing changed; the
 *   sweep or the webhook's retry runs it again).
 */
export async function resolveLatePayment(db: Db, paymentId: string, cause: TransitionCause): Promise<LatePaymentOutcome> {
  const holdId = newId("hld");
  let claimed: { eventId: string } | null = null;
  let decision: Decision | null = null;
  try {
    decision = await db.transaction((tx) => decide(tx, paymentId, holdId, cause, (eventId) => (claimed = { eventId })));
  } catch (error) {
    // The re-claim's write failed, or seemed to: give the Redis claim back unless it committed after all.
    const c = claimed as { eventId: string } | null;
    if (c) await releaseUnlessWritten(db, c.eventId, holdId, error).catch(() => undefined);
    throw error;
  }
  // Committed without a re-claim (a refund instead): the Redis claim goes back.
  const c = claimed as { eventId: string } | null;
  if (c && decision.outcome !== "reclaimed") await releaseInRedis(c.eventId, holdId).catch(() => undefined);

  if (decision.outcome === "not_late") return "not_late";
  if (decision.outcome === "reclaimed") {
    await confirmInRedis(decision.eventId, decision.holdId);
    await recordDiscrepancy(db, {
      key: keyOf(paymentId),
      kind: "late_payment",
      eventId: decision.eventId,
      orderId: decision.orderId,
      detail: { paymentId, orderStatusBefore: decision.statusBefore, decision: "reclaim" },
      action: "seats were still free: re-claimed and sold",
      status: "repaired",
      update: true,
    });
    // Issuance failing must not undo the payment: the sweep issues the tickets later.
    await issueTickets(db, decision.orderId, cause).catch(() => undefined);
    return "reclaimed";
  }

  try {
    await refundPayment(db, paymentId, { ...cause, reason: `late payment: ${decision.reason}; refunded in full` });
  } catch (error) {
    if (error instanceof PaymentProviderError) return "refund_pending";
    throw error;
  }
  await recordDiscrepancy(db, {
    key: keyOf(paymentId),
    kind: "late_payment",
    eventId: decision.eventId,
    orderId: decision.orderId,
    detail: { paymentId, decision: "refund", reason: decision.reason },
    action: `${decision.reason}: payment refunded in full`,
    status: "repaired",
    update: true,
  });
  return "refunded";
}

/** The locked step: re-claim inside `tx`, or record the decision to refund. */
async function decide(tx: Tx, paymentId: string, holdId: string, cause: TransitionCause, onClaimed: (eventId: string) => void): Promise<Decision> {
  const { order, payment } = await lockPayment(tx, paymentId);
  if (!payment || payment.status !== "captured") return { outcome: "not_late" };
  if (!order || !CLOSED.has(order.status)) return { outcome: "not_late" };
  // A capture that does not match its order never re-claims seats: its own rule refunds it (./mismatch.ts).
  if (await isMismatchedCapture(tx, paymentId)) return { outcome: "not_late" };

  // An earlier attempt decided to refund (its refund did not go through): that decision stands.
  const earlier = await findDiscrepancy(tx, keyOf(paymentId));
  const earlierReason = (earlier?.detail as { decision?: string; reason?: string } | null)?.decision === "refund" ? (earlier!.detail as { reason: string }).reason : null;
  const reason = earlierReason ?? (await reclaim(tx, { payment, order, holdId, cause, onClaimed }));
  if (reason === null) return { outcome: "reclaimed", eventId: order.eventId, orderId: order.id, holdId, statusBefore: order.status };

  await recordDiscrepancy(tx, {
    key: keyOf(paymentId),
    kind: "late_payment",
    eventId: order.eventId,
    orderId: order.id,
    detail: { paymentId, orderStatus: order.status, decision: "refund", reason },
    action: `${reason}: refund in progress`,
    status: "open",
    update: true,
  });
  return { outcome: "refund", reason, eventId: order.eventId, orderId: order.id, paymentId };
}

/**
 * Re-claims the order's seats for the late payment, inside `tx`.
 * @returns null when re-claimed (the order is now paid), else why not — a sentence for the
 *   transition log, the discrepancy and the fan's refund.
 */
async function reclaim(
  tx: Tx,
  p: { payment: typeof payments.$inferSelect; order: typeof orders.$inferSelect; holdId: string; cause: TransitionCause; onClaimed: (eventId: string) => void },
): Promise<string | null> {
  const { order } = p;
  if (order.status === "refunded") return "the order had already been refunded";
  if (order.status === "cancelled") {
    const [last] = await tx
      .select({ reason: orderTransitions.reason })
      .from(orderTransitions)
      .where(and(eq(orderTransitions.orderId, order.id), eq(orderTransitions.entity, "order"), eq(orderTransitions.toStatus, "cancelled")))
      .orderBy(desc(orderTransitions.at), desc(orderTransitions.id))
      .limit(1);
    return `the order had been cancelled before the payment landed (${last?.reason ?? "cancelled"})`;
  }
  const [event] = await tx.select().from(events).where(eq(events.id, order.eventId));
  if (!event || event.status !== "published") return "the show is no longer on sale";
  const items = await tx
    .select({ seatId: lineItems.seatId, ordinal: seats.ordinal })
    .from(lineItems)
    .innerJoin(seats, eq(lineItems.seatId, seats.id))
    .where(and(eq(lineItems.orderId, order.id), eq(lineItems.status, "released")));
  if (items.length === 0) return "the order has no seats left to re-claim";

  // Redis, the fast gate: exactly these seats, within the show's per-fan limit.
  try {
    await holdInRedis({
      eventId: order.eventId,
      holdId: p.holdId,
      fanId: order.fanId,
      expiresAt: new Date(Date.now() + event.holdMinutes * 60_000),
      perFanLimit: event.perFanLimit,
      request: { kind: "seats", ordinals: items.map((i) => i.ordinal) },
    });
    p.onClaimed(order.eventId);
  } catch (error) {
    if (error instanceof SeatsTakenError) return "seats were taken";
    if (error instanceof FanLimitError) return `the fan already has ${error.current} of the ${event.perFanLimit} seats allowed per fan`;
    throw error;
  }

  // Postgres, the rule: the fan's live seats recounted under the fan's lock (I6)…
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`${order.eventId}:${order.fanId}`}, 0))`);
  const [{ live } = { live: 0 }] = await tx
    .select({ live: count() })
    .from(lineItems)
    .innerJoin(orders, eq(lineItems.orderId, orders.id))
    .where(and(eq(orders.eventId, order.eventId), eq(orders.fanId, order.fanId), inArray(lineItems.status, ["held", "sold"])));
  if (live + items.length > event.perFanLimit) return `the fan already has ${live} of the ${event.perFanLimit} seats allowed per fan`;

  // …and the seats (I1): a seat live in another order makes the partial unique index refuse.
  try {
    await tx.transaction(async (sp) => {
      await sellReleasedSeats(sp, { orderId: order.id, eventId: order.eventId });
      await sp.update(orders).set({ holdId: p.holdId, updatedAt: sql`now()` }).where(eq(orders.id, order.id));
      if (!(await transitionOrder(sp, order.id, "expired", "paid", { ...p.cause, reason: `late payment ${p.payment.id}: seats still free, re-claimed` }))) {
        throw new Error(`order ${order.id} changed under its row lock`);
      }
      await enqueue(sp, "order/paid", { orderId: order.id, eventId: order.eventId }, `order/paid:${order.id}`);
    });
  } catch (error) {
    if (uniqueViolation(error) === "line_items_live_seat_uq") return "seats were taken";
    throw error;
  }
  return null;
}
