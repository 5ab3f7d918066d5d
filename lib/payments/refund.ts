/**
 * Giving money back: refund one captured payment in full at the PSP, then record it
 * (guarded `captured → refunded`, transition log). Idempotent: the PSP refund carries an
 * idempotency key per payment, and the state change happens once.
 */
import { eq } from "drizzle-orm";
import { payments } from "@/db/schema";
import type { Db } from "@/lib/db";
import { transitionPayment, type TransitionCause } from "@/lib/orders/state-machine";
import { paymentProvider } from "@/lib/payments";
import { PaymentProviderError } from "@/lib/payments/provider";

/**
 * Refunds the payment (full amount) if it is captured.
 * @returns true when it is refunded afterwards (now or before).
 * @throws {PaymentProviderError} when the PSP refuses or cannot be reached (callers/sweeps retry).
 */
export async function refundPayment(db: Db, paymentId: string, cause: TransitionCause): Promise<boolean> {
  const payment = await db.query.payments.findFirst({ where: eq(payments.id, paymentId) });
  if (!payment) return false;
  if (payment.status === "refunded") return true;
  if (payment.status !== "captured" || !payment.providerPaymentId) return false;
  const provider = paymentProvider(payment.provider);
  if (!provider) throw new PaymentProviderError(`Payment provider ${payment.provider} is not configured`, false);
  await provider.refund(payment.providerPaymentId, {
    amountMinor: payment.amountMinor,
    currency: payment.currency,
    reason: cause.reason,
    idempotencyKey: `refund:${payment.id}`,
  });
  await transitionPayment(db, payment, "captured", "refunded", cause, { refundedAt: new Date() });
  return true;
}
