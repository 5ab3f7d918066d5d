/**
 * The organizer's order desk (issue 6, "Orders"): find an order of one of their shows,
 * read everything about it, and act on it — refund, re-issue tickets, release a stuck
 * hold. Every read and action is scoped to the organizer who owns the show (checked
 * here too, not only by the page), every state change goes through the guarded
 * transitions of lib/orders/state-machine (I8), and every action is written to the
 * audit log (`admin_actions`, ./audit.ts) in the same request.
 *
 * Refusals are {@link AdminOrderError}s with a `code` for code paths and a `message`
 * that can be shown to the organizer as is.
 *
 * Re-issuing tickets (decision): `tickets.line_item_id` is unique over all rows, void
 * ones included, so "void the old row, insert a new one" is impossible without changing
 * that index. Instead the code is rotated in place: a new signed code (new `iat`)
 * replaces the old one in the same row, guarded by `status = 'valid' AND code = <old>`.
 * The old code stops admitting because check-in (lib/tickets/check-in) requires the
 * scanned code to equal the ticket's current code ("replaced"). The audit log keeps a
 * fingerprint (SHA-256 prefix) of every replaced code. Used tickets are not re-issued
 * (that would let the same seat in twice).
 */
import { createHash } from "node:crypto";
import { and, asc, eq, sql } from "drizzle-orm";
import { events, lineItems, orders, orderTransitions, payments, priceLevels, seats, tickets, user } from "@/db/schema";
import { listOrderAdminActions, recordAdminAction, type AdminActionName, type AdminActionView } from "@/lib/admin/audit";
import type { Db } from "@/lib/db";
import { env } from "@/lib/env";
import type { ReopenResult } from "@/lib/inventory/reopen";
import { endSoldOrder, reopenAfterEnd } from "@/lib/orders/end-sold";
import { closePendingOrder } from "@/lib/orders/expiry";
import type { OrderStatus, TransitionCause } from "@/lib/orders/state-machine";
import { PaymentProviderError } from "@/lib/payments/provider";
import { refundPayment } from "@/lib/payments/refund";
import { signTicketCode } from "@/lib/tickets/codes";
import { issueTickets } from "@/lib/tickets/issue";

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

