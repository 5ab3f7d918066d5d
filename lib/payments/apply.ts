/**
 * Asking the PSP and applying its answer — the one place that does (docs/design.md
 * "Payments"). Only the PSP's own record is applied: an active query (a signed webhook is a
 * hint that triggers one, lib/payments/webhooks.ts; so do the fan's return from the pay page,
 * the sweeps and expiry) or its ledger (reconciliation); each of those calls
 * {@link applyPspAnswer} (or {@link askPsp} / {@link askProvider}, which ask first), and
 * guarded transitions make the first answer win and the others no-ops:
 * - captured → the order is paid (held seats sold, Redis hold confirmed, tickets issued,
 *   the fan's admission slot freed); an order that ended meanwhile gets a late payment
 *   (./late-payment.ts: re-claimed or refunded); a second capture is refunded (I3);
 * - declined → the payment is marked declined (the fan may try again until the hold ends);
 * - refunded, while we count the money as kept → the payment is refunded, and the order
 *   ends refunded when nothing else pays it (tickets void, seats back on sale);
 * - nothing at the PSP for a capture we hold without its confirmation (asked by the ledger
 *   pass; a safety net: every capture recorded now is the PSP's own answer) → the capture is
 *   voided: payment and order cancelled, tickets void, seats on sale, the checkout cancelled
 *   (docs/adr/0010).
 * A capture pays only a checkout the app created, for that checkout's order, amount and
 * currency; a capture for another amount, currency or order is refunded in full
 * (./mismatch.ts), one for no payment of ours is recorded for a person.
 */
import { and, eq, sql } from "drizzle-orm";
import { orders, payments } from "@/db/schema";
import { recordDiscrepancy } from "@/lib/audit/discrepancies";
import type { Db } from "@/lib/db";
import { confirmInRedis } from "@/lib/inventory/hold";
import { endSoldOrder, reopenAfterEnd } from "@/lib/orders/end-sold";
import { sellHeldSeats } from "@/lib/orders/seats";
import { transitionOrder, transitionPayment, type TransitionCause } from "@/lib/orders/state-machine";
import { enqueue } from "@/lib/outbox";
import { lockPayment } from "@/lib/payments/locks";
import { paymentProvider } from "@/lib/payments";
import { resolveLatePayment } from "@/lib/payments/late-payment";
import { keptCaptures } from "@/lib/payments/kept";
import { captureMismatches, refundMismatchedCapture } from "@/lib/payments/mismatch";
import { PaymentProviderError, type PaymentProvider, type PaymentSnapshot } from "@/lib/payments/provider";
import { refundPayment } from "@/lib/payments/refund";
import { issueTickets } from "@/lib/tickets/issue";
import { freeSlot } from "@/lib/waiting-room/queue";

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/** The PSP's answer about one checkout: its record, and (from its ledger) when it refunded. */
export type PspAnswer = PaymentSnapshot & { refundedAt?: Date | null };

/** Where an answer came from: an active query or the PSP's ledger, both the PSP's own record. */
export type AnswerSource = "query" | "ledger";

/** What applying an answer did. */
export type Applied = CaptureOutcome | "declined" | "refund_recorded" | "refund_resent" | "voided" | "nothing";

/**
 * Applies the PSP's answer about one checkout (see the module comment).
 * @param provider the PSP that answered.
 * @param source where the answer came from; only "ledger" may void or re-send a refund.
 *   Never a webhook's own fields: a webhook only triggers a query ({@link askProvider}).
 * @throws {PaymentProviderError} when a refund the answer calls for cannot be made now (a sweep retries).
 */
