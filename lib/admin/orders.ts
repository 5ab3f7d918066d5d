/**
 * The organizer's order desk: find an order of one of their shows, read everything about
 * it, and act on it — refund (lib/payments/refund-order.ts), re-issue tickets
 * (lib/tickets/reissue.ts), release a stuck hold (lib/payments/expiry.ts). This module
 * keeps what is the organizer's: every read and action is scoped to the organizer who
 * owns the show (checked here too, not only by the page), every action and every refusal
 * is written to the audit log (`admin_actions`, lib/audit/admin-actions.ts), and the
 * refusals carry messages the organizer can act on. The domain operations themselves live
 * with their concepts and go through the guarded transitions (I8).
 *
 * Refusals are AppErrors ({@link AdminOrderError} for ownership) with a stable `code`.
 * The audit log keeps a fingerprint (SHA-256 prefix) of every replaced ticket code, never
 * the code itself.
 */
import { createHash } from "node:crypto";
import { asc, eq, sql } from "drizzle-orm";
import { events, lineItems, orders, orderTransitions, payments, priceLevels, seats, tickets, user } from "@/db/schema";
import { listOrderAdminActions, recordAdminAction, type AdminActionName, type AdminActionView } from "@/lib/audit/admin-actions";
import type { Db } from "@/lib/db";
import { AppError, type ErrorKind } from "@/lib/errors";
import type { OrderStatus, TransitionCause } from "@/lib/orders/state-machine";
import { closePendingOrder } from "@/lib/payments/expiry";
import { PaymentProviderError } from "@/lib/payments/provider";
import { refundPaidOrder, type RefundOutcome } from "@/lib/payments/refund-order";
import { rotateTicketCodes, type ReissueOutcome } from "@/lib/tickets/reissue";

/** Why an admin read or action was refused. */
export type AdminOrderErrorCode =
  /** No such order (or show). */
  | "not_found"
  /** The order belongs to a show another organizer runs. */
  | "not_your_show"
  /** Refund: the order is not paid. */
  | "nothing_to_refund"
  /** Refund: the order was refunded before. */
  | "already_refunded"
  /** Refund: paid, but no captured payment exists to give back. */
  | "no_payment"
  /** Re-issue: the order is not ticketed, or has no valid tickets. */
  | "no_valid_tickets"
  /** Release: the order is not waiting for payment. */
  | "not_pending"
  /** Release: the hold has not expired yet. */
  | "hold_running"
  /** The PSP did not answer or refused; nothing irreversible happened, try again. */
  | "psp_unavailable"
  /** Something else is changing the order right now (e.g. tickets being issued); try again. */
  | "busy";

const ADMIN_ERROR_KIND: Record<AdminOrderErrorCode, ErrorKind> = {
  not_found: "not_found",
  not_your_show: "forbidden",
  nothing_to_refund: "conflict",
  already_refunded: "conflict",
  no_payment: "conflict",
  no_valid_tickets: "conflict",
  not_pending: "conflict",
  hold_running: "conflict",
  psp_unavailable: "unavailable",
  busy: "conflict",
};

/** A refused admin read or action. `message` is written for the organizer. */
export class AdminOrderError extends AppError {
  declare readonly code: AdminOrderErrorCode;
  constructor(code: AdminOrderErrorCode, message: string) {
    super(ADMIN_ERROR_KIND[code], code, message);
  }
}

// ─── Search ──────────────────────────────────────────────────────────────────

/** One hit of {@link searchOrders}. */
export interface OrderSearchHit {
  id: string;
  status: OrderStatus;
  fanEmail: string;
  /** Seat labels of the order's line items, in seat order. */
  seats: string[];
  totalMinor: number;
  currency: string;
  createdAt: Date;
  /** What the query matched. */
  matchedBy: "order_id" | "email" | "seat" | "latest";
}

/** Most hits returned by {@link searchOrders}. */
export const SEARCH_LIMIT = 50;

