/**
 * The PSP refunded a payment the app still counts as kept: a refund made in the PSP's own
 * dashboard, or ours whose bookkeeping failed after the PSP said yes. Found by the ledger
 * pass (lib/reconciliation/ledger.ts). The payment becomes `refunded` (guarded, logged);
 * when it was the order's only kept money, the order ends `refunded` too — tickets void,
 * seats back on sale — so no ticket stays valid without money (I4, I2).
 */
import { and, eq, ne } from "drizzle-orm";
import { payments } from "@/db/schema";
import type { Db } from "@/lib/db";
import { endSoldOrder, reopenAfterEnd } from "@/lib/orders/end-sold";
import { transitionPayment, type TransitionCause } from "@/lib/orders/state-machine";

/** What {@link recordRefundAtPsp} did. */
export type PspRefundOutcome = "order_refunded" | "payment_refunded" | "not_captured";

/**
 * Records the PSP's refund of `paymentId`.
 * @param refundedAt when the PSP refunded (its ledger's time).
 * @returns "order_refunded" (the order ended too), "payment_refunded" (another kept
 *   payment still pays the order, or the order was not paid), "not_captured" (nothing to do).
 */
export async function recordRefundAtPsp(db: Db, paymentId: string, refundedAt: Date, cause: TransitionCause): Promise<PspRefundOutcome> {
  const result = await db.transaction(async (tx) => {
    const [payment] = await tx.select().from(payments).where(eq(payments.id, paymentId)).for("update");
    if (!payment || payment.status !== "captured") return { outcome: "not_captured" as const };
    await transitionPayment(tx, payment, "captured", "refunded", cause, { refundedAt });
    const [kept] = await tx.select({ id: payments.id }).from(payments).where(and(eq(payments.orderId, payment.orderId), ne(payments.id, payment.id), eq(payments.status, "captured")));
    if (kept) return { outcome: "payment_refunded" as const };
    const ended = await endSoldOrder(tx, payment.orderId, "refunded", cause);
    return ended ? { outcome: "order_refunded" as const, ended } : { outcome: "payment_refunded" as const };
  });
  if (result.outcome === "order_refunded") await reopenAfterEnd(result.ended);
  return result.outcome;
}
