/**
 * Putting sold seats back on sale in Redis after a refund. Postgres is changed first
 * (lib/admin/orders: order refunded, line items refunded, inventory available); this
 * frees the Redis side: every seat still owned by `s:<holdId>` becomes free again, the
 * fan's live-seat count (I6) drops by as many, and the hold record goes. Seats that no
 * longer belong to this hold are left alone, so running it twice is harmless.
 *
 * It runs the shared release script (./lua.ts RELEASE_HOLD) asking for a *sold* hold, so
 * an expiry (which asks for a *held* one) can never free a sold seat; only refunds call this.
 * If Redis is unreachable the seats stay unsellable in Redis only until reconciliation
 * rebuilds the inventory from Postgres — never sold twice.
 */
import { freeHoldSeats } from "@/lib/inventory/hold";

/** What {@link reopenSoldSeats} did. */
export type ReopenResult =
  /** The seats still owned by the hold are free again (count). */
  | { result: "reopened"; seats: number }
  /** No such hold in Redis (already reopened, or never confirmed there): nothing to do. */
  | { result: "unknown" }
  /** The hold is still a hold, not sold: refused (a hold ends through release, not here). */
  | { result: "not_sold" };

/**
 * Puts a refunded order's seats back on sale in Redis: frees every seat owned by
 * `s:<holdId>`, decrements the fan's live-seat count, deletes the hold record. Idempotent.
 * @param eventId the show; @param holdId the order's hold id (`orders.hold_id`).
 * @throws Redis errors (callers report them; reconciliation repairs the drift).
 */
export async function reopenSoldSeats(eventId: string, holdId: string): Promise<ReopenResult> {
  const r = await freeHoldSeats(eventId, holdId, "sold");
  if (r.result === "released") return { result: "reopened", seats: r.seats };
  return r.result === "wrong_status" ? { result: "not_sold" } : { result: "unknown" };
}
