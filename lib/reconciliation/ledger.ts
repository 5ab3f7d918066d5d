/**
 * Ledger reconciliation (docs/design.md "Durable jobs"; docs/adr/0010): money is real only
 * when the PSP's own records say so. One pass pulls the PSP's ledger for a window
 * (captures and refunds, PaymentProvider.listLedger) and matches it to the app's
 * payments, orders and tickets in both directions:
 *
 * PSP → app, per ledger entry:
 * - a capture the app does not know, or thinks open / declined / cancelled → applied
 *   through the one capture path (lib/payments/apply.ts: pays a pending order, or a late
 *   payment — re-claimed or refunded); a checkout the app has no payment for is adopted
 *   when it names one of our orders with the same amount and currency, else recorded as
 *   `unknown_checkout` for a person;
 * - a refund the app does not know (it thinks the money is kept) → recorded, the order
 *   ends refunded (lib/payments/apply.ts);
 * - money the app thinks refunded but the PSP still holds → the refund is sent again
 *   (same idempotency key);
 * - a capture the app already has → marked confirmed;
 * - a payment refunded in part (docs/adr/0020) is still kept money: its refunded total is
 *   matched to our partial refunds (missing ones sent again, unknown ones for a person).
 * app → PSP: every captured payment not yet confirmed by the PSP's record (every capture
 * recorded through lib/payments/apply.ts is: a safety net, docs/adr/0023) and not in the
 * ledger is asked about (active query); if the PSP has no capture, it is a
 * `capture_missing_at_psp` discrepancy: the tickets are voided, the seats go back on sale
 * (lib/payments/apply.ts), and the organizer sees it.
 * Every finding is a discrepancy (kind, order, action). Idempotent: a second pass over the
 * same window finds nothing new.
 */
import { and, eq, inArray, isNull, lt, sql } from "drizzle-orm";
import { events, orders, payments, pspLedgerCursors, refunds, tickets } from "@/db/schema";
import type { Db } from "@/lib/db";
import { newId } from "@/lib/ids";
import type { TransitionCause } from "@/lib/orders/state-machine";
import { paymentProvider, PROVIDER_NAMES } from "@/lib/payments";
import { applyPspAnswer, askPsp } from "@/lib/payments/apply";
import type { LedgerEntry, LedgerWindow, PaymentProvider } from "@/lib/payments/provider";
import { partialRefundKey } from "@/lib/payments/refund-tickets";
import { recordDiscrepancy } from "@/lib/audit/discrepancies";
import { confirmInRedis } from "@/lib/inventory/hold";
import { holdsToConfirm } from "@/lib/reconciliation/redis-reads";

/** A global pass re-reads this much before the cursor (ms): PSP records can appear a little late. */
export const LEDGER_OVERLAP_MS = 10 * 60_000;
/** The first global pass (no cursor yet) looks back this far (ms). */
const LEDGER_FIRST_WINDOW_MS = 24 * 3_600_000;
/** An event-scoped pass looks back at most this far (ms), never before the event was created. */
export const LEDGER_EVENT_WINDOW_MS = 7 * 24 * 3_600_000;
/**
 * A captured payment is asked about (app → PSP) only once it is this old (ms): a capture
 * the ledger listing just missed needs no extra query. Webhooks only report captures the
 * PSP has already made, so a few seconds suffice.
 */
const UNCONFIRMED_SETTLE_MS = 10_000;
/** Agreeing entries' holds checked in Redis together (count): one script call per event, bounded. */
const CONFIRM_BATCH = 1_000;

/** What one ledger pass did, per provider (counts; `errors` one line each). */
export interface LedgerReport {
  provider: string;
  window: { from: string; to: string };
  entries: number;
  /** PSP captures the app did not know or thought not captured: applied. */
  capturesApplied: number;
  /** App captures found in the PSP's records: marked confirmed. */
  capturesConfirmed: number;
  /** App captures the PSP does not have: voided. */
  capturesVoided: number;
  /** PSP refunds the app did not know: recorded. */
  refundsRecorded: number;
  /** App refunds the PSP had not made: sent again. */
  refundsResent: number;
  /** PSP captures for no order of ours: left for a person. */
  unknown: number;
  errors: string[];
}

