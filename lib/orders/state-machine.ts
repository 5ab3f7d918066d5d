/**
 * The order, payment and ticket state machines (docs/design.md, "Order states", I8).
 *
 * Every state change is a conditional update from an expected state
 * (`UPDATE … WHERE id = $1 AND status = $expected`), checked by rows affected, and
 * appended to `order_transitions` (who / what / when / why) in the same transaction.
 * A change the tables below do not allow throws {@link ForbiddenTransitionError} before
 * touching the database; a change whose expected state no longer holds (someone else
 * got there first) returns false and writes nothing.
 */
import { AppError } from "@/lib/errors";
import { and, eq, sql } from "drizzle-orm";
import { orders, orderTransitions, payments, tickets } from "@/db/schema";
import type { Db } from "@/lib/db";

export type OrderStatus = (typeof orders.$inferSelect)["status"];
export type PaymentStatus = (typeof payments.$inferSelect)["status"];
export type TicketStatus = (typeof tickets.$inferSelect)["status"];

/**
 * Allowed order transitions. `expired → paid` is a late payment whose seats could be
 * re-claimed. `paid | ticketed → cancelled`: the PSP has no record of the capture the
 * order was paid with (reconciliation voids it, docs/adr/0010).
 */
export const ORDER_TRANSITIONS: Record<OrderStatus, readonly OrderStatus[]> = {
  pending_payment: ["paid", "expired", "cancelled"],
  paid: ["ticketed", "refunded", "cancelled"],
  ticketed: ["refunded", "cancelled"],
  expired: ["paid"],
  cancelled: [],
  refunded: [],
};

/**
 * Allowed payment transitions. `captured → cancelled`: a capture believed from a webhook
 * that the PSP's own records do not have (docs/adr/0010); should the PSP capture it after
 * all, `cancelled → captured` applies it as a late payment.
 */
const PAYMENT_TRANSITIONS: Record<PaymentStatus, readonly PaymentStatus[]> = {
  created: ["pending", "captured", "declined", "cancelled"],
  pending: ["captured", "declined", "cancelled"],
  captured: ["refunded", "cancelled"],
  declined: ["captured", "cancelled"],
  cancelled: ["captured"],
  refunded: [],
};

/** Allowed ticket transitions. */
const TICKET_TRANSITIONS: Record<TicketStatus, readonly TicketStatus[]> = {
  valid: ["used", "void"],
  used: ["void"],
  void: [],
};

/** A transition the state machine does not allow (a programming error, not a race). */
export class ForbiddenTransitionError extends AppError {
  constructor(entity: string, from: string, to: string) {
    super("internal", "forbidden_transition", `${entity}: ${from} → ${to} is not an allowed transition`);
  }
}

/** Who did it and why: stored in the transition log. */
export interface TransitionCause {
  /** A user id, "webhook:<provider>", "job:<name>", "fan:<id>", "system". */
  actor: string;
  reason: string;
}

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0] | Db;

/** True when `from → to` is allowed for the order. */
const canTransitionOrder = (from: OrderStatus, to: OrderStatus) => ORDER_TRANSITIONS[from].includes(to);

/**
 * Moves an order from `from` to `to` if it is still in `from`.
 * @returns true when this call made the change (and logged it); false when the order was not in `from`.
 * @throws {ForbiddenTransitionError}
 */
export async function transitionOrder(tx: Tx, orderId: string, from: OrderStatus, to: OrderStatus, cause: TransitionCause): Promise<boolean> {
  if (!canTransitionOrder(from, to)) throw new ForbiddenTransitionError("order", from, to);
  const changed = await tx
    .update(orders)
    .set({ status: to, updatedAt: sql`now()` })
    .where(and(eq(orders.id, orderId), eq(orders.status, from)))
    .returning({ id: orders.id });
  if (changed.length !== 1) return false;
  await tx.insert(orderTransitions).values({ orderId, entity: "order", entityId: orderId, fromStatus: from, toStatus: to, ...cause });
  return true;
}

/**
 * Moves a payment from `from` to `to` if it is still in `from`; `extra` columns are set in the same update.
 * @returns true when this call made the change. @throws {ForbiddenTransitionError}
 */
export async function transitionPayment(
  tx: Tx,
  payment: { id: string; orderId: string },
  from: PaymentStatus,
  to: PaymentStatus,
  cause: TransitionCause,
  extra: Partial<Pick<typeof payments.$inferInsert, "providerPaymentId" | "capturedAt" | "refundedAt" | "ledgerConfirmedAt">> = {},
): Promise<boolean> {
  if (!PAYMENT_TRANSITIONS[from].includes(to)) throw new ForbiddenTransitionError("payment", from, to);
  const changed = await tx
    .update(payments)
    .set({ status: to, updatedAt: sql`now()`, ...extra })
    .where(and(eq(payments.id, payment.id), eq(payments.status, from)))
    .returning({ id: payments.id });
  if (changed.length !== 1) return false;
  await tx.insert(orderTransitions).values({ orderId: payment.orderId, entity: "payment", entityId: payment.id, fromStatus: from, toStatus: to, ...cause });
  return true;
}

/**
 * Moves a ticket from `from` to `to` if it is still in `from`.
 * @returns true when this call made the change. @throws {ForbiddenTransitionError}
 */
export async function transitionTicket(
  tx: Tx,
  ticket: { id: string; orderId: string },
  from: TicketStatus,
  to: TicketStatus,
  cause: TransitionCause,
  extra: Partial<Pick<typeof tickets.$inferInsert, "checkedInAt">> = {},
): Promise<boolean> {
  if (!TICKET_TRANSITIONS[from].includes(to)) throw new ForbiddenTransitionError("ticket", from, to);
  const changed = await tx
    .update(tickets)
    .set({ status: to, ...extra })
    .where(and(eq(tickets.id, ticket.id), eq(tickets.status, from)))
    .returning({ id: tickets.id });
  if (changed.length !== 1) return false;
  await tx.insert(orderTransitions).values({ orderId: ticket.orderId, entity: "ticket", entityId: ticket.id, fromStatus: from, toStatus: to, ...cause });
  return true;
}
