/** The lock order of payments (pretix keeps its locking rule in one place too: services/locking.py). */
import { eq } from "drizzle-orm";
import { orders, payments } from "@/db/schema";
import type { Db } from "@/lib/db";

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/**
 * Locks a payment and its order for the rest of the caller's transaction, always in the
 * same order — the order row first, then the payment — as every path that changes both
 * does, so two of them wait for each other instead of deadlocking, and a decision that
 * depends on the order's other payments ("is another capture kept?") is taken alone.
 */
export async function lockPayment(tx: Tx, paymentId: string) {
  const [ref] = await tx.select({ orderId: payments.orderId }).from(payments).where(eq(payments.id, paymentId));
  if (!ref) return { order: undefined, payment: undefined };
  const [order] = await tx.select().from(orders).where(eq(orders.id, ref.orderId)).for("update");
  const [payment] = await tx.select().from(payments).where(eq(payments.id, paymentId)).for("update");
  return { order, payment };
}
