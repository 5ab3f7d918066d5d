/**
 * Active query: ask the PSP about an order's latest checkout and apply the answer.
 * Used when the fan's browser returns from the PSP (racing the webhook) and by the
 * self-repair jobs when a webhook is lost. Idempotent.
 */
import { desc, eq } from "drizzle-orm";
import { payments } from "@/db/schema";
import type { Db } from "@/lib/db";
import { getFanOrder, type FanOrderView } from "@/lib/orders/queries";
import type { TransitionCause } from "@/lib/orders/state-machine";
import { paymentProvider } from "@/lib/payments";
import { askPsp, type Applied } from "@/lib/payments/apply";

/**
 * Asks the PSP about the order's latest payment and applies its answer (lib/payments/apply.ts).
 * @returns what was applied, or "none" (no payment, or its provider is not configured here).
 * @throws {PaymentProviderError} when the PSP cannot be asked (callers retry later).
 */
export async function syncOrderPayment(db: Db, orderId: string, cause: TransitionCause): Promise<Applied | "none"> {
  const payment = await db.query.payments.findFirst({ where: eq(payments.orderId, orderId), orderBy: desc(payments.createdAt) });
  if (!payment || !paymentProvider(payment.provider)) return "none";
  return (await askPsp(db, payment, cause)).applied;
}

/**
 * The fan is back from the PSP's payment page (order page or API with `?checkout=`): ask
 * the PSP now when its answer can change something — a pending order with an open
 * checkout, or an order that ended before the payment was seen (a late payment) — and
 * not otherwise, so reloading the page does not call the PSP again and again. Failures
 * are logged, not thrown: the webhook or a sweep settles the order anyway.
 * @param order the fan's order as {@link getFanOrder} read it (id, status, latest payment).
 * @returns true when the PSP was asked (the caller re-reads the order).
 */
export async function syncOnReturn(db: Db, order: { id: string; status: string; payment: { status: string } | null }, fanId: string): Promise<boolean> {
  const open = order.payment?.status === "created" || order.payment?.status === "pending";
  const mayBeLate = (order.status === "expired" || order.status === "cancelled") && order.payment !== null && order.payment.status !== "refunded";
  if (!(order.status === "pending_payment" ? open : mayBeLate)) return false;
  await syncOrderPayment(db, order.id, { actor: `return:${fanId}`, reason: "fan returned from the payment page" }).catch((error: unknown) => {
    console.warn("active PSP query on return failed; the webhook or a sweep will settle the order", error);
  });
  return true;
}

/**
 * The fan's order as the order page and `GET /api/orders/:id` show it: when the fan is
 * `returning` from the PSP's page, the PSP is asked first ({@link syncOnReturn}) and the
 * order read again. @returns null for an unknown order or another fan's.
 */
export async function fanOrderView(db: Db, orderId: string, fanId: string, returning: boolean): Promise<FanOrderView | null> {
  const order = await getFanOrder(db, orderId, fanId);
  if (!order || !returning || !(await syncOnReturn(db, order, fanId))) return order;
  return getFanOrder(db, orderId, fanId);
}
