/**
 * The one writer of seat status (docs/design.md "Data and invariants"): an order's line
 * items (`held → sold | released`, `sold → refunded | released`, `released → sold` for a
 * late payment's re-claim) and the show's inventory rows (`event_seats`: available / held
 * / sold) change here and nowhere else, always together, inside the caller's
 * transaction. I1 is the partial unique index on live line items: a write that would give
 * a seat a second live claim fails the transaction (the caller maps the violation).
 *
 * The Redis side (the fast gate) is lib/inventory/hold.ts; callers keep the two in step.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import { eventSeats, lineItems } from "@/db/schema";
import { lazyQuery, type Db } from "@/lib/db";

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/** One seat an order holds, with its price snapshot (minor units). */
export interface HeldSeat {
  seatId: number;
  priceLevelId: string;
  priceMinor: number;
  currency: string;
}

/**
 * The writes of a new hold: its line items (`held`) and the seats' inventory rows (`held`).
 * Returned unexecuted (drizzle queries run when awaited), so the hold path can send them in
 * one pipelined round trip right after the order row they reference.
 */
export function holdSeatsQueries(tx: Tx, order: { orderId: string; eventId: string }, held: HeldSeat[]) {
  return [
    tx.insert(lineItems).values(held.map((s) => ({ orderId: order.orderId, eventId: order.eventId, seatId: s.seatId, priceLevelId: s.priceLevelId, priceMinor: s.priceMinor, currency: s.currency }))),
    tx
      .update(eventSeats)
      .set({ status: "held" })
      .where(and(eq(eventSeats.eventId, order.eventId), inArray(eventSeats.seatId, held.map((s) => s.seatId)))),
  ] as const;
}

/**
 * Moves the order's line items `from → to` and the seats' inventory rows to `seat` (only rows
 * in `seatFrom`, when given), in one statement (two data-modifying CTEs: one round trip while
 * the caller holds the order's lock); starts when awaited (lib/db.ts `lazyQuery`).
 * @returns the seat ids whose line items moved.
 */
function move(
  tx: Tx,
  order: { orderId: string; eventId: string },
  from: "held" | "sold" | "released",
  to: "sold" | "released" | "refunded",
  seat: "sold" | "available",
  seatFrom?: "held" | "sold",
): PromiseLike<number[]> {
  const statement = sql`
    with moved as (
      update ${lineItems} set status = ${to} where order_id = ${order.orderId} and status = ${from} returning seat_id
    ), seated as (
      update ${eventSeats} set status = ${seat}
      where event_id = ${order.eventId} and seat_id in (select seat_id from moved)${seatFrom ? sql` and status = ${seatFrom}` : sql``}
    )
    select seat_id from moved`;
  return lazyQuery(() => tx.execute(statement).then((rows) => (rows as unknown as { seat_id: number }[]).map((m) => Number(m.seat_id))));
}

/** Payment arrived: the order's held seats become sold. @returns the seat ids. */
export const sellHeldSeats = (tx: Tx, order: { orderId: string; eventId: string }) => move(tx, order, "held", "sold", "sold");

/**
 * A late payment re-claims the order's released seats: `released → sold`. The partial
 * unique index refuses (fails the transaction) when any is live in another order.
 * @returns the seat ids.
 */
export const sellReleasedSeats = (tx: Tx, order: { orderId: string; eventId: string }) => move(tx, order, "released", "sold", "sold");

/** A hold ends without a sale (expiry, given back): held seats back on sale. @returns the seat ids. */
export const releaseHeldSeats = (tx: Tx, order: { orderId: string; eventId: string }) => move(tx, order, "held", "released", "available", "held");

/**
 * A sold order ends: refunded (`sold → refunded`) or voided because the PSP had no money
 * for it (`sold → released`); either way the seats go back on sale. @returns the seat ids.
 */
export const endSoldSeats = (tx: Tx, order: { orderId: string; eventId: string }, to: "refunded" | "released") => move(tx, order, "sold", to, "available", "sold");

/**
 * Some of a sold order's seats are refunded (a partial refund, docs/adr/0020): those line
 * items `sold → refunded` and their inventory rows `sold → available`, in one statement.
 * @returns the seat ids that moved (line items not sold any more are left alone).
 */
export function refundSoldLineItems(tx: Tx, order: { orderId: string; eventId: string }, lineItemIds: number[]): PromiseLike<number[]> {
  const statement = sql`
    with moved as (
      update ${lineItems} set status = 'refunded'
      where order_id = ${order.orderId} and status = 'sold' and id in (${sql.join(lineItemIds.map((id) => sql`${id}`), sql`, `)})
      returning seat_id
    ), seated as (
      update ${eventSeats} set status = 'available'
      where event_id = ${order.eventId} and status = 'sold' and seat_id in (select seat_id from moved)
    )
    select seat_id from moved`;
  return lazyQuery(() => tx.execute(statement).then((rows) => (rows as unknown as { seat_id: number }[]).map((m) => Number(m.seat_id))));
}