/** A refused admin read or action. `message` is written for the organizer. */
export class AdminOrderError extends Error {
  override readonly name = "AdminOrderError";
  constructor(
    readonly code: AdminOrderErrorCode,
    message: string,
  ) {
    super(message);
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

/** What {@link refundOrder} did. */
export interface RefundOutcome {
  orderId: string;
  /** Payments given back (refunded at the PSP now, or found refunded by an earlier attempt). */
  refunded: { paymentId: string; amountMinor: number; currency: string }[];
  ticketsVoided: number;
  /** Seats back on sale in Postgres. */
  seatsReleased: string[];
  /** The Redis side; "error" means the seats reopen at the next reconciliation instead. */
  redis: ReopenResult | { result: "error"; message: string };
}

/**
 * Refunds a paid or ticketed order in full: the kept payment is refunded at the PSP
 * (refundPayment, idempotent per payment), then in one transaction the order goes to
 * `refunded`, its tickets to `void`, its line items `sold → refunded` and the seats back
 * to `available`; finally Redis frees the seats (reopenSoldSeats), so another fan can hold them.
 *
 * Money first: if the PSP fails nothing else changes; if the transaction fails after the
 * PSP refunded, calling again finishes the job (the payment is found refunded).
 * A `paid` order whose tickets are not issued yet gets them issued first and then voided:
 * ticket issuance is not serialised with this function, and only once every line item
 * has its (unique) ticket row can no late issuance add a valid ticket to a refunded order.
 *
 * @param reason why, for the transition log and the audit log.
 * @throws {AdminOrderError} "not_found", "not_your_show", "nothing_to_refund" ("This order is
 *   not paid, so there is nothing to refund"), "already_refunded", "no_payment",
 *   "psp_unavailable", "busy".
 */
export async function refundOrder(db: Db, organizerId: string, orderId: string, reason = "refunded by the organizer"): Promise<RefundOutcome> {
  const { order } = await ownedOrder(db, organizerId, orderId);
  const ctx = { organizerId, eventId: order.eventId, orderId };
  const cause = causeOf(organizerId, reason);
  if (order.status === "refunded") return refuse(db, ctx, "refund", "already_refunded", "This order has already been refunded.");
  if (order.status !== "paid" && order.status !== "ticketed") {
    return refuse(db, ctx, "refund", "nothing_to_refund", `This order is not paid (it is ${order.status.replace("_", " ")}), so there is nothing to refund.`);
  }
  if (order.status === "paid") {
    try {
      await issueTickets(db, orderId, cause);
    } catch {
      return refuse(db, ctx, "refund", "busy", "Tickets for this order are being issued right now. Try again in a moment.");
    }
  }

  const pays = await db.select().from(payments).where(eq(payments.orderId, orderId));
  const kept = pays.filter((p) => p.status === "captured");
  if (kept.length === 0 && !pays.some((p) => p.status === "refunded")) {
    return refuse(db, ctx, "refund", "no_payment", "This order has no captured payment, so there is no money to give back.");
  }
  for (const p of kept) {
    try {
      await refundPayment(db, p.id, cause);
    } catch (error) {
      if (!(error instanceof PaymentProviderError)) throw error;
      return refuse(db, ctx, "refund", "psp_unavailable", `The payment provider did not refund the payment (${error.message}). Nothing else was changed; try again in a moment.`);
    }
  }
  const refunded = (await db.select().from(payments).where(and(eq(payments.orderId, orderId), eq(payments.status, "refunded")))).map((p) => ({
    paymentId: p.id,
    amountMinor: p.amountMinor,
    currency: p.currency,
  }));

  const done = await db.transaction(async (tx) => {
    const ended = await endSoldOrder(tx, orderId, "refunded", cause);
    if (!ended) return null;
    await recordAdminAction(tx, {
      ...ctx,
      action: "refund",
      detail: { outcome: "done", reason, from: ended.from, payments: refunded, ticketsVoided: ended.ticketsVoided, seats: ended.seatsReleased },
    });
    return ended;
  });
  if (!done) return refuse(db, ctx, "refund", "already_refunded", "This order has just been refunded by someone else.");

  const redis = await reopenAfterEnd(done);
  return { orderId, refunded, ticketsVoided: done.ticketsVoided, seatsReleased: done.seatsReleased, redis };
}

/** What {@link reissueTickets} did. */
export interface ReissueOutcome {
  orderId: string;
  /** Tickets with a new code. */
  reissued: { ticketId: string; seatLabel: string }[];
  /** Valid tickets that changed under us (checked in, voided) and were left alone. */
  skipped: string[];
}

/**
 * Gives every valid ticket of a ticketed order a new signed code; the old codes stop
 * admitting at once (check-in compares the scanned code with the current one). Used and
 * void tickets are left as they are. See the module comment for why the row is kept.
 * @throws {AdminOrderError} "not_found", "not_your_show", "no_valid_tickets".
 */
export async function reissueTickets(db: Db, organizerId: string, orderId: string, reason = "tickets re-issued by the organizer"): Promise<ReissueOutcome> {
  const { order } = await ownedOrder(db, organizerId, orderId);
  const ctx = { organizerId, eventId: order.eventId, orderId };
  if (order.status !== "ticketed") {
    return refuse(db, ctx, "reissue_tickets", "no_valid_tickets", `This order is ${order.status.replace("_", " ")}, so it has no tickets to re-issue.`);
  }
  const current = await db
    .select({ id: tickets.id, code: tickets.code, seatLabel: seats.label })
    .from(tickets)
    .innerJoin(seats, eq(tickets.seatId, seats.id))
    .where(and(eq(tickets.orderId, orderId), eq(tickets.status, "valid")))
    .orderBy(asc(seats.ordinal));
  if (current.length === 0) return refuse(db, ctx, "reissue_tickets", "no_valid_tickets", "This order has no valid tickets to re-issue (used tickets stay as they are).");

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
        .set({ code: fresh.get(t.id)!, issuedAt: sql`now()` })
        .where(and(eq(tickets.id, t.id), eq(tickets.status, "valid"), eq(tickets.code, t.code)))
        .returning({ id: tickets.id });
      if (changed.length !== 1) {
        skipped.push(t.id);
        continue;
      }
      reissued.push({ ticketId: t.id, seatLabel: t.seatLabel });
      await recordAdminAction(tx, {
        ...ctx,
        ticketId: t.id,
        action: "reissue_tickets",
        detail: { outcome: "done", reason, seat: t.seatLabel, replacedCode: fingerprint(t.code), newCode: fingerprint(fresh.get(t.id)!) },
      });
    }
    if (reissued.length === 0) {
      await recordAdminAction(tx, { ...ctx, action: "reissue_tickets", detail: { outcome: "refused", code: "no_valid_tickets", skipped } });
    }
    return { orderId, reissued, skipped };
  });
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