/** "Row B · Seat 4" → "row b seat 4": lower case, anything but letters and digits becomes one space. */
export function normalizeSeatQuery(q: string): string {
  return q
    .toLowerCase()
    .replace(/[^0-9a-z]+/g, " ")
    .trim();
}

/** Escapes `%`, `_` and `\` for a LIKE pattern. */
const likeEscape = (q: string) => q.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Throws unless `organizerId` runs `eventId`. */
async function assertOwnsEvent(db: Db, organizerId: string, eventId: string): Promise<typeof events.$inferSelect> {
  const event = await db.query.events.findFirst({ where: eq(events.id, eventId) });
  if (!event) throw new AdminOrderError("not_found", "There is no such show.");
  if (event.organizerId !== organizerId) throw new AdminOrderError("not_your_show", "This show is run by another organizer.");
  return event;
}

/**
 * Finds orders of one show the organizer runs, newest first (at most {@link SEARCH_LIMIT}).
 * The query is read as:
 * - an order id (`ord_…`, or its beginning) → that order;
 * - digits only → the seat with that ordinal (the venue's seat number 0…capacity-1);
 * - anything with `@` → fan email, case-insensitive, partial;
 * - anything else → fan email (partial) or a seat label fragment, compared without
 *   punctuation and on whole words ("Row B · Seat 4", "row b seat 4" and "Seat 4" match
 *   "Sec MAIN · Row B · Seat 4", not "… Seat 40"). Orders that once held the seat match too.
 * An empty query lists the latest orders.
 * @throws {AdminOrderError} "not_found" (no such show), "not_your_show".
 */
export async function searchOrders(db: Db, organizerId: string, eventId: string, query: string): Promise<OrderSearchHit[]> {
  await assertOwnsEvent(db, organizerId, eventId);
  const q = query.trim().slice(0, 200);
  let matchedBy: OrderSearchHit["matchedBy"];
  let where: ReturnType<typeof sql>;
  const seatMatch = (cond: ReturnType<typeof sql>) =>
    sql`exists (select 1 from line_items li2 join seats s2 on s2.id = li2.seat_id where li2.order_id = o.id and ${cond})`;
  if (q === "") {
    matchedBy = "latest";
    where = sql`true`;
  } else if (/^ord_[0-9a-z]*$/i.test(q)) {
    matchedBy = "order_id";
    where = sql`o.id like ${`${likeEscape(q.toLowerCase())}%`}`;
  } else if (/^\d{1,9}$/.test(q)) {
    matchedBy = "seat";
    where = seatMatch(sql`s2.ordinal = ${Number(q)}`);
  } else if (q.includes("@")) {
    matchedBy = "email";
    where = sql`u.email ilike ${`%${likeEscape(q)}%`}`;
  } else {
    matchedBy = "email";
    const seat = normalizeSeatQuery(q);
    const labelCond = seat
      ? seatMatch(sql`trim(regexp_replace(lower(s2.label), '[^0-9a-z]+', ' ', 'g')) ~ ${`(^| )${seat}( |$)`}`)
      : sql`false`;
    where = sql`(u.email ilike ${`%${likeEscape(q)}%`} or ${labelCond})`;
  }
  const rows = (await db.execute(sql`
    select o.id, o.status, u.email as fan_email, o.total_minor, o.currency, o.created_at,
           u.email ilike ${`%${likeEscape(q)}%`} as email_hit,
           coalesce((select array_agg(s.label order by s.ordinal) from line_items li join seats s on s.id = li.seat_id where li.order_id = o.id), '{}') as seats
    from orders o
    join events e on e.id = o.event_id
    join "user" u on u.id = o.fan_id
    where o.event_id = ${eventId} and e.organizer_id = ${organizerId} and ${where}
    order by o.created_at desc, o.id
    limit ${SEARCH_LIMIT}`)) as unknown as {
    id: string;
    status: OrderStatus;
    fan_email: string;
    total_minor: number;
    currency: string;
    created_at: string | Date;
    email_hit: boolean;
    seats: string[];
  }[];
  return rows.map((r) => ({
    id: r.id,
    status: r.status,
    fanEmail: r.fan_email,
    seats: r.seats,
    totalMinor: r.total_minor,
    currency: r.currency,
    createdAt: new Date(r.created_at),
    matchedBy: matchedBy === "email" && !r.email_hit ? "seat" : matchedBy,
  }));
}

