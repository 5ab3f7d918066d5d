/**
 * Ticket issuance: one ticket per sold line item, each with a signed code (./codes.ts)
 * that a door scanner verifies offline and a short code a person can type (./short-code.ts);
 * the fan's confirmation e-mail is queued in the same transaction (lib/mail/outbox.ts). Idempotent: running it twice, or from a
 * webhook and a browser return at once, yields one set of tickets (the unique index on
 * tickets.line_item_id, and the guarded `paid → ticketed` transition).
 */
import { and, asc, eq, sql } from "drizzle-orm";
import { lineItems, orders, seats, tickets } from "@/db/schema";
import type { Db } from "@/lib/db";
import { env } from "@/lib/env";
import { newId } from "@/lib/ids";
import { transitionOrder, type TransitionCause } from "@/lib/orders/state-machine";
import { enqueueEmailToUser } from "@/lib/mail/outbox";
import { enqueue } from "@/lib/outbox";
import { signTicketCode } from "@/lib/tickets/codes";
import { newShortCode } from "@/lib/tickets/short-code";

/**
 * Issues the tickets of a paid order and moves it to `ticketed`.
 * @returns the number of tickets the order has afterwards, or 0 when the order is not paid/ticketed.
 * @throws database errors (the caller or a job retries; nothing half-done survives a rollback).
 */
export async function issueTickets(db: Db, orderId: string, cause: TransitionCause): Promise<number> {
  // The two reads at once (each on a connection of the pool).
  const [order, items] = await Promise.all([
    db.query.orders.findFirst({ where: eq(orders.id, orderId) }),
    db
      .select({ id: lineItems.id, seatId: lineItems.seatId, label: seats.label })
      .from(lineItems)
      .innerJoin(seats, eq(lineItems.seatId, seats.id))
      .where(and(eq(lineItems.orderId, orderId), eq(lineItems.status, "sold")))
      .orderBy(asc(lineItems.id)),
  ]);
  if (!order || (order.status !== "paid" && order.status !== "ticketed")) return 0;
  if (order.status === "ticketed") return items.length;
  const secret = env().TICKET_SIGNING_SECRET;
  const rows = await Promise.all(
    items.map(async (item) => {
      const id = newId("tkt");
      const code = await signTicketCode({ ticketId: id, eventId: order.eventId, seatLabel: item.label, orderId }, secret);
      return { id, orderId, lineItemId: item.id, eventId: order.eventId, seatId: item.seatId, code, shortCode: newShortCode() };
    }),
  );
  await db.transaction(async (tx) => {
    // Fail fast instead of queueing behind a lock: a job or the sweep retries later.
    // The three statements pipelined (one round trip), in this order.
    const [, , ticketed] = await Promise.all([
      tx.execute(sql`set local lock_timeout = '2s'`),
      rows.length > 0 ? tx.insert(tickets).values(rows).onConflictDoNothing({ target: tickets.lineItemId }) : undefined,
      transitionOrder(tx, orderId, "paid", "ticketed", cause),
    ]);
    if (ticketed) {
      // The job event and the fan's confirmation with the tickets, with the change or not at all.
      await Promise.all([
        enqueue(tx, "order/ticketed", { orderId, eventId: order.eventId }, `order/ticketed:${orderId}`),
        enqueueEmailToUser(tx, "order_confirmation", { orderId }, order.fanId, `order_confirmation:${orderId}`),
      ]);
    }
  });
  return items.length;
}
