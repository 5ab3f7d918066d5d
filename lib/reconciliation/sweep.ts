/**
 * The self-repair sweeps. Each step calls idempotent lib/ functions, so running a sweep
 * twice, or at the same time as a webhook, a browser return or an Inngest function, is
 * harmless. The local worker runs {@link sweep} every few seconds when no Inngest server
 * is configured; with Inngest the same functions run as durable steps.
 *
 * - holds past expiry → ask the PSP, then confirm or expire (lib/orders/expiry);
 * - pending payments older than `paymentQueryAfterMs` → active PSP query (lost webhooks);
 * - paid orders without tickets → issue them (issuance failing for a while);
 * - kept captures (lib/payments/kept.ts) on closed (expired, cancelled, refunded) orders →
 *   late payment: re-claim or refund, and a refund the PSP could not make yet is retried;
 * - orders with two kept captures → refund the extra (I3);
 * - captures that do not match their order still captured → refund them again; refunded
 *   ones whose finding is not repaired yet → repaired (lib/payments/mismatch.ts).
 */
import { sql } from "drizzle-orm";
import { sqlNow } from "@/lib/clock";
import type { Db } from "@/lib/db";
import { settleExpiredHold } from "@/lib/payments/expiry";
import { resolveLatePayment } from "@/lib/payments/late-payment";
import { refundExtraCapture } from "@/lib/payments/apply";
import { keptCaptureSql } from "@/lib/payments/kept";
import { finishMismatchRefund, mismatchRefundsDueSql } from "@/lib/payments/mismatch";
import { syncOrderPayment } from "@/lib/payments/sync";
import { issueTickets } from "@/lib/tickets/issue";

/** What one sweep did (counts). */
export interface SweepReport {
  expired: number;
  paidAtExpiry: number;
  paymentsQueried: number;
  ticketed: number;
  latePayments: number;
  extraCapturesRefunded: number;
  /** Captures not matching their order settled by the sweep: refunded on a retry, or their finding brought up to date. */
  mismatchesRefunded: number;
  errors: string[];
}

/**
 * How long a payment may stay open at our side before the sweep asks the PSP about it (ms).
 * Webhooks normally arrive within seconds; asking sooner only duplicates their work, and
 * under an on-sale's load (slow approvals, busy app) it made the worker re-do hundreds of
 * captures a second. A lost webhook costs the fan at most this long (and the hold's expiry
 * asks the PSP again before releasing any seat).
 */
const PAYMENT_QUERY_AFTER_MS = 60_000;

const rows = async <T>(db: Db, q: ReturnType<typeof sql>) => (await db.execute(q)) as unknown as T[];

/**
 * Runs every repair once. What is due — a hold past `hold_expires_at`, a payment silent for
 * `paymentQueryAfterMs` — is decided by Postgres's `now()`, never the worker's clock (lib/clock.ts).
 * @param opts.now a test's simulated clock; @param opts.limit most items per step (default 200); @param opts.eventId only this event.
 */