// ─── One order ───────────────────────────────────────────────────────────────

/** Everything the admin order page shows. */
export interface AdminOrderView {
  id: string;
  status: OrderStatus;
  holdId: string;
  holdExpiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
  totalMinor: number;
  currency: string;
  event: { id: string; name: string; slug: string; timeZone: string };
  fan: { id: string; email: string; name: string };
  lineItems: { id: number; ordinal: number; label: string; priceLevel: string; priceMinor: number; status: string }[];
  payments: {
    id: string;
    provider: string;
    checkoutSessionId: string;
    providerPaymentId: string | null;
    status: string;
    amountMinor: number;
    currency: string;
    createdAt: Date;
    capturedAt: Date | null;
    refundedAt: Date | null;
  }[];
  tickets: { id: string; seatLabel: string; code: string; status: string; issuedAt: Date; checkedInAt: Date | null }[];
  /** The transition log (I8), oldest first (newest last). */
  transitions: { id: number; entity: string; entityId: string; fromStatus: string | null; toStatus: string; actor: string; reason: string; at: Date }[];
  /** Organizer actions on this order, oldest first. */
  adminActions: AdminActionView[];
  /** Which actions make sense now (the lib re-checks when they run). */
  can: { refund: boolean; reissue: boolean; releaseHold: boolean };
}

/** The show an order belongs to, for the page's ownership check (null for an unknown order). */
export async function orderShow(db: Db, orderId: string): Promise<{ orderId: string; eventId: string } | null> {
  const [row] = await db.select({ orderId: orders.id, eventId: orders.eventId }).from(orders).where(eq(orders.id, orderId));
  return row ?? null;
}

/** Loads the order and checks the organizer runs its show. */
async function ownedOrder(db: Db, organizerId: string, orderId: string) {
  const [row] = await db.select({ order: orders, event: events }).from(orders).innerJoin(events, eq(orders.eventId, events.id)).where(eq(orders.id, orderId));
  if (!row) throw new AdminOrderError("not_found", "There is no such order.");
  if (row.event.organizerId !== organizerId) throw new AdminOrderError("not_your_show", "This order is for a show run by another organizer.");
  return row;
}

/**
 * One order of a show the organizer runs: the order, the fan's email, line items with
 * seat labels, payments, tickets (with their codes), the transition log (newest last)
 * and the audit entries.
 * @throws {AdminOrderError} "not_found", "not_your_show".
 */
