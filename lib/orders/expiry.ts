/**
 * Ending a hold whose time is up — but never before the PSP has been asked (DESIGN.md:
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
import { and, eq, inArray } from "drizzle-orm";
import { orders, payments } from "@/db/schema";
import type { Db } from "@/lib/db";
import { releaseOrder } from "@/lib/orders/release";
import { transitionPayment, type TransitionCause } from "@/lib/orders/state-machine";
import { paymentProvider } from "@/lib/payments";
import { recordCapture, recordDecline } from "@/lib/payments/capture";

/** What happened to an expired hold. */
export type ExpiryOutcome = "paid" | "expired" | "not_due" | "not_pending";

/** Settles one order whose hold may have run out. @throws {PaymentProviderError} when the PSP cannot be asked (retry later). */
export async function settleExpiredHold(db: Db, orderId: string, cause: TransitionCause, now = new Date()): Promise<ExpiryOutcome> {
  const order = await db.query.orders.findFirst({ where: eq(orders.id, orderId) });
  if (!order || order.status !== "pending_payment") return "not_pending";
  if (order.holdExpiresAt > now) return "not_due";
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
  const open = await db.query.payments.findMany({ where: and(eq(payments.orderId, orderId), inArray(payments.status, ["created", "pending"])) });

  const askAll = async (): Promise<boolean> => {
    for (const p of open) {
      const provider = paymentProvider(p.provider);
      if (!provider) continue;
      const snapshot = await provider.retrievePayment(p.checkoutSessionId);
      if (snapshot.status === "captured") {
        const outcome = await recordCapture(db, provider.name, snapshot, { ...cause, reason: `${cause.reason}: the PSP reports a capture` }, { confirmed: true });
        if (outcome === "paid" || outcome === "already_paid") return true;
      }
      if (snapshot.status === "declined") await recordDecline(db, provider.name, p.checkoutSessionId, cause);
    }
    return false;
  };
  if (await askAll()) return "paid";
  for (const p of open) await paymentProvider(p.provider)?.cancelCheckout(p.checkoutSessionId);
  if (await askAll()) return "paid";
  const ended = await releaseOrder(db, orderId, to, cause);
  if (ended) {
    // The checkouts can no longer be paid: close them on our side too (guarded, logged).
    for (const p of open) await transitionPayment(db, p, p.status, "cancelled", { ...cause, reason: `checkout cancelled: order ${to}` });
  }
  return ended ? "closed" : "not_pending";
}
