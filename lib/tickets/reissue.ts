/**
 * Re-issuing tickets (docs/adr/0005): every valid ticket of a ticketed order gets a new
 * signed code in place, and the old code stops admitting at once — check-in
 * (./check-in.ts) requires the scanned code to equal the ticket's current one. Used and
 * void tickets are left as they are (re-issuing a used one would let the seat in twice).
 *
 * Why in place: `tickets.line_item_id` is unique over all rows, void ones included, so
 * "void the old row, insert a new one" is impossible without changing that index. The
 * change is guarded by `status = 'valid' AND code = <old>`.
 */
import { and, asc, eq, sql } from "drizzle-orm";
import { orders, seats, tickets } from "@/db/schema";
import type { Db } from "@/lib/db";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { enqueueEmailToUser } from "@/lib/mail/outbox";
import { signTicketCode } from "@/lib/tickets/codes";
import { newShortCode } from "@/lib/tickets/short-code";

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/** What {@link rotateTicketCodes} did. */
export interface ReissueOutcome {
  orderId: string;
  /** Tickets with a new code. */
  reissued: { ticketId: string; seatLabel: string }[];
  /** Valid tickets that changed under us (checked in, voided) and were left alone. */
  skipped: string[];
}

/**
 * Gives every valid ticket of the order a new code.
 * @param opts.onRotated runs inside the transaction for each rotated ticket (an audit entry), with the old and new codes.
 * @param opts.onNothingRotated runs inside the transaction when every ticket changed under us.
 * @throws {AppError} 409 `no_valid_tickets` for an order that is not ticketed or has no valid ticket; 404 `no_such_order`.
 */
export async function rotateTicketCodes(
  db: Db,
  orderId: string,
  opts: {
    onRotated?: (tx: Tx, ticket: { id: string; seatLabel: string }, oldCode: string, newCode: string) => Promise<void>;
    onNothingRotated?: (tx: Tx, skipped: string[]) => Promise<void>;
  } = {},
): Promise<ReissueOutcome> {
  const order = await db.query.orders.findFirst({ where: eq(orders.id, orderId) });
  if (!order) throw new AppError("not_found", "no_such_order", "There is no such order.");
  if (order.status !== "ticketed") throw new AppError("conflict", "no_valid_tickets", `This order is ${order.status.replace("_", " ")}, so it has no tickets to re-issue.`);
  const current = await db
    .select({ id: tickets.id, code: tickets.code, seatLabel: seats.label })
    .from(tickets)
    .innerJoin(seats, eq(tickets.seatId, seats.id))
    .where(and(eq(tickets.orderId, orderId), eq(tickets.status, "valid")))
    .orderBy(asc(seats.ordinal));
  if (current.length === 0) throw new AppError("conflict", "no_valid_tickets", "This order has no valid tickets to re-issue (used tickets stay as they are).");

  const secret = env().TICKET_SIGNING_SECRET;
  const fresh = new Map<string, string>();
  for (const t of current) {
    // Ed25519 is deterministic and `iat` has second precision: a code signed in the same
    // second as the old one would be the old one. Wait for the next second in that case.
    let code = await signTicketCode({ ticketId: t.id, eventId: order.eventId, seatLabel: t.seatLabel, orderId }, secret);
    while (code === t.code) {
      await new Promise((r) => setTimeout(r, 1_005 - (Date.now() % 1_000)));
      code = await signTicketCode({ ticketId: t.id, eventId: order.eventId, seatLabel: t.seatLabel, orderId }, secret);
    }
    fresh.set(t.id, code);
  }

  return db.transaction(async (tx) => {
    const reissued: ReissueOutcome["reissued"] = [];
    const skipped: string[] = [];
    for (const t of current) {
      const changed = await tx
        .update(tickets)
        // The short code changes with the signed one: a leaked short code stops working too.
        .set({ code: fresh.get(t.id)!, shortCode: newShortCode(), issuedAt: sql`now()` })
        .where(and(eq(tickets.id, t.id), eq(tickets.status, "valid"), eq(tickets.code, t.code)))
        .returning({ id: tickets.id });
      if (changed.length !== 1) {
        skipped.push(t.id);
        continue;
      }
      reissued.push({ ticketId: t.id, seatLabel: t.seatLabel });
      await opts.onRotated?.(tx, { id: t.id, seatLabel: t.seatLabel }, t.code, fresh.get(t.id)!);
    }
    if (reissued.length === 0) await opts.onNothingRotated?.(tx, skipped);
    // The fan learns of the new codes (one message per re-issue: the key carries the new codes' time).
    else await enqueueEmailToUser(tx, "tickets_reissued", { orderId }, order.fanId, `tickets_reissued:${orderId}:${Date.now()}`);
    return { orderId, reissued, skipped };
  });
}