export async function applyPspAnswer(db: Db, provider: PaymentProvider, answer: PspAnswer, cause: TransitionCause, source: AnswerSource): Promise<Applied> {
  if (answer.status === "captured") {
    if (source === "ledger") {
      const ours = await ourPayment(db, provider.name, answer.checkoutSessionId);
      if (ours?.status === "refunded" && answer.paymentId) {
        // We recorded a refund the PSP never made: send it again (the same idempotency key).
        await provider.refund(answer.paymentId, { amountMinor: answer.amountMinor, currency: answer.currency, reason: "refund recorded by StarArena, not made at the PSP", idempotencyKey: `refund:${ours.id}` });
        return "refund_resent";
      }
    }
    return recordCapture(db, provider.name, answer, cause);
  }
  if (answer.status === "declined") return (await recordDecline(db, provider.name, answer.checkoutSessionId, cause)) ? "declined" : "nothing";
  const ours = await ourPayment(db, provider.name, answer.checkoutSessionId);
  if (!ours) return "nothing";
  if (answer.status === "refunded") {
    if (ours.status === "captured") {
      await recordRefundAtPsp(db, ours.id, answer.refundedAt ?? new Date(), cause);
      return "refund_recorded";
    }
    if (ours.status !== "refunded") {
      await recordCapturedAndRefunded(db, ours.id, answer, cause);
      return "refund_recorded";
    }
    return "nothing";
  }
  // open, expired or cancelled at the PSP: no money. A capture we hold that the PSP does not have is void.
  if (source === "ledger" && ours.status === "captured") {
    return (await voidUnbackedCapture(db, ours.id, cause)).voided ? "voided" : "nothing";
  }
  return "nothing";
}

/**
 * Asks the PSP about one of our payments (active query) and applies its answer.
 * @returns what was applied and the PSP's status.
 * @throws {PaymentProviderError} when the PSP cannot be asked (callers retry later).
 */
export async function askPsp(
  db: Db,
  payment: { provider: string; checkoutSessionId: string },
  cause: TransitionCause,
  source: "query" | "ledger" = "query",
): Promise<{ applied: Applied; status: PaymentSnapshot["status"] }> {
  const provider = paymentProvider(payment.provider);
  if (!provider) throw new PaymentProviderError(`Payment provider ${payment.provider} is not configured`, false);
  return askProvider(db, provider, payment.checkoutSessionId, cause, source);
}

/**
 * Asks this provider about one checkout (active query) and applies its answer: what a
 * webhook, a return or a sweep learns is always the PSP's own record, never a message's fields.
 * @throws {PaymentProviderError} when the PSP cannot be asked (callers retry later).
 */
export async function askProvider(
  db: Db,
  provider: PaymentProvider,
  checkoutSessionId: string,
  cause: TransitionCause,
  source: AnswerSource = "query",
): Promise<{ applied: Applied; status: PaymentSnapshot["status"] }> {
  const snapshot = await provider.retrievePayment(checkoutSessionId);
  return { applied: await applyPspAnswer(db, provider, snapshot, cause, source), status: snapshot.status };
}

/** Our payment for this checkout, or undefined. */
async function ourPayment(db: Db, provider: string, checkoutSessionId: string) {
  return db.query.payments.findFirst({ where: and(eq(payments.provider, provider), eq(payments.checkoutSessionId, checkoutSessionId)) });
}

/** Captured and refunded at the PSP while we never knew of the capture: record both; no money kept. */
async function recordCapturedAndRefunded(db: Db, paymentId: string, answer: PspAnswer, cause: TransitionCause): Promise<void> {
  await db.transaction(async (tx) => {
    const { payment: locked } = await lockPayment(tx, paymentId);
    if (!locked || locked.status === "captured" || locked.status === "refunded") return;
    await transitionPayment(tx, locked, locked.status, "captured", cause, { providerPaymentId: answer.paymentId, capturedAt: answer.capturedAt ?? new Date(), ledgerConfirmedAt: new Date() });
    await transitionPayment(tx, locked, "captured", "refunded", { ...cause, reason: `${cause.reason}: refunded at the PSP` }, { refundedAt: answer.refundedAt ?? new Date() });
  });
}

// ─── Captured ────────────────────────────────────────────────────────────────

/** What {@link recordCapture} concluded. */
export type CaptureOutcome =
  | "not_captured" // the snapshot does not show money taken: nothing done
  | "paid" // this call moved the order to paid
  | "already_paid" // an earlier call did
  | "amount_mismatch"
  | "unknown_checkout"
  | "late_payment" // the order had expired or was cancelled: seats re-claimed, or the payment refunded
  | "double_capture" // the order is paid by two captures: the later one is refunded (I3)
  | "already_refunded"; // our payment was refunded already: a stale capture report changes nothing

