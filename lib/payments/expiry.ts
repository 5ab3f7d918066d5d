/**
 * Ending a hold whose time is up — but never before the PSP has been asked (docs/design.md:
 * "A hold whose payment is in progress is not released before the PSP is asked").
 *
 * For a `pending_payment` order past its hold expiry:
 * 1. ask the PSP about each open checkout; a capture found → the order is paid (the
 *    webhook was late or lost), done;
 * 2. otherwise cancel the open checkouts at the PSP so they can no longer be paid, and
 *    ask once more (a payment may have landed between the two calls);
 * 3. only then expire the order and release its seats.
 * A capture that still lands afterwards is a late payment (lib/payments/late-payment).
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import { orders, payments } from "@/db/schema";
import { sqlNow } from "@/lib/clock";
import type { Db } from "@/lib/db";
import { releaseOrder } from "@/lib/orders/release";
import { getFanOrder } from "@/lib/orders/queries";
import { transitionPayment, type TransitionCause } from "@/lib/orders/state-machine";
import { AppError } from "@/lib/errors";
import { paymentProvider } from "@/lib/payments";
import { askPsp } from "@/lib/payments/apply";

/** What happened to an expired hold. */
export type ExpiryOutcome = "paid" | "expired" | "not_due" | "not_pending";

/**
 * Settles one order whose hold may have run out. Whether it has is Postgres's `now()` against
 * `hold_expires_at` (one clock, lib/clock.ts): a worker whose clock runs ahead ends no hold early.
 * @param now a test's simulated clock.
 * @throws {PaymentProviderError} when the PSP cannot be asked (retry later).
 */
export async function settleExpiredHold(db: Db, orderId: string, cause: TransitionCause, now?: Date): Promise<ExpiryOutcome> {
  const [order] = await db
    .select({ status: orders.status, holdExpiresAt: orders.holdExpiresAt, due: sql<boolean>`${orders.holdExpiresAt} <= ${sqlNow(now)}` })
    .from(orders)
    .where(eq(orders.id, orderId));
  if (!order || order.status !== "pending_payment") return "not_pending";
  if (!order.due) return "not_due";
  const outcome = await closePendingOrder(db, orderId, "expired", { ...cause, reason: `${cause.reason}: hold expired at ${order.holdExpiresAt.toISOString()}` });
  return outcome === "closed" ? "expired" : outcome;
}

/**
 * Ends a pending order without a sale — at hold expiry, or when the fan gives the seats
 * back — but only after asking the PSP and cancelling its open checkouts, so a payment
 * in progress is never lost: a capture found on the way pays the order instead.
 * @returns "paid", "closed" (now expired/cancelled), or "not_pending".
 * @throws {PaymentProviderError} when the PSP cannot be asked (nothing was released; retry later).
 */
export async function closePendingOrder(db: Db, orderId: string, to: "expired" | "cancelled", cause: TransitionCause): Promise<"paid" | "closed" | "not_pending"> {
  const order = await db.query.orders.findFirst({ where: eq(orders.id, orderId) });
  if (!order || order.status !== "pending_payment") return "not_pending";
  // Declined at our side may still be open at the PSP (a decline report it later overrides): ask and cancel those too.
  const unpaid = () => db.query.payments.findMany({ where: and(eq(payments.orderId, orderId), inArray(payments.status, ["created", "pending", "declined"])) });
  const open = await unpaid();

  const askAll = async (): Promise<boolean> => {
    for (const p of open) {
      if (!paymentProvider(p.provider)) continue;
      const { applied } = await askPsp(db, p, { ...cause, reason: `${cause.reason}: the PSP was asked first` });
      if (applied === "paid" || applied === "already_paid") return true;
    }
    return false;
  };
  if (await askAll()) return "paid";
  for (const p of open) await paymentProvider(p.provider)?.cancelCheckout(p.checkoutSessionId);
  if (await askAll()) return "paid";
  const ended = await releaseOrder(db, orderId, to, cause);
  if (ended) {
    // Read again: a checkout started while this ran (lib/payments/checkout.ts records it only
    // while the order is pending, so none can follow now) is cancelled at the PSP too. Then
    // close them on our side (guarded, logged). One that still captures is a late payment.
    for (const p of await unpaid()) {
      if (!open.some((o) => o.id === p.id)) await paymentProvider(p.provider)?.cancelCheckout(p.checkoutSessionId).catch(() => undefined);
      await transitionPayment(db, p, p.status, "cancelled", { ...cause, reason: `checkout cancelled: order ${to}` });
    }
  }
  return ended ? "closed" : "not_pending";
}

/**
 * The fan gives the held seats back ("Give the seats back" on the order page, `DELETE
 * /api/orders/:id`): {@link closePendingOrder} to `cancelled`, for the fan's own order.
 * @throws {AppError} 404 `no_such_order` (unknown, or another fan's), 409 `already_paid` (the
 *   payment has just gone through: the seats are the fan's), 409 `not_pending`;
 *   {PaymentProviderError} when the PSP cannot be asked (nothing was released).
 */
export async function giveSeatsBack(db: Db, orderId: string, fanId: string): Promise<void> {
  if (!(await getFanOrder(db, orderId, fanId))) throw new AppError("not_found", "no_such_order", "No such order.");
  const done = await closePendingOrder(db, orderId, "cancelled", { actor: `fan:${fanId}`, reason: "fan gave the seats back" });
  if (done === "paid") throw new AppError("conflict", "already_paid", "Your payment has just gone through, so the seats are yours.");
  if (done !== "closed") throw new AppError("conflict", "not_pending", "This order can no longer be cancelled.");
}
