/**
 * Partial refunds (docs/adr/0020): some tickets of a ticketed order, their prices given back
 * at the PSP, those tickets void, their seats back on sale; the order stays `ticketed` with
 * its other tickets and shows as partially refunded. Money first, as for a full refund
 * (./refund-order.ts):
 *
 * 1. under the order's row lock, the request is written (`refunds`, status `requested`, keyed
 *    by its idempotency key) after checking its tickets are valid and in no other refund;
 * 2. the PSP refunds exactly those line items' prices, with the request's id as its key;
 * 3. under the lock again: the tickets `→ void` (logged, I8), their line items `sold → refunded`
 *    and seats `→ available` (lib/orders/seats.ts), the request `succeeded`, the caller's audit
 *    entry and the fan's e-mail — one transaction;
 * 4. Redis follows (the event's inventory rebuilt from Postgres; a failure is repaired by
 *    reconciliation, which rebuilds drifted inventory).
 *
 * Idempotent: the same key returns the recorded request — finished, or finished now (a
 * crash between 2 and 3 is completed by a retry, or by {@link finishRequestedRefunds}). The
 * PSP's key is per request, so it never refunds one request twice.
 */
import { and, eq, inArray, lt, sql } from "drizzle-orm";
import { lineItems, orders, payments, refunds, seats, tickets } from "@/db/schema";
import type { Db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { rebuildInventory } from "@/lib/inventory/rebuild";
import { enqueueEmailToUser } from "@/lib/mail/outbox";
import { refundSoldLineItems } from "@/lib/orders/seats";
import { transitionTicket, type TransitionCause } from "@/lib/orders/state-machine";
import { paymentProvider } from "@/lib/payments";
import { keptCaptures } from "@/lib/payments/kept";
import { PaymentProviderError } from "@/lib/payments/provider";

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/** Longest reason an organizer may give (characters). */
export const REFUND_REASON_MAX = 500;
/** Most tickets one partial refund may name. */
export const REFUND_TICKETS_MAX = 50;

/** What one partial refund asks for. */
export interface RefundTicketsRequest {
  ticketIds: string[];
  /** Why (1–{@link REFUND_REASON_MAX} characters): the transition log, the audit log. */
  reason: string;
  /** One per refund request (the form's nonce): a double submit or a retry sends the same one. */
  idempotencyKey: string;
}

/** What {@link refundTickets} did (or had done under the same key). */
export interface PartialRefundOutcome {
  refundId: string;
  orderId: string;
  /** Minor units given back. */
  amountMinor: number;
  currency: string;
  /** The refunded tickets' seat labels, in seat order. */
  seats: string[];
  ticketIds: string[];
  /** True when this call found the request already finished (a double submit or a retry). */
  repeated: boolean;
  /** The Redis side; "error" means the seats reopen at the next reconciliation instead. */
  redis: "rebuilt" | "error";
}

const refused = (kind: "bad_request" | "not_found" | "conflict" | "unavailable", code: string, message: string, field?: string) => new AppError(kind, code, message, field ? { field } : undefined);

/** The reason as stored: trimmed, 1–500 characters. @throws {AppError} 400 `reason_required` / `reason_too_long`. */
export function checkRefundReason(reason: string): string {
  const r = reason.trim();
  if (r === "") throw refused("bad_request", "reason_required", "Say why these tickets are refunded (the fan's request, a broken seat, …).", "reason");
  if (r.length > REFUND_REASON_MAX) throw refused("bad_request", "reason_too_long", `Keep the reason within ${REFUND_REASON_MAX} characters (it has ${r.length}).`, "reason");
  return r;
}

/**
 * Refunds some tickets of a ticketed order.
 * @param opts.withinTransaction runs in the transaction that voids the tickets (the audit entry).
 * @throws {AppError} 400 `reason_required`, `reason_too_long`, `no_tickets_chosen`; 404
 *   `no_such_order`, `no_such_ticket` (not a ticket of this order); 409 `not_ticketed`,
 *   `ticket_not_valid` (void or used), `ticket_being_refunded` (in another request),
 *   `no_payment`, `idempotency_conflict` (the key was used for other tickets); 503
 *   `psp_unavailable` (nothing else changed; retry with the same key).
 */
export async function refundTickets(
  db: Db,
  orderId: string,
  request: RefundTicketsRequest,
  cause: TransitionCause,
  opts: { withinTransaction?: (tx: Tx, outcome: Omit<PartialRefundOutcome, "redis" | "repeated">) => Promise<void> } = {},
): Promise<PartialRefundOutcome> {
  const reason = checkRefundReason(request.reason);
  const ticketIds = [...new Set(request.ticketIds)].sort();
  if (ticketIds.length === 0) throw refused("bad_request", "no_tickets_chosen", "Tick the tickets to refund.", "ticketIds");
  if (ticketIds.length > REFUND_TICKETS_MAX) throw refused("bad_request", "too_many_tickets", `Refund at most ${REFUND_TICKETS_MAX} tickets at once.`, "ticketIds");

  let row = await db.query.refunds.findFirst({ where: eq(refunds.idempotencyKey, request.idempotencyKey) });
  if (row && row.orderId !== orderId) throw refused("conflict", "idempotency_conflict", "This refund request was already used for another order. Reload the page and try again.");
  if (!row) row = await recordRequest(db, orderId, ticketIds, reason, request.idempotencyKey, cause);
  else {
    const mine = await ticketsOfLineItems(db, row.lineItemIds);
    if (mine.map((t) => t.id).sort().join() !== ticketIds.join()) {
      throw refused("conflict", "idempotency_conflict", "This refund request was already made for other tickets. Reload the page and try again.");
    }
  }
  return completeRefund(db, row, cause, opts);
}

/** Step 1: the request row, under the order's lock, after the checks. */
async function recordRequest(db: Db, orderId: string, ticketIds: string[], reason: string, idempotencyKey: string, cause: TransitionCause) {
  return db.transaction(async (tx) => {
    const [order] = await tx.select().from(orders).where(eq(orders.id, orderId)).for("update");
    if (!order) throw refused("not_found", "no_such_order", "There is no such order.");
    const [again] = await tx.select().from(refunds).where(eq(refunds.idempotencyKey, idempotencyKey));
    if (again) return again; // a double submit that waited for the lock
    if (order.status !== "ticketed") {
      throw refused("conflict", "not_ticketed", `Only tickets of a ticketed order can be refunded one by one (this order is ${order.status.replace("_", " ")}).`);
    }
    const chosen = await tx
      .select({ id: tickets.id, status: tickets.status, lineItemId: tickets.lineItemId, priceMinor: lineItems.priceMinor, currency: lineItems.currency, label: seats.label })
      .from(tickets)
      .innerJoin(lineItems, eq(tickets.lineItemId, lineItems.id))
      .innerJoin(seats, eq(tickets.seatId, seats.id))
      .where(and(eq(tickets.orderId, orderId), inArray(tickets.id, ticketIds)))
      // The tickets' rows stay locked until the request is written: a check-in at the door waits,
      // then sees the request and refuses (lib/tickets/check-in.ts); one that came first made the
      // ticket `used`, which is refused below. Never both let in and refunded.
      .for("update", { of: tickets });
    if (chosen.length !== ticketIds.length) throw refused("not_found", "no_such_ticket", "One of the chosen tickets is not a ticket of this order.", "ticketIds");
    const notValid = chosen.filter((t) => t.status !== "valid");
    if (notValid.length > 0) {
      throw refused("conflict", "ticket_not_valid", `${notValid.map((t) => `${t.label} is ${t.status === "used" ? "already checked in" : "void (refunded before)"}`).join("; ")}, so it cannot be refunded.`, "ticketIds");
    }
    const pending = await tx.select({ lineItemIds: refunds.lineItemIds }).from(refunds).where(and(eq(refunds.orderId, orderId), eq(refunds.status, "requested")));
    const busy = new Set(pending.flatMap((p) => p.lineItemIds));
    if (chosen.some((t) => busy.has(t.lineItemId))) throw refused("conflict", "ticket_being_refunded", "One of these tickets is being refunded right now. Reload the page in a moment.", "ticketIds");
    // The capture that pays the order (./kept.ts): a mismatched one being given back is not it.
    const keptIds = await keptCaptures(tx, orderId);
    const kept = keptIds.length === 1 ? await tx.select().from(payments).where(eq(payments.id, keptIds[0]!)) : [];
    if (kept.length !== 1) throw refused("conflict", "no_payment", "This order has no single captured payment to give money back from.");
    const [row] = await tx
      .insert(refunds)
      .values({
        id: newId("rfd"),
        orderId,
        paymentId: kept[0]!.id,
        idempotencyKey,
        amountMinor: chosen.reduce((n, t) => n + t.priceMinor, 0),
        currency: kept[0]!.currency,
        lineItemIds: chosen.map((t) => t.lineItemId).sort((a, b) => a - b),
        reason,
        actor: cause.actor,
      })
      .returning();
    return row!;
  });
}

/** The tickets of these line items (id, seat), in seat order. */
async function ticketsOfLineItems(db: Db | Tx, lineItemIds: number[]) {
  if (lineItemIds.length === 0) return [];
  return db
    .select({ id: tickets.id, status: tickets.status, orderId: tickets.orderId, label: seats.label })
    .from(tickets)
    .innerJoin(seats, eq(tickets.seatId, seats.id))
    .where(inArray(tickets.lineItemId, lineItemIds))
    .orderBy(seats.ordinal);
}

/** Steps 2–4 for a recorded request (idempotent: a finished one is only reported). */
async function completeRefund(
  db: Db,
  row: typeof refunds.$inferSelect,
  cause: TransitionCause,
  opts: { withinTransaction?: (tx: Tx, outcome: Omit<PartialRefundOutcome, "redis" | "repeated">) => Promise<void> },
): Promise<PartialRefundOutcome> {
  const tix = await ticketsOfLineItems(db, row.lineItemIds);
  const base = { refundId: row.id, orderId: row.orderId, amountMinor: row.amountMinor, currency: row.currency, seats: tix.map((t) => t.label), ticketIds: tix.map((t) => t.id) };
  if (row.status === "succeeded") return { ...base, repeated: true, redis: "rebuilt" };

  const providerRefundId = await sendRefund(db, row);
  const finished = await db.transaction(async (tx) => {
    const [order] = await tx.select().from(orders).where(eq(orders.id, row.orderId)).for("update");
    const [done] = await tx
      .update(refunds)
      .set({ status: "succeeded", providerRefundId, completedAt: sql`now()` })
      .where(and(eq(refunds.id, row.id), eq(refunds.status, "requested")))
      .returning({ id: refunds.id });
    if (!done || !order) return false; // finished by a concurrent retry
    const why = { actor: cause.actor, reason: `partial refund ${row.id}: ${row.reason}` };
    const live = await tx.select().from(tickets).where(and(inArray(tickets.lineItemId, row.lineItemIds), inArray(tickets.status, ["valid", "used"]))).for("update");
    for (const t of live) await transitionTicket(tx, t, t.status, "void", why);
    // The order may have ended meanwhile (refunded in full, voided): its seats were handled then.
    if (order.status === "ticketed" || order.status === "paid") await refundSoldLineItems(tx, { orderId: order.id, eventId: order.eventId }, row.lineItemIds);
    await opts.withinTransaction?.(tx, base);
    await enqueueEmailToUser(tx, "order_refunded", { orderId: row.orderId, amountMinor: row.amountMinor, currency: row.currency, seats: base.seats }, order.fanId, `order_refunded:${row.orderId}:${row.id}`);
    return order.eventId;
  });
  if (!finished) return { ...base, repeated: true, redis: "rebuilt" };
  const redis = await rebuildInventory(db, finished).then(
    () => "rebuilt" as const,
    () => "error" as const,
  );
  return { ...base, repeated: false, redis };
}

/** Step 2: the PSP refunds the request's amount under the request's own key. @returns the PSP's refund id. */
async function sendRefund(db: Db, row: typeof refunds.$inferSelect): Promise<string> {
  const payment = await db.query.payments.findFirst({ where: eq(payments.id, row.paymentId) });
  if (!payment?.providerPaymentId) throw refused("conflict", "no_payment", "This order's payment has no payment at the provider to refund.");
  const provider = paymentProvider(payment.provider);
  if (!provider) throw refused("unavailable", "psp_unavailable", `The payment provider ${payment.provider} is not configured here.`);
  try {
    const { refundId } = await provider.refund(payment.providerPaymentId, { amountMinor: row.amountMinor, currency: row.currency, reason: row.reason, idempotencyKey: partialRefundKey(row.id) });
    return refundId;
  } catch (error) {
    if (!(error instanceof PaymentProviderError)) throw error;
    throw refused("unavailable", "psp_unavailable", `The payment provider did not refund the tickets (${error.detail ?? error.message}). Nothing else was changed; try again in a moment.`);
  }
}

/** The PSP idempotency key of a partial refund request: one per request, whoever retries it. */
export const partialRefundKey = (refundId: string) => `refund:${refundId}`;

/**
 * Finishes partial refunds left `requested` for more than `olderThanMs` (a crash between the
 * PSP's refund and the transaction, or a PSP that did not answer): sends each again under its
 * own key (the PSP refunds it at most once) and completes it. For the reconciliation pass.
 * @returns how many were finished; failures are left for the next pass.
 */
export async function finishRequestedRefunds(db: Db, opts: { olderThanMs?: number; eventId?: string } = {}): Promise<{ finished: number; errors: string[] }> {
  // Postgres's clock against created_at, which Postgres wrote (lib/clock.ts).
  const cutoff = sql`now() - ${opts.olderThanMs ?? 60_000}::int * interval '1 millisecond'`;
  const stuck = await db
    .select({ refund: refunds })
    .from(refunds)
    .innerJoin(orders, eq(refunds.orderId, orders.id))
    .where(and(eq(refunds.status, "requested"), lt(refunds.createdAt, cutoff), opts.eventId ? eq(orders.eventId, opts.eventId) : undefined))
    .limit(100);
  let finished = 0;
  const errors: string[] = [];
  for (const { refund } of stuck) {
    try {
      const r = await completeRefund(db, refund, { actor: "job:reconciliation", reason: "finishing a partial refund" }, {});
      if (!r.repeated) finished++;
    } catch (error) {
      errors.push(`refund ${refund.id}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { finished, errors };
}

/**
 * Minor units of each payment given back by partial refunds (requested ones included: their
 * money may already be at the PSP), for the full refund's remainder and the ledger pass.
 */
export async function partialRefundTotals(db: Db | Tx, paymentIds: string[]): Promise<Map<string, { requested: number; succeeded: number }>> {
  const out = new Map<string, { requested: number; succeeded: number }>();
  if (paymentIds.length === 0) return out;
  const rows = await db
    .select({ paymentId: refunds.paymentId, status: refunds.status, minor: sql<number>`sum(${refunds.amountMinor})::int` })
    .from(refunds)
    .where(inArray(refunds.paymentId, paymentIds))
    .groupBy(refunds.paymentId, refunds.status);
  for (const r of rows) {
    const t = out.get(r.paymentId) ?? { requested: 0, succeeded: 0 };
    t[r.status] += Number(r.minor);
    out.set(r.paymentId, t);
  }
  return out;
}