export async function getAdminOrder(db: Db, organizerId: string, orderId: string, now = new Date()): Promise<AdminOrderView> {
  const { order, event } = await ownedOrder(db, organizerId, orderId);
  const [fan] = await db.select({ id: user.id, email: user.email, name: user.name }).from(user).where(eq(user.id, order.fanId));
  const items = await db
    .select({ id: lineItems.id, ordinal: seats.ordinal, label: seats.label, priceLevel: priceLevels.name, priceMinor: lineItems.priceMinor, status: lineItems.status })
    .from(lineItems)
    .innerJoin(seats, eq(lineItems.seatId, seats.id))
    .innerJoin(priceLevels, eq(lineItems.priceLevelId, priceLevels.id))
    .where(eq(lineItems.orderId, orderId))
    .orderBy(asc(seats.ordinal), asc(lineItems.id));
  const pays = await db.select().from(payments).where(eq(payments.orderId, orderId)).orderBy(asc(payments.createdAt), asc(payments.id));
  const tix = await db
    .select({ id: tickets.id, seatLabel: seats.label, code: tickets.code, status: tickets.status, issuedAt: tickets.issuedAt, checkedInAt: tickets.checkedInAt })
    .from(tickets)
    .innerJoin(seats, eq(tickets.seatId, seats.id))
    .where(eq(tickets.orderId, orderId))
    .orderBy(asc(seats.ordinal));
  const log = await db
    .select({
      id: orderTransitions.id,
      entity: orderTransitions.entity,
      entityId: orderTransitions.entityId,
      fromStatus: orderTransitions.fromStatus,
      toStatus: orderTransitions.toStatus,
      actor: orderTransitions.actor,
      reason: orderTransitions.reason,
      at: orderTransitions.at,
    })
    .from(orderTransitions)
    .where(eq(orderTransitions.orderId, orderId))
    .orderBy(asc(orderTransitions.at), asc(orderTransitions.id));
  return {
    id: order.id,
    status: order.status,
    holdId: order.holdId,
    holdExpiresAt: order.holdExpiresAt,
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
    totalMinor: order.totalMinor,
    currency: order.currency,
    event: { id: event.id, name: event.name, slug: event.slug, timeZone: event.timeZone },
    fan: fan ?? { id: order.fanId, email: "(deleted account)", name: "" },
    lineItems: items,
    payments: pays.map((p) => ({
      id: p.id,
      provider: p.provider,
      checkoutSessionId: p.checkoutSessionId,
      providerPaymentId: p.providerPaymentId,
      status: p.status,
      amountMinor: p.amountMinor,
      currency: p.currency,
      createdAt: p.createdAt,
      capturedAt: p.capturedAt,
      refundedAt: p.refundedAt,
    })),
    tickets: tix,
    transitions: log,
    adminActions: await listOrderAdminActions(db, orderId),
    can: {
      refund: order.status === "paid" || order.status === "ticketed",
      reissue: order.status === "ticketed" && tix.some((t) => t.status === "valid"),
      releaseHold: order.status === "pending_payment" && order.holdExpiresAt <= now,
    },
  };
}

// ─── Actions ─────────────────────────────────────────────────────────────────

const causeOf = (organizerId: string, reason: string): TransitionCause => ({ actor: `organizer:${organizerId}`, reason });

/** Records a refusal in the audit log, then throws it. */
async function refuse(db: Db, ctx: { organizerId: string; eventId: string; orderId: string }, action: AdminActionName, code: AdminOrderErrorCode, message: string): Promise<never> {
  await recordAdminAction(db, { ...ctx, action, detail: { outcome: "refused", code, message } });
  throw new AdminOrderError(code, message);
}

/** A fingerprint of a ticket code for the audit log (the code itself admits a person). */
const fingerprint = (code: string) => createHash("sha256").update(code).digest("hex").slice(0, 16);

/**
 * Refunds a paid or ticketed order of the organizer's show in full (lib/payments/refund-order.ts:
 * money first, then the order, tickets and seats in one transaction, with the audit entry
 * in that same transaction; a refusal is audited too).
 * @param reason why, for the transition log and the audit log.
 * @throws {AdminOrderError} "not_found", "not_your_show"; {AppError} the refund's refusals
 *   ("already_refunded", "nothing_to_refund", "no_payment", "psp_unavailable", "busy").
 */
export async function refundOrder(db: Db, organizerId: string, orderId: string, reason = "refunded by the organizer"): Promise<RefundOutcome> {
  const { order } = await ownedOrder(db, organizerId, orderId);
  const ctx = { organizerId, eventId: order.eventId, orderId };
  return audited(db, ctx, "refund", () =>
    refundPaidOrder(db, orderId, causeOf(organizerId, reason), {
      withinTransaction: (tx, ended, refunded) =>
        recordAdminAction(tx, { ...ctx, action: "refund", detail: { outcome: "done", reason, from: ended.from, payments: refunded, ticketsVoided: ended.ticketsVoided, seats: ended.seatsReleased } }),
    }),
  );
}

