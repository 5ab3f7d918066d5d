/**
 * A capture the app believed (from a signed webhook) that the PSP's own records do not
 * have: no money exists behind the order's tickets. Found by the ledger pass
 * (lib/reconciliation/ledger.ts) after an active query confirms the PSP has no capture.
 * In one transaction: the payment `captured → cancelled`, the order `paid|ticketed →
 * cancelled`, its tickets void and its seats back on sale (lib/orders/end-sold.ts); then
 * the checkout is cancelled at the PSP so it can no longer be paid, and Redis frees the
 * seats. Should the PSP capture it after all, that is a late payment on a cancelled order:
 * refunded (./late-payment.ts).
 */
import { and, eq, ne } from "drizzle-orm";
import { payments } from "@/db/schema";
import type { Db } from "@/lib/db";
import { endSoldOrder, reopenAfterEnd } from "@/lib/orders/end-sold";
import { transitionPayment, type TransitionCause } from "@/lib/orders/state-machine";
import { paymentProvider } from "@/lib/payments";

/** What {@link voidUnbackedCapture} did. */
export interface VoidOutcome {
  /** False when the payment was no longer captured (nothing changed). */
  voided: boolean;
  /** True when the order ended too (no other kept payment paid it). */
  orderCancelled: boolean;
  ticketsVoided: number;
}

/**
 * Voids a captured payment the PSP does not have.
 * @throws database errors (nothing changed; the next pass retries).
 */
export async function voidUnbackedCapture(db: Db, paymentId: string, cause: TransitionCause): Promise<VoidOutcome> {
  const result = await db.transaction(async (tx) => {
    const [payment] = await tx.select().from(payments).where(eq(payments.id, paymentId)).for("update");
    if (!payment || payment.status !== "captured") return null;
    await transitionPayment(tx, payment, "captured", "cancelled", cause);
    const [kept] = await tx.select({ id: payments.id }).from(payments).where(and(eq(payments.orderId, payment.orderId), ne(payments.id, payment.id), eq(payments.status, "captured")));
    const ended = kept ? null : await endSoldOrder(tx, payment.orderId, "cancelled", cause);
    return { payment, ended };
  });
  if (!result) return { voided: false, orderCancelled: false, ticketsVoided: 0 };
  if (result.ended) await reopenAfterEnd(result.ended);
  // The checkout may still be open at the PSP (a forged capture): close it. Best effort.
  await paymentProvider(result.payment.provider)?.cancelCheckout(result.payment.checkoutSessionId).catch(() => undefined);
  return { voided: true, orderCancelled: result.ended !== null, ticketsVoided: result.ended?.ticketsVoided ?? 0 };
}