type PaymentStatus = (typeof payments.$inferSelect)["status"];

/**
 * Our payment as the ledger pass matches it: its id, order, status and whether the PSP's own
 * records confirmed it; its order's event, status and hold (the Redis hold a paid order's
 * seats were claimed under); and its partial refunds' totals (docs/adr/0020; null when it has none).
 */
type PaymentRow = {
  id: string;
  orderId: string;
  status: PaymentStatus;
  ledgerConfirmed: boolean;
  eventId: string;
  orderStatus: string;
  holdId: string;
  partial: { requested: number; succeeded: number } | null;
};

const cause = (reason: string): TransitionCause => ({ actor: "job:ledger-reconciliation", reason });

/**
 * The payments of one provider for these checkout ids, with their order's event and their
 * partial refunds' totals (docs/adr/0020): one statement, the ids as one array parameter, only
 * the columns the pass reads. A pass matches every capture of its window (during an on-sale,
 * every capture so far: docs/adr/0010), where drizzle's builder sent a statement per 1,000 ids
 * plus one for the refunds and mapped whole payment rows.
 */
async function paymentsByCheckout(db: Db, provider: string, checkoutIds: string[]): Promise<Map<string, PaymentRow>> {
  const found = new Map<string, PaymentRow>();
  if (checkoutIds.length === 0) return found;
  const rows = (await db.execute(
    sql`with p as (
          select p.id, p.order_id, p.checkout_session_id, p.status, p.ledger_confirmed_at is not null as confirmed,
                 o.event_id, o.status as order_status, o.hold_id
          from payments p join orders o on o.id = p.order_id
          where p.provider = ${provider} and p.checkout_session_id = any(${sql.param(checkoutIds)}::text[]))
        select p.*, r.requested, r.succeeded
        from p left join (
          select payment_id, coalesce(sum(amount_minor) filter (where status = 'requested'), 0)::int as requested,
                 coalesce(sum(amount_minor) filter (where status = 'succeeded'), 0)::int as succeeded
          from refunds where payment_id in (select id from p) group by payment_id) r on r.payment_id = p.id`,
  )) as unknown as {
    id: string;
    order_id: string;
    checkout_session_id: string;
    status: PaymentStatus;
    confirmed: boolean;
    event_id: string;
    order_status: string;
    hold_id: string;
    requested: number | null;
    succeeded: number | null;
  }[];
  for (const r of rows) {
    found.set(r.checkout_session_id, {
      id: r.id,
      orderId: r.order_id,
      status: r.status,
      ledgerConfirmed: r.confirmed,
      eventId: r.event_id,
      orderStatus: r.order_status,
      holdId: r.hold_id,
      partial: r.requested === null ? null : { requested: Number(r.requested), succeeded: Number(r.succeeded) },
    });
  }
  return found;
}

/** A report of a pass that found nothing (yet): every count 0. */
export function emptyLedgerReport(provider: string, window: LedgerWindow, errors: string[] = []): LedgerReport {
  return {
    provider,
    window: { from: window.from.toISOString(), to: window.to.toISOString() },
    entries: 0,
    capturesApplied: 0,
    capturesConfirmed: 0,
    capturesVoided: 0,
    refundsRecorded: 0,
    refundsResent: 0,
    unknown: 0,
    errors,
  };
}

/** Our orders among these ids (id → event, amount, currency). */
async function ordersById(db: Db, ids: string[]): Promise<Map<string, { eventId: string; totalMinor: number; currency: string }>> {
  const found = new Map<string, { eventId: string; totalMinor: number; currency: string }>();
  const wanted = [...new Set(ids.filter((id) => /^ord_[0-9a-z]{1,32}$/.test(id)))];
  for (let i = 0; i < wanted.length; i += 1_000) {
    const rows = await db.select({ id: orders.id, eventId: orders.eventId, totalMinor: orders.totalMinor, currency: orders.currency }).from(orders).where(inArray(orders.id, wanted.slice(i, i + 1_000)));
    for (const r of rows) found.set(r.id, r);
  }
  return found;
}