/**
 * Records a captured payment and, when it is the order's, pays the order, confirms the
 * hold in Redis and issues the tickets. A capture for an order that ended meanwhile
 * (expired, cancelled, refunded) is a late payment: re-claimed or refunded
 * (./late-payment.ts). A capture that is not the order's amount, currency or order is
 * refunded in full (./mismatch.ts). The snapshot is the PSP's own record, so the payment is
 * marked confirmed (`ledger_confirmed_at`) at once.
 * @param provider the PSP's name ("sandbox", "stripe").
 * @param snapshot the PSP's view; its status must be "captured".
 */
async function recordCapture(db: Db, provider: string, snapshot: PaymentSnapshot, cause: TransitionCause): Promise<CaptureOutcome> {
  // Only a real capture counts: a signed message claiming one without a payment is not money.
  if (snapshot.status !== "captured" || !snapshot.paymentId) return "not_captured";
  const payment = await db.query.payments.findFirst({ where: and(eq(payments.provider, provider), eq(payments.checkoutSessionId, snapshot.checkoutSessionId)) });
  if (!payment) {
    await recordDiscrepancy(db, {
      key: `unknown_checkout_${provider}_${snapshot.checkoutSessionId}`,
      kind: "unknown_checkout",
      orderId: (await db.query.orders.findFirst({ where: eq(orders.id, snapshot.orderId) }))?.id ?? null,
      detail: { provider, snapshot },
      action: "none: no payment of ours has this checkout session",
      status: "needs_attention",
    });
    return "unknown_checkout";
  }
  const order = (await db.query.orders.findFirst({ where: eq(orders.id, payment.orderId) }))!;
  if (captureMismatches(order, snapshot)) {
    // Money that cannot become these tickets: given back in full, whatever the order's state.
    await refundMismatchedCapture(db, payment, order, snapshot, cause);
    return "amount_mismatch";
  }

  let extras: string[] = [];
  // The order's status as the deciding read saw it (tickets need issuing only while it is paid).
  let seen = order.status;
  const outcome = (await reReported(db, payment, order, snapshot)) ? "already_paid" : await db.transaction(async (tx): Promise<CaptureOutcome> => {
    // Lock order: the order row, then its payments (every path that changes both does the same).
    // Sent together (postgres.js pipelines them on the transaction's connection; Postgres runs
    // them in this order), so the locks cost one round trip.
    const [[locked], [current]] = await Promise.all([
      tx.select().from(orders).where(eq(orders.id, order.id)).for("update"),
      tx.select().from(payments).where(eq(payments.id, payment.id)).for("update"),
    ]);
    if (!locked || !current) throw new Error(`order ${order.id} or payment ${payment.id} vanished`);
    seen = locked.status;
    // A capture report for money already given back (a webhook queued before the refund) is stale.
    if (current.status === "refunded") return "already_refunded";
    const confirmedAt = new Date();
    // The writes the locked rows call for, pipelined the same way: one round trip. Each is
    // guarded (a transition from the state just read under the lock), so none can miss.
    const writes: PromiseLike<unknown>[] = [];
    if (current.status !== "captured") {
      writes.push(
        transitionPayment(tx, current, current.status, "captured", cause, {
          providerPaymentId: snapshot.paymentId,
          capturedAt: snapshot.capturedAt ?? new Date(),
          ledgerConfirmedAt: confirmedAt,
        }),
      );
    } else if (current.status === "captured" && !current.ledgerConfirmedAt) {
      // Confirmed by the PSP's own records; its payment id wins over whatever a webhook said.
      writes.push(tx.update(payments).set({ ledgerConfirmedAt: confirmedAt, providerPaymentId: snapshot.paymentId }).where(eq(payments.id, current.id)));
    }
    if (locked.status === "pending_payment") {
      await Promise.all([
        ...writes,
        transitionOrder(tx, order.id, "pending_payment", "paid", cause),
        sellHeldSeats(tx, { orderId: order.id, eventId: order.eventId }),
        enqueue(tx, "order/paid", { orderId: order.id, eventId: order.eventId }, `order/paid:${order.id}`),
      ]);
      return "paid";
    }
    await Promise.all(writes);
    if (locked.status === "paid" || locked.status === "ticketed") {
      extras = await extraCaptures(tx, order.id);
      return extras.length > 0 ? "double_capture" : "already_paid";
    }
    // expired, cancelled or refunded: the order stopped waiting for this money.
    return "late_payment";
  });

  if (outcome === "paid" || outcome === "already_paid") {
    await confirmInRedis(order.eventId, order.holdId);
    // Issuance failing must not undo or block the payment: the order waits in `paid` and the
    // ticket-issuance job (or the sweep) retries until the tickets exist.
    if (seen !== "ticketed") {
      await issueTickets(db, order.id, cause).catch((error: unknown) => {
        console.warn(`ticket issuance for ${order.id} failed; it will be retried`, error instanceof Error ? error.message : error);
      });
    }
    // The fan bought: their admission slot goes to the next fan in the queue.
    if (outcome === "paid") await freeSlot(db, order.eventId, order.fanId);
  }
  for (const extra of extras) await refundExtraCapture(db, extra, cause);
  if (outcome === "late_payment") await resolveLatePayment(db, payment.id, cause);
  return outcome;
}

