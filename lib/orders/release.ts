/**
 * Ending a hold without a sale: the fan cancels, or the hold expires. Postgres first
 * (guarded `pending_payment → expired|cancelled`, line items released, inventory back
 * to available), then the Redis hold is released by its id. If the Redis step fails,
 * the seat stays unsellable in Redis only until the next sweep or rebuild — never sold twice.
 */
import { eq } from "drizzle-orm";
import { orders } from "@/db/schema";
import type { Db } from "@/lib/db";
import { releaseInRedis } from "@/lib/inventory/hold";
import { releaseHeldSeats } from "@/lib/orders/seats";
import { transitionOrder, type TransitionCause } from "@/lib/orders/state-machine";

/**
 * Releases a pending order's seats.
 * @returns true when this call ended the order; false when it was no longer pending (paid, already expired…).
 */
export async function releaseOrder(db: Db, orderId: string, to: "expired" | "cancelled", cause: TransitionCause): Promise<boolean> {
  const order = await db.query.orders.findFirst({ where: eq(orders.id, orderId) });
  if (!order) return false;
  const moved = await db.transaction(async (tx) => {
    if (!(await transitionOrder(tx, orderId, "pending_payment", to, cause))) return false;
    await releaseHeldSeats(tx, { orderId, eventId: order.eventId });
    return true;
  });
  if (moved) await releaseInRedis(order.eventId, order.holdId);
  return moved;
}