export async function sweep(db: Db, opts: { now?: Date; limit?: number; eventId?: string; paymentQueryAfterMs?: number } = {}): Promise<SweepReport> {
  const now = sqlNow(opts.now);
  const limit = opts.limit ?? 200;
  const evt = opts.eventId ? sql`and o.event_id = ${opts.eventId}` : sql``;
  const report: SweepReport = { expired: 0, paidAtExpiry: 0, paymentsQueried: 0, ticketed: 0, latePayments: 0, extraCapturesRefunded: 0, mismatchesRefunded: 0, errors: [] };
  const cause = (what: string) => ({ actor: "job:sweep", reason: what });
  const attempt = async (label: string, fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (error) {
      const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : "";
      report.errors.push(`${label}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}${cause}`);
    }
  };

  // What each step would find, read in one statement. Run every 2 s by the worker (and once
  // per reconciliation), the sweep is mostly idle, and then its five look-ups were five round
  // trips for nothing (docs/adr/0006: the sweeps' queries are its cost in Postgres). A step's
  // work can change what a later step finds, so once a step had anything to do, every later
  // step looks again itself, as they always did; until then this read is what they would have read.
  const queryBefore = sql`(${now} - ${opts.paymentQueryAfterMs ?? PAYMENT_QUERY_AFTER_MS}::int * interval '1 millisecond')`;
  const dueSql = sql`select o.id from orders o where o.status = 'pending_payment' and o.hold_expires_at <= ${now} ${evt} order by o.hold_expires_at limit ${limit}`;
  const paidSql = sql`select o.id from orders o where o.status = 'paid' ${evt} order by o.updated_at limit ${limit}`;
  // Which captures keep an order is lib/payments/kept.ts's rule (a mismatched capture never does).
  const lateSql = sql`select p.id from payments p join orders o on o.id = p.order_id where ${keptCaptureSql("p")} and o.status in ('expired','cancelled','refunded') ${evt} limit ${limit}`;
  // (Orders with a second capture are first found by one pass over the captured payments,
  // grouped by order: the per-payment look for an earlier kept capture then runs only for
  // those, where it ran for every captured payment of every show, every 2 s.)
  const extraSql = sql`select p.id, p.order_id, o.event_id from payments p join orders o on o.id = p.order_id
        where p.status = 'captured' ${evt}
          and p.order_id in (select order_id from payments where status = 'captured' group by order_id having count(*) > 1)
          and ${keptCaptureSql("p")}
          and exists (select 1 from payments k where k.order_id = p.order_id and ${keptCaptureSql("k")} and (k.captured_at, k.id) < (p.captured_at, p.id))
        limit ${limit}`;
  const mismatchSql = mismatchRefundsDueSql({ eventId: opts.eventId, limit });
  const [first] = await rows<{ due: string[]; open: boolean; paid: string[]; late: string[]; extra: { id: string; order_id: string; event_id: string }[]; mismatched: string[] }>(
    db,
    sql`select array(${dueSql}) as due,
               exists (select 1 from payments p join orders o on o.id = p.order_id
                       where p.status in ('created','pending') and o.status = 'pending_payment' and p.updated_at <= ${queryBefore} ${evt}) as open,
               array(${paidSql}) as paid, array(${lateSql}) as late,
               coalesce((select json_agg(x) from (${extraSql}) x), '[]') as extra,
               array(${mismatchSql}) as mismatched`,
  );

  // 1. Holds past their expiry.
  for (const id of first!.due) {
    await attempt(`expire ${id}`, async () => {
      const outcome = await settleExpiredHold(db, id, cause("hold expiry sweep"), opts.now);
      if (outcome === "expired") report.expired++;
      if (outcome === "paid") report.paidAtExpiry++;
    });
  }

  // 2. Payments still open at our side for a while: ask the PSP (the webhook may be lost).
  // Each open payment is asked about at most once per `paymentQueryAfterMs` (updated_at marks the last ask).
  // Claimed only when there was one to claim (or step 1 had holds to settle: then as always).
  let changed = first!.due.length > 0;
  const open = first!.open || changed
    ? await rows<{ order_id: string }>(
        db,
        sql`update payments p set updated_at = ${now} from orders o
            where o.id = p.order_id and p.status in ('created','pending') and o.status = 'pending_payment' and p.updated_at <= ${queryBefore} ${evt}
              and p.id in (select id from payments where status in ('created','pending') and updated_at <= ${queryBefore} limit ${limit})
            returning p.order_id`,
      )
    : [];
  for (const order_id of new Set(open.map((o) => o.order_id))) {
    await attempt(`query ${order_id}`, async () => {
      await syncOrderPayment(db, order_id, cause("active PSP query: no webhook yet"));
      report.paymentsQueried++;
    });
  }
  changed ||= open.length > 0;

  // 3. Paid orders without tickets.
  const paid = changed ? (await rows<{ id: string }>(db, paidSql)).map((r) => r.id) : first!.paid;
  changed ||= paid.length > 0;
  for (const id of paid) {
    await attempt(`issue ${id}`, async () => {
      if ((await issueTickets(db, id, cause("ticket issuance retry"))) > 0) report.ticketed++;
    });
  }

  // 4. Captured payments on closed orders (late payments, or a crash before they were resolved).
  const late = changed ? (await rows<{ id: string }>(db, lateSql)).map((r) => r.id) : first!.late;
  changed ||= late.length > 0;
  for (const id of late) {
    await attempt(`late ${id}`, async () => {
      if ((await resolveLatePayment(db, id, cause("late payment sweep"))) !== "not_late") report.latePayments++;
    });
  }

  // 5. More than one kept capture for an order: keep the first, refund the others (I3).
  const extra = changed ? await rows<{ id: string; order_id: string; event_id: string }>(db, extraSql) : first!.extra;
  changed ||= extra.length > 0;
  for (const p of extra) {
    await attempt(`refund extra ${p.id}`, async () => {
      if (await refundExtraCapture(db, p.id, cause("second capture for the order (I3)"))) report.extraCapturesRefunded++;
    });
  }

  // 6. Captures that do not match their order, whose refund did not go through (or whose finding lags): settle them.
  const mismatched = changed ? (await rows<{ id: string }>(db, mismatchSql)).map((r) => r.id) : first!.mismatched;
  for (const id of mismatched) {
    await attempt(`refund mismatch ${id}`, async () => {
      if (await finishMismatchRefund(db, id, cause("capture not matching its order: refund retried"))) report.mismatchesRefunded++;
    });
  }
  return report;
}