/**
 * One ledger pass over `window` for one provider.
 * @param opts.eventId only findings about this event's orders (other entries are left alone).
 * @param opts.now the clock for the app → PSP settle time.
 * @returns the report and the ledger entries listed (for the invariant checker).
 * @throws {PaymentProviderError} when the ledger cannot be listed (nothing changed).
 */
export async function reconcileLedger(
  db: Db,
  provider: PaymentProvider,
  window: LedgerWindow,
  opts: { eventId?: string; now?: Date } = {},
): Promise<{ report: LedgerReport; entries: LedgerEntry[] }> {
  const now = opts.now ?? new Date();
  const report = emptyLedgerReport(provider.name, window);
  const attempt = async (label: string, fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (error) {
      report.errors.push(`${label}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
    }
  };

  const listed = await provider.listLedger(window);
  const known = await paymentsByCheckout(db, provider.name, listed.map((e) => e.checkoutSessionId));
  const ours = await ordersById(db, listed.filter((e) => !known.has(e.checkoutSessionId)).map((e) => e.orderId));
  const inScope = (e: LedgerEntry) => {
    const eventId = known.get(e.checkoutSessionId)?.eventId ?? ours.get(e.orderId)?.eventId;
    return opts.eventId ? eventId === opts.eventId : true;
  };
  const entries = listed.filter(inScope);
  report.entries = entries.length;

  // Agreeing paid entries only need their seats confirmed as sold in Redis (see matchEntry).
  // Gathered CONFIRM_BATCH at a time; of each batch, one read-only script call per event
  // finds the holds a confirm would still change (almost always none: the capture confirmed
  // them), and only those are confirmed, together (the TCP client pipelines them). A confirm
  // per agreeing entry cost the worker ~50 ms of CPU a pass at 2,000 paid orders (5,000 seats
  // sold); the check costs ~3.
  // A partial refund frees sold seats, so pending confirms go out before one is matched.
  let confirms: Array<{ label: string; eventId: string; holdId: string }> = [];
  const flushConfirms = async () => {
    const batch = confirms;
    confirms = [];
    const byEvent = new Map<string, Map<string, string>>(); // event → hold → label
    for (const c of batch) byEvent.set(c.eventId, (byEvent.get(c.eventId) ?? new Map<string, string>()).set(c.holdId, c.label));
    await Promise.all(
      [...byEvent].map(async ([eventId, holds]) => {
        let due: string[] = [];
        await attempt(`ledger confirms (${holds.size} holds of ${eventId})`, async () => void (due = await holdsToConfirm(eventId, [...holds.keys()])));
        await Promise.all(due.map((holdId) => attempt(holds.get(holdId)!, async () => void (await confirmInRedis(eventId, holdId)))));
      }),
    );
  };
  for (const entry of entries) {
    await attempt(`ledger ${entry.checkoutSessionId}`, async () => {
      const confirm = await matchEntry(db, provider, entry, known.get(entry.checkoutSessionId), ours.get(entry.orderId), report);
      if (confirm) confirms.push({ label: `ledger ${entry.checkoutSessionId}`, ...confirm });
    });
    if (confirms.length >= CONFIRM_BATCH) await flushConfirms();
    const payment = known.get(entry.checkoutSessionId);
    // Partial refunds (docs/adr/0020): the PSP's refunded total per payment against ours.
    if (payment && entry.refundedAt === null && (entry.refundedMinor > 0 || payment.partial !== null)) {
      await flushConfirms();
      await attempt(`partial refunds ${entry.checkoutSessionId}`, () => matchPartialRefunds(db, provider, entry, payment, payment.partial ?? { requested: 0, succeeded: 0 }, report));
    }
  }
  await flushConfirms();

  // app → PSP: captures without the PSP's confirmation that the ledger did not list.
  const listedIds = new Set(listed.map((e) => e.checkoutSessionId));
  const unconfirmed = await db
    .select({ payment: payments, eventId: orders.eventId })
    .from(payments)
    .innerJoin(orders, eq(payments.orderId, orders.id))
    .where(
      and(
        eq(payments.provider, provider.name),
        eq(payments.status, "captured"),
        isNull(payments.ledgerConfirmedAt),
        lt(payments.updatedAt, new Date(now.getTime() - UNCONFIRMED_SETTLE_MS)),
        opts.eventId ? eq(orders.eventId, opts.eventId) : undefined,
      ),
    )
    .limit(500);
  for (const { payment } of unconfirmed) {
    if (listedIds.has(payment.checkoutSessionId)) continue; // matched above
    await attempt(`confirm ${payment.id}`, () => confirmOrVoid(db, payment, report));
  }
  return { report, entries };
}

/**
 * PSP → app for one ledger entry: adopt a checkout we have no payment for, then apply the entry as the PSP's answer.
 * @returns for an entry that already agrees and whose order is paid, the hold whose seats the
 *   caller confirms as sold in Redis (batched with others); otherwise undefined.
 */
async function matchEntry(
  db: Db,
  provider: PaymentProvider,
  entry: LedgerEntry,
  payment: PaymentRow | undefined,
  order: { eventId: string; totalMinor: number; currency: string } | undefined,
  report: LedgerReport,
): Promise<{ eventId: string; holdId: string } | undefined> {
  if (!payment) {
    // A checkout the app has no payment for (e.g. a crash between the PSP's answer and our insert).
    if (!order || order.totalMinor !== entry.amountMinor || order.currency !== entry.currency) {
      report.unknown++;
      await recordDiscrepancy(db, {
        key: `unknown_checkout_${provider.name}_${entry.checkoutSessionId}`,
        kind: "unknown_checkout",
        eventId: order?.eventId ?? null,
        orderId: order ? entry.orderId : null,
        detail: { provider: provider.name, entry },
        action: "none: the PSP holds money for a checkout no order of ours matches; a person decides",
        status: "needs_attention",
      });
      return;
    }
    await db
      .insert(payments)
      .values({ id: newId("pay"), orderId: entry.orderId, provider: provider.name, checkoutSessionId: entry.checkoutSessionId, amountMinor: entry.amountMinor, currency: entry.currency })
      .onConflictDoNothing();
    payment = (await paymentsByCheckout(db, provider.name, [entry.checkoutSessionId])).get(entry.checkoutSessionId);
    if (!payment) return;
  }
  const base = { eventId: payment.eventId, orderId: payment.orderId };
  const refunded = entry.refundedAt !== null;
  // Already agreeing with the PSP's own record: no transaction. Most entries of a window are
  // these (it re-reads LEDGER_OVERLAP_MS of captures every pass), and applying each again cost
  // a transaction apiece: 17–25 s per pass, most of the worker's CPU, in a 20,000-fan
  // simulation reconciling every 10 s. What such a payment's order may still need (tickets,
  // a late payment's refund, an extra capture's) is the sweep's (lib/reconciliation/sweep.ts).
  // One thing the re-application used to repair stays here: a paid order's seats confirmed
  // as sold in Redis (idempotent; the caller checks a batch's holds in one Redis call and
  // confirms those not sold yet), in case the capture's own confirm failed.
  if (refunded ? payment.status === "refunded" : payment.status === "captured" && payment.ledgerConfirmed) {
    return !refunded && (payment.orderStatus === "paid" || payment.orderStatus === "ticketed") ? { eventId: payment.eventId, holdId: payment.holdId } : undefined;
  }
  const answer = {
    checkoutSessionId: entry.checkoutSessionId,
    orderId: entry.orderId,
    status: refunded ? ("refunded" as const) : ("captured" as const),
    paymentId: entry.paymentId,
    amountMinor: entry.amountMinor,
    currency: entry.currency,
    capturedAt: entry.capturedAt,
    refundedAt: entry.refundedAt,
  };
  const wasKnown = payment.status === "captured" || payment.status === "refunded";
  const applied = await applyPspAnswer(db, provider, answer, cause(`the PSP's ledger shows ${refunded ? `refund ${entry.refundId ?? ""}` : "capture"} of ${entry.paymentId} (ours: ${payment.status})`), "ledger");

  if (applied === "refund_recorded") {
    report.refundsRecorded++;
    await recordDiscrepancy(db, {
      key: `refunded_at_psp_${payment.id}`,
      kind: "refunded_at_psp",
      ...base,
      detail: { paymentId: payment.id, providerPaymentId: entry.paymentId, refundId: entry.refundId, refundedAt: entry.refundedAt, ourStatus: payment.status },
      action: payment.status === "captured" ? "the PSP refunded it: payment (and, when nothing else paid it, the order) marked refunded, tickets voided, seats back on sale" : "captured and refunded at the PSP before we knew: recorded, no money kept",
      status: "repaired",
    });
  } else if (applied === "refund_resent") {
    report.refundsResent++;
    await recordDiscrepancy(db, {
      key: `refund_missing_at_psp_${payment.id}`,
      kind: "refund_missing_at_psp",
      ...base,
      detail: { paymentId: payment.id, providerPaymentId: entry.paymentId },
      action: "the PSP still held the money: refund sent again",
      status: "repaired",
    });
  } else if (!refunded && !wasKnown) {
    report.capturesApplied++;
    await recordDiscrepancy(db, {
      key: `capture_found_in_ledger_${payment.id}`,
      kind: "capture_found_in_ledger",
      ...base,
      detail: { paymentId: payment.id, statusBefore: payment.status, providerPaymentId: entry.paymentId, capturedAt: entry.capturedAt, outcome: applied },
      action: `a capture no webhook or query had reported (our payment was ${payment.status}): applied (${applied.replace("_", " ")})`,
      status: "repaired",
    });
  } else if (!refunded && payment.status === "captured" && !payment.ledgerConfirmed) {
    report.capturesConfirmed++;
  }
}

/**
 * A payment the PSP still partly keeps: its refunded total against our partial refunds.
 * - Ours succeeded but the PSP shows less: each of our refunds is sent again under its own
 *   key (the PSP makes the missing ones only) — `partial_refund_missing_at_psp`, repaired.
 * - The PSP shows more than all of ours (requested ones included): money given back outside
 *   StarArena (e.g. the PSP's dashboard); which tickets it was for is unknown, so the tickets
 *   stay and a person decides — `partial_refund_unknown`, needs attention.
 * Requested refunds the PSP already made are finished by {@link finishRequestedRefunds}.
 */
async function matchPartialRefunds(db: Db, provider: PaymentProvider, entry: LedgerEntry, payment: PaymentRow, ours: { requested: number; succeeded: number }, report: LedgerReport): Promise<void> {
  const base = { eventId: payment.eventId, orderId: payment.orderId };
  if (entry.refundedMinor < ours.succeeded) {
    const rows = await db.select().from(refunds).where(and(eq(refunds.paymentId, payment.id), eq(refunds.status, "succeeded")));
    for (const r of rows) await provider.refund(entry.paymentId, { amountMinor: r.amountMinor, currency: r.currency, reason: r.reason, idempotencyKey: partialRefundKey(r.id) });
    report.refundsResent++;
    await recordDiscrepancy(db, {
      key: `partial_refund_missing_at_psp_${payment.id}_${ours.succeeded}`,
      kind: "partial_refund_missing_at_psp",
      ...base,
      detail: { paymentId: payment.id, pspRefundedMinor: entry.refundedMinor, oursMinor: ours.succeeded },
      action: "the PSP had not made every partial refund we recorded: sent again under their own keys",
      status: "repaired",
    });
  } else if (entry.refundedMinor > ours.succeeded + ours.requested) {
    await recordDiscrepancy(db, {
      key: `partial_refund_unknown_${payment.id}_${entry.refundedMinor}`,
      kind: "partial_refund_unknown",
      ...base,
      detail: { paymentId: payment.id, pspRefundedMinor: entry.refundedMinor, oursMinor: ours.succeeded + ours.requested, currency: entry.currency },
      action: "none: the PSP gave back part of this payment outside StarArena; the tickets it was for are unknown, so a person decides (refund those tickets here, or ask the PSP)",
      status: "needs_attention",
    });
  }
}

/** app → PSP for one captured payment the ledger did not list: ask the PSP (confirm, record its refund, or void). */
async function confirmOrVoid(db: Db, payment: typeof payments.$inferSelect, report: LedgerReport): Promise<void> {
  const { applied, status } = await askPsp(db, payment, cause(`the PSP's ledger did not list this capture; asked (checkout ${payment.checkoutSessionId})`), "ledger");
  if (applied === "refund_recorded") report.refundsRecorded++;
  else if (applied === "voided") {
    report.capturesVoided++;
    const [row] = await db.select({ eventId: orders.eventId }).from(orders).where(eq(orders.id, payment.orderId));
    const voided = await db.select({ id: tickets.id }).from(tickets).where(and(eq(tickets.orderId, payment.orderId), eq(tickets.status, "void")));
    const cancelled = (await db.query.orders.findFirst({ where: eq(orders.id, payment.orderId) }))?.status === "cancelled";
    await recordDiscrepancy(db, {
      key: `capture_missing_at_psp_${payment.id}`,
      kind: "capture_missing_at_psp",
      eventId: row?.eventId ?? null,
      orderId: payment.orderId,
      detail: { paymentId: payment.id, checkoutSessionId: payment.checkoutSessionId, claimedPaymentId: payment.providerPaymentId, pspStatus: status, ticketsVoided: voided.length },
      action: `the PSP has no such capture (it says ${status}): ${voided.length} ticket(s) voided${cancelled ? ", order cancelled, seats back on sale" : ""}; check where the capture message came from`,
      status: "needs_attention",
    });
  } else if (status === "captured") report.capturesConfirmed++;
}

/** The providers this deployment can ask (the configured one, and Stripe when its keys are set). */
export function ledgerProviders(): PaymentProvider[] {
  return PROVIDER_NAMES.map((name) => paymentProvider(name)).filter((p): p is PaymentProvider => p !== null);
}

/**
 * The window a pass covers: for one event, from its creation (at most
 * {@link LEDGER_EVENT_WINDOW_MS} back); globally, from the provider's cursor minus
 * {@link LEDGER_OVERLAP_MS} (first time: {@link LEDGER_FIRST_WINDOW_MS} back). Both end a
 * second after the later of `now` and the real clock.
 */
export async function ledgerWindow(db: Db, provider: string, opts: { eventId?: string; now?: Date } = {}): Promise<LedgerWindow> {
  const nowMs = Math.max(opts.now?.getTime() ?? 0, Date.now());
  const to = new Date(nowMs + 1_000);
  if (opts.eventId) {
    const [event] = await db.select({ createdAt: events.createdAt }).from(events).where(eq(events.id, opts.eventId));
    const start = Math.max(event?.createdAt.getTime() ?? nowMs, nowMs - LEDGER_EVENT_WINDOW_MS) - 60_000;
    return { from: new Date(start), to };
  }
  const [cursor] = await db.select().from(pspLedgerCursors).where(eq(pspLedgerCursors.provider, provider));
  const from = cursor ? cursor.reconciledThrough.getTime() - LEDGER_OVERLAP_MS : nowMs - LEDGER_FIRST_WINDOW_MS;
  return { from: new Date(from), to };
}

/** Moves the provider's cursor forward to `through` (never back). */
export async function advanceLedgerCursor(db: Db, provider: string, through: Date): Promise<void> {
  await db
    .insert(pspLedgerCursors)
    .values({ provider, reconciledThrough: through })
    .onConflictDoUpdate({
      target: pspLedgerCursors.provider,
      set: { reconciledThrough: sql`greatest(${pspLedgerCursors.reconciledThrough}, excluded.reconciled_through)`, updatedAt: sql`now()` },
    });
}
