/**
 * The order, payment and ticket state machines (docs/design.md, "Order states", I8).
 *
 * Every state change is a conditional update from an expected state
 * (`UPDATE … WHERE id = $1 AND status = $expected`), checked by rows affected, and
 * appended to `order_transitions` (who / what / when / why) in the same transaction.
 * A change the tables below do not allow throws {@link ForbiddenTransitionError} before
 * touching the database; a change whose expected state no longer holds (someone else
 * got there first) returns false and writes nothing.
 *
 * The update and its log row are one statement (a data-modifying CTE: the log row is
 * inserted only for the row the update changed), so a transition costs one round trip
 * while the caller holds its locks — on the capture path, under an on-sale's load, each
 * round trip is an event-loop turn of a busy process with the order row locked.
 */
import { AppError } from "@/lib/errors";
import { and, eq, sql, type SQLWrapper } from "drizzle-orm";
import { orders, orderTransitions, payments, tickets } from "@/db/schema";
import { lazyQuery, type Db } from "@/lib/db";

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
 * Allowed payment transitions. `captured → cancelled`: a capture held without the PSP's
 * confirmation that the PSP's own records do not have (docs/adr/0010, 0023); should the PSP
 * capture it after all, `cancelled → captured` applies it as a late payment.
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
export function transitionOrder(tx: Tx, orderId: string, from: OrderStatus, to: OrderStatus, cause: TransitionCause): PromiseLike<boolean> {
  if (!canTransitionOrder(from, to)) return Promise.reject(new ForbiddenTransitionError("order", from, to));
  const update = tx
    .update(orders)
    .set({ status: to, updatedAt: sql`now()` })
    .where(and(eq(orders.id, orderId), eq(orders.status, from)))
    .returning({ id: orders.id });
  return changeAndLog(tx, update, { orderId, entity: "order", from, to, cause });
}

/**
 * Runs `update` (a guarded update of one row, `returning { id }`) and appends its transition
 * to the log in the same statement; starts when awaited (lib/db.ts `lazyQuery`), so it can be
 * pipelined with other queries in order. @returns true when the update changed the row.
 */
function changeAndLog(tx: Tx, update: SQLWrapper, log: { orderId: string; entity: "order" | "payment" | "ticket"; from: string; to: string; cause: TransitionCause }): PromiseLike<boolean> {
  const statement = sql`
    with changed as (${update.getSQL()})
    insert into ${orderTransitions} (order_id, entity, entity_id, from_status, to_status, actor, reason)
    select ${log.orderId}, ${log.entity}, changed.id, ${log.from}, ${log.to}, ${log.cause.actor}, ${log.cause.reason} from changed
    returning 1 as logged`;
  return lazyQuery(() => tx.execute(statement).then((logged) => logged.length === 1));
}

/**
 * Moves a payment from `from` to `to` if it is still in `from`; `extra` columns are set in the same update.
 * @returns true when this call made the change. @throws {ForbiddenTransitionError}
 */
export function transitionPayment(
  tx: Tx,
  payment: { id: string; orderId: string },
  from: PaymentStatus,
  to: PaymentStatus,
  cause: TransitionCause,
  extra: Partial<Pick<typeof payments.$inferInsert, "providerPaymentId" | "capturedAt" | "refundedAt" | "ledgerConfirmedAt">> = {},
): PromiseLike<boolean> {
  if (!PAYMENT_TRANSITIONS[from].includes(to)) return Promise.reject(new ForbiddenTransitionError("payment", from, to));
  const update = tx
    .update(payments)
    .set({ status: to, updatedAt: sql`now()`, ...extra })
    .where(and(eq(payments.id, payment.id), eq(payments.status, from)))
    .returning({ id: payments.id });
  return changeAndLog(tx, update, { orderId: payment.orderId, entity: "payment", from, to, cause });
}

/**
 * Moves a ticket from `from` to `to` if it is still in `from`.
 * @returns true when this call made the change. @throws {ForbiddenTransitionError}
 */
export function transitionTicket(
  tx: Tx,
  ticket: { id: string; orderId: string },
  from: TicketStatus,
  to: TicketStatus,
  cause: TransitionCause,
  extra: Partial<Pick<typeof tickets.$inferInsert, "checkedInAt">> = {},
): PromiseLike<boolean> {
  if (!TICKET_TRANSITIONS[from].includes(to)) return Promise.reject(new ForbiddenTransitionError("ticket", from, to));
  const update = tx
    .update(tickets)
    .set({ status: to, ...extra })
    .where(and(eq(tickets.id, ticket.id), eq(tickets.status, from)))
    .returning({ id: tickets.id });
  return changeAndLog(tx, update, { orderId: ticket.orderId, entity: "ticket", from, to, cause });
}