/**
 * A capture already recorded, reported again — the webhook after the fan's return asked the
 * PSP first, a duplicate delivery, the ledger pass — when nothing about it can change: our
 * payment is captured with the same PSP payment id, the order is paid or ticketed, and it is
 * the order's only kept capture (I3: a second one goes through the locked path, which refunds
 * it). Such a report takes no row locks; it costs one read where the locked path cost five
 * statements and queued behind the order's other callers (BENCHMARKS.md, "The shop step by step").
 * The PSP's own confirmation (`confirmed`) is recorded by one guarded update.
 * @returns true when the report is such a re-report and was recorded; false for the locked path.
 */
async function reReported(
  db: Db,
  payment: typeof payments.$inferSelect,
  order: typeof orders.$inferSelect,
  snapshot: PaymentSnapshot,
): Promise<boolean> {
  if (payment.status !== "captured" || payment.providerPaymentId !== snapshot.paymentId) return false;
  if (order.status !== "paid" && order.status !== "ticketed") return false;
  if ((await extraCaptures(db, order.id)).length > 0) return false;
  if (!payment.ledgerConfirmedAt) {
    // Every report is the PSP's own answer now, so several may confirm the same capture at once:
    // the first sets the time, the others find it set. No longer captured → the locked path decides.
    const marked = await db
      .update(payments)
      .set({ ledgerConfirmedAt: sql`coalesce(${payments.ledgerConfirmedAt}, now())` })
      .where(and(eq(payments.id, payment.id), eq(payments.status, "captured")))
      .returning({ id: payments.id });
    if (marked.length === 0) return false;
  }
  return true;
}

/**
 * The order's kept captures beyond the first (./kept.ts: captured and not mismatched, by
 * capture time, then id), inside the caller's transaction (which holds the order's row lock;
 * {@link reReported} reads it without, to learn there are none). One rule for every path (a
 * webhook, the sweep), so two of them never refund different payments of the same order (I3).
 */
async function extraCaptures(tx: Tx | Db, orderId: string): Promise<string[]> {
  return (await keptCaptures(tx, orderId)).slice(1);
}

/**
 * Refunds one extra capture of an order (I3): under the order's row lock it checks that the
 * payment is still captured and still not the order's first capture, records the finding,
 * then refunds it at the PSP (idempotent per payment).
 * @returns true when it was (or already had been) refunded.
 * @throws {PaymentProviderError} when the PSP cannot refund now (the sweep retries).
 */
