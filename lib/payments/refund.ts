/**
 * Giving money back: refund one captured payment in full at the PSP (what partial refunds
 * left of it, docs/adr/0020), then record it
 * (guarded `captured → refunded`, transition log). Idempotent: the PSP refund carries an
 * idempotency key per payment, and the state change happens once.
 */
import { and, eq } from "drizzle-orm";
import { payments, refunds } from "@/db/schema";
import type { Db } from "@/lib/db";
import { transitionPayment, type TransitionCause } from "@/lib/orders/state-machine";
import { paymentProvider } from "@/lib/payments";
import { PaymentProviderError } from "@/lib/payments/provider";
import { partialRefundKey } from "@/lib/payments/refund-tickets";

/**
 * Refunds the payment (its amount less its partial refunds) if it is captured.
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
  // Partial refunds came first (docs/adr/0020): one still `requested` may or may not have reached
  // the PSP, so it is sent again under its own key (refunded at most once), then the rest goes.
  const partial = await db.select().from(refunds).where(eq(refunds.paymentId, payment.id));
  for (const r of partial.filter((x) => x.status === "requested")) {
    const { refundId } = await provider.refund(payment.providerPaymentId, { amountMinor: r.amountMinor, currency: r.currency, reason: r.reason, idempotencyKey: partialRefundKey(r.id) });
    await db.update(refunds).set({ status: "succeeded", providerRefundId: refundId, completedAt: new Date() }).where(and(eq(refunds.id, r.id), eq(refunds.status, "requested")));
  }
  const remaining = payment.amountMinor - partial.reduce((n, r) => n + r.amountMinor, 0);
  if (remaining > 0) {
    await provider.refund(payment.providerPaymentId, {
      amountMinor: remaining,
      currency: payment.currency,
      reason: cause.reason,
      idempotencyKey: `refund:${payment.id}`,
    });
  }
  await transitionPayment(db, payment, "captured", "refunded", cause, { refundedAt: new Date() });
  return true;
}