/**
 * Gives every valid ticket of a ticketed order of the organizer's show a new code
 * (lib/tickets/reissue.ts); each replaced code's fingerprint goes to the audit log.
 * @throws {AdminOrderError} "not_found", "not_your_show"; {AppError} "no_valid_tickets".
 */
export async function reissueTickets(db: Db, organizerId: string, orderId: string, reason = "tickets re-issued by the organizer"): Promise<ReissueOutcome> {
  const { order } = await ownedOrder(db, organizerId, orderId);
  const ctx = { organizerId, eventId: order.eventId, orderId };
  return audited(db, ctx, "reissue_tickets", () =>
    rotateTicketCodes(db, orderId, {
      onRotated: (tx, ticket, oldCode, newCode) =>
        recordAdminAction(tx, { ...ctx, ticketId: ticket.id, action: "reissue_tickets", detail: { outcome: "done", reason, seat: ticket.seatLabel, replacedCode: fingerprint(oldCode), newCode: fingerprint(newCode) } }),
      onNothingRotated: (tx, skipped) => recordAdminAction(tx, { ...ctx, action: "reissue_tickets", detail: { outcome: "refused", code: "no_valid_tickets", skipped } }),
    }),
  );
}

/** Runs an organizer's action; a refusal it throws (an AppError) is written to the audit log, then thrown on. */
async function audited<T>(db: Db, ctx: { organizerId: string; eventId: string; orderId: string }, action: AdminActionName, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof AppError) await recordAdminAction(db, { ...ctx, action, detail: { outcome: "refused", code: error.code, message: error.message } });
    throw error;
  }
}

/** What {@link releaseStuckHold} did. */
export interface ReleaseOutcome {
  orderId: string;
  /** "released": the order is cancelled and its seats are back on sale; "paid": the PSP reported a payment, so the order was paid instead. */
  result: "released" | "paid";
}

/**
 * Ends a hold that outlived its expiry (the sweep could not settle it, e.g. the PSP was
 * down): `pending_payment → cancelled` through closePendingOrder, which asks the PSP
 * first and cancels open checkouts — a payment found on the way pays the order instead.
 * A hold still running is refused: it ends by itself, and the fan may be paying.
 * @throws {AdminOrderError} "not_found", "not_your_show", "not_pending", "hold_running", "psp_unavailable".
 */
export async function releaseStuckHold(db: Db, organizerId: string, orderId: string, now = new Date()): Promise<ReleaseOutcome> {
  const { order, event } = await ownedOrder(db, organizerId, orderId);
  const ctx = { organizerId, eventId: order.eventId, orderId };
  if (order.status !== "pending_payment") {
    return refuse(db, ctx, "release_hold", "not_pending", `This order is ${order.status.replace("_", " ")}, not waiting for payment, so there is no hold to release.`);
  }
  if (order.holdExpiresAt > now) {
    const until = new Intl.DateTimeFormat("en-GB", { hour: "2-digit", minute: "2-digit", second: "2-digit", timeZone: event.timeZone }).format(order.holdExpiresAt);
    return refuse(db, ctx, "release_hold", "hold_running", `This hold runs until ${until} and ends by itself; only a hold past its expiry can be released here.`);
  }
  let outcome: Awaited<ReturnType<typeof closePendingOrder>>;
  try {
    outcome = await closePendingOrder(db, orderId, "cancelled", causeOf(organizerId, "stuck hold released by the organizer"));
  } catch (error) {
    if (!(error instanceof PaymentProviderError)) throw error;
    return refuse(db, ctx, "release_hold", "psp_unavailable", "The payment provider did not answer, so the hold was kept (a payment may be in progress). Try again in a moment.");
  }
  if (outcome === "not_pending") return refuse(db, ctx, "release_hold", "not_pending", "This order has just changed and is no longer waiting for payment.");
  const result = outcome === "paid" ? "paid" : "released";
  await recordAdminAction(db, { ...ctx, action: "release_hold", detail: { outcome: "done", result } });
  return { orderId, result };
}
