/**
 * Refunding a paid or ticketed order in full (the organizer's refund): the kept payments
 * are refunded at the PSP (./refund.ts, idempotent per payment), then in one transaction
 * the order goes `refunded`, its tickets `void`, its seats back on sale
 * (lib/orders/end-sold.ts); finally Redis frees the seats, so another fan can hold them.
 *
 * Money first: if the PSP fails nothing else changes; if the transaction fails after the
 * PSP refunded, calling again finishes the job (the payment is found refunded). A `paid`
 * order whose tickets are not issued yet gets them issued first and then voided: ticket
 * issuance is not serialised with this function, and only once every line item has its
 * (unique) ticket row can no late issuance add a valid ticket to a refunded order.
 */
import { and, eq } from "drizzle-orm";
import { orders, payments } from "@/db/schema";
import type { Db } from "@/lib/db";
import { enqueueEmailToUser } from "@/lib/mail/outbox";
import { AppError } from "@/lib/errors";
import type { ReopenResult } from "@/lib/inventory/reopen";
import { endSoldOrder, reopenAfterEnd, type EndedOrder } from "@/lib/orders/end-sold";
import type { TransitionCause } from "@/lib/orders/state-machine";
import { PaymentProviderError } from "@/lib/payments/provider";
import { refundPayment } from "@/lib/payments/refund";
import { partialRefundTotals } from "@/lib/payments/refund-tickets";
import { issueTickets } from "@/lib/tickets/issue";

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/** What {@link refundPaidOrder} did. */
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

/** The refusal codes of a refund; each an AppError with a message for the organizer. */
export type RefundRefusal = "already_refunded" | "nothing_to_refund" | "no_payment" | "psp_unavailable" | "busy";

const refused = (kind: "conflict" | "unavailable", code: RefundRefusal, message: string) => new AppError(kind, code, message);

/**
 * Refunds the order in full.
 * @param opts.withinTransaction runs inside the transaction that ends the order (an audit entry).
 * @throws {AppError} 409 `already_refunded`, `nothing_to_refund` (not paid), `no_payment`,
 *   `busy` (tickets being issued right now); 503 `psp_unavailable` (the PSP did not refund;
 *   nothing else changed). Database errors as they come.
 */
export async function refundPaidOrder(
  db: Db,
  orderId: string,
  cause: TransitionCause,
  opts: { withinTransaction?: (tx: Tx, ended: EndedOrder, refunded: RefundOutcome["refunded"]) => Promise<void> } = {},
): Promise<RefundOutcome> {
  const order = await db.query.orders.findFirst({ where: eq(orders.id, orderId) });
  if (!order) throw new AppError("not_found", "no_such_order", "There is no such order.");
  if (order.status === "refunded") throw refused("conflict", "already_refunded", "This order has already been refunded.");
  if (order.status !== "paid" && order.status !== "ticketed") {
    throw refused("conflict", "nothing_to_refund", `This order is not paid (it is ${order.status.replace("_", " ")}), so there is nothing to refund.`);
  }
  if (order.status === "paid") {
    await issueTickets(db, orderId, cause).catch(() => {
      throw refused("conflict", "busy", "Tickets for this order are being issued right now. Try again in a moment.");
    });
  }
  const pays = await db.select().from(payments).where(eq(payments.orderId, orderId));
  const kept = pays.filter((p) => p.status === "captured");
  if (kept.length === 0 && !pays.some((p) => p.status === "refunded")) {
    throw refused("conflict", "no_payment", "This order has no captured payment, so there is no money to give back.");
  }
  for (const p of kept) {
    await refundPayment(db, p.id, cause).catch((error: unknown) => {
      if (!(error instanceof PaymentProviderError)) throw error;
      throw refused("unavailable", "psp_unavailable", `The payment provider did not refund the payment (${error.detail ?? error.message}). Nothing else was changed; try again in a moment.`);
    });
  }
  const refundedRows = await db.select().from(payments).where(and(eq(payments.orderId, orderId), eq(payments.status, "refunded")));
  // What this refund gave back: a payment's amount less the partial refunds made before (docs/adr/0020).
  const partial = await partialRefundTotals(db, refundedRows.map((p) => p.id));
  const refunded = refundedRows.map((p) => {
    const t = partial.get(p.id);
    return { paymentId: p.id, amountMinor: p.amountMinor - (t ? t.requested + t.succeeded : 0), currency: p.currency };
  });

  const ended = await db.transaction(async (tx) => {
    const e = await endSoldOrder(tx, orderId, "refunded", cause);
    if (e) {
      await opts.withinTransaction?.(tx, e, refunded);
      const amountMinor = refunded.reduce((n, r) => n + r.amountMinor, 0);
      await enqueueEmailToUser(tx, "order_refunded", { orderId, amountMinor, currency: refunded[0]?.currency ?? order.currency }, order.fanId, `order_refunded:${orderId}`);
    }
    return e;
  });
  if (!ended) throw refused("conflict", "already_refunded", "This order has just been refunded by someone else.");
  return { orderId, refunded, ticketsVoided: ended.ticketsVoided, seatsReleased: ended.seatsReleased, redis: await reopenAfterEnd(ended) };
}