export async function refundExtraCapture(db: Db, paymentId: string, cause: TransitionCause): Promise<boolean> {
  const orderId = (await db.query.payments.findFirst({ where: eq(payments.id, paymentId), columns: { orderId: true } }))?.orderId;
  if (!orderId) return false;
  const still = await db.transaction(async (tx) => {
    const [order] = await tx.select().from(orders).where(eq(orders.id, orderId)).for("update");
    if (!order || !(await extraCaptures(tx, orderId)).includes(paymentId)) return null;
    await recordDiscrepancy(tx, {
      key: `double_capture_${paymentId}`,
      kind: "double_capture",
      eventId: order.eventId,
      orderId,
      detail: { extra: paymentId },
      action: "extra capture refunded in full",
      status: "repaired",
    });
    return order;
  });
  if (!still) return false;
  return refundPayment(db, paymentId, { ...cause, reason: `second capture for order ${orderId}: refunded (I3)` });
}

/** Marks a payment declined (the order stays pending_payment: the fan may try again until the hold expires). */
async function recordDecline(db: Db, provider: string, checkoutSessionId: string, cause: TransitionCause): Promise<boolean> {
  const payment = await db.query.payments.findFirst({ where: and(eq(payments.provider, provider), eq(payments.checkoutSessionId, checkoutSessionId)) });
  if (!payment || (payment.status !== "created" && payment.status !== "pending")) return false;
  return transitionPayment(db, payment, payment.status, "declined", cause);
}

// ─── Refunded at the PSP ─────────────────────────────────────────────────────

/** What {@link recordRefundAtPsp} did. */
export type PspRefundOutcome = "order_refunded" | "payment_refunded" | "not_captured";

/**
 * Records the PSP's refund of `paymentId`.
 * @param refundedAt when the PSP refunded (its ledger's time).
 * @returns "order_refunded" (the order ended too), "payment_refunded" (another kept
 *   capture, ./kept.ts, still pays the order, or the order was not paid), "not_captured" (nothing to do).
 */
async function recordRefundAtPsp(db: Db, paymentId: string, refundedAt: Date, cause: TransitionCause): Promise<PspRefundOutcome> {
  const result = await db.transaction(async (tx) => {
    const { payment } = await lockPayment(tx, paymentId);
    if (!payment || payment.status !== "captured") return { outcome: "not_captured" as const };
    await transitionPayment(tx, payment, "captured", "refunded", cause, { refundedAt });
    // Another kept capture still pays the order; a mismatched one never does (./kept.ts).
    if ((await keptCaptures(tx, payment.orderId)).length > 0) return { outcome: "payment_refunded" as const };
    const ended = await endSoldOrder(tx, payment.orderId, "refunded", cause);
    return ended ? { outcome: "order_refunded" as const, ended } : { outcome: "payment_refunded" as const };
  });
  if (result.outcome === "order_refunded") await reopenAfterEnd(result.ended);
  return result.outcome;
}

// ─── Nothing at the PSP ──────────────────────────────────────────────────────

/** What {@link voidUnbackedCapture} did. */
export interface VoidOutcome {
  /** False when the payment was no longer captured (nothing changed). */
  voided: boolean;
  /** True when the order ended too (no other kept payment paid it). */
  orderCancelled: boolean;
  ticketsVoided: number;
}

/**
 * Voids a captured payment the PSP does not have.
 * @throws database errors (nothing changed; the next pass retries).
 */
async function voidUnbackedCapture(db: Db, paymentId: string, cause: TransitionCause): Promise<VoidOutcome> {
  const result = await db.transaction(async (tx) => {
    const { payment } = await lockPayment(tx, paymentId);
    if (!payment || payment.status !== "captured") return null;
    await transitionPayment(tx, payment, "captured", "cancelled", cause);
    const kept = (await keptCaptures(tx, payment.orderId)).length > 0;
    const ended = kept ? null : await endSoldOrder(tx, payment.orderId, "cancelled", cause);
    return { payment, ended };
  });
  if (!result) return { voided: false, orderCancelled: false, ticketsVoided: 0 };
  if (result.ended) await reopenAfterEnd(result.ended);
  // The checkout may still be open at the PSP (a forged capture): close it. Best effort.
  await paymentProvider(result.payment.provider)?.cancelCheckout(result.payment.checkoutSessionId).catch(() => undefined);
  return { voided: true, orderCancelled: result.ended !== null, ticketsVoided: result.ended?.ticketsVoided ?? 0 };
}
