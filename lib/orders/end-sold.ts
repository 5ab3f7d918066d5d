/**
 * Ending an order whose seats were sold: the money went back (`refunded`), or it never
 * existed at the PSP (`cancelled`, docs/adr/0010). In the caller's transaction, under the
 * order's row lock: the guarded order transition (I8), every valid or used ticket voided,
 * the sold line items `sold → refunded|released`, and the seats `sold → available`. The
 * Redis side follows after the commit ({@link reopenAfterEnd}); if it fails, the seats
 * stay unsellable in Redis only until reconciliation rebuilds the inventory.
 *
 * Used by the organizer's refund (lib/admin/orders.ts), by a refund the PSP reports on its
 * own and by voiding a capture the PSP does not have (both in lib/payments/apply.ts).
 */
import { and, asc, eq, inArray } from "drizzle-orm";
import { orders, seats, tickets } from "@/db/schema";
import type { Db } from "@/lib/db";
import { reopenSoldSeats, type ReopenResult } from "@/lib/inventory/reopen";
import { endSoldSeats } from "@/lib/orders/seats";
import { transitionOrder, transitionTicket, type TransitionCause } from "@/lib/orders/state-machine";

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/** What {@link endSoldOrder} changed. */
export interface EndedOrder {
  /** The order's status before (paid or ticketed). */
  from: "paid" | "ticketed";
  ticketsVoided: number;
  /** Labels of the seats back on sale, in seat order. */
  seatsReleased: string[];
  eventId: string;
  holdId: string;
}

/**
 * Ends a paid or ticketed order inside `tx`. Locks the order row first.
 * @param to `refunded` (money given back) or `cancelled` (no money at the PSP).
 * @returns what changed, or null when the order is not paid/ticketed any more (someone else ended it).
 */
export async function endSoldOrder(tx: Tx, orderId: string, to: "refunded" | "cancelled", cause: TransitionCause): Promise<EndedOrder | null> {
  const [locked] = await tx.select().from(orders).where(eq(orders.id, orderId)).for("update");
  if (!locked || (locked.status !== "paid" && locked.status !== "ticketed")) return null;
  if (!(await transitionOrder(tx, orderId, locked.status, to, cause))) return null;
  let ticketsVoided = 0;
  const tix = await tx.select().from(tickets).where(and(eq(tickets.orderId, orderId), inArray(tickets.status, ["valid", "used"]))).for("update");
  for (const t of tix) if (await transitionTicket(tx, t, t.status, "void", cause)) ticketsVoided++;
  const seatIds = await endSoldSeats(tx, { orderId, eventId: locked.eventId }, to === "refunded" ? "refunded" : "released");
  const seatsReleased = seatIds.length
    ? (await tx.select({ label: seats.label }).from(seats).where(inArray(seats.id, seatIds)).orderBy(asc(seats.ordinal))).map((s) => s.label)
    : [];
  return { from: locked.status, ticketsVoided, seatsReleased, eventId: locked.eventId, holdId: locked.holdId };
}

/**
 * The Redis side after {@link endSoldOrder} committed: the hold's sold seats become free.
 * Never throws: a Redis failure is returned, and reconciliation rebuilds the drift.
 */
export async function reopenAfterEnd(ended: Pick<EndedOrder, "eventId" | "holdId">): Promise<ReopenResult | { result: "error"; message: string }> {
  try {
    return await reopenSoldSeats(ended.eventId, ended.holdId);
  } catch (error) {
    return { result: "error", message: error instanceof Error ? error.message : String(error) };
  }
}
