/**
 * Which captures keep an order — one rule for every path, in TypeScript and in SQL
 * (docs/design.md "Payments", docs/adr/0023): a payment keeps its order's money when it is
 * `captured` and not a mismatched capture. A mismatched capture (its amount, currency or
 * order id not the order's, ./mismatch.ts) is money being given back: it never pays the
 * order, never re-claims seats as a late payment, is never the order's first capture (I3),
 * and does not keep an order paid when the order's real payment is refunded or voided.
 *
 * The mark of a mismatched capture is its finding, a discrepancy under the key
 * `capture_mismatch_<paymentId>`, written in the transaction that records the capture. The
 * prefix is its own: findings other code wrote under other keys (e.g. `amount_mismatch_…`
 * for a webhook's wrong snapshot, never money) mark nothing.
 */
import { and, asc, eq, ne, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { payments } from "@/db/schema";
import { discrepancyId, findDiscrepancy } from "@/lib/audit/discrepancies";
import type { Db } from "@/lib/db";

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/** The discrepancy key that marks a payment as a mismatched capture (one per payment). */
export const captureMismatchKey = (paymentId: string) => `capture_mismatch_${paymentId}`;

/** The stored discrepancy id of the mark, without the payment id (ids are short: never cut). */
const MARK_ID_PREFIX = discrepancyId(captureMismatchKey(""));

/** True when this payment is marked a mismatched capture (inside or outside a transaction). */
export async function isMismatchedCapture(tx: Tx | Db, paymentId: string): Promise<boolean> {
  return (await findDiscrepancy(tx, captureMismatchKey(paymentId))) !== null;
}

/** SQL: the payment whose id is `paymentId` is marked a mismatched capture (an index probe). */
export function mismatchedSql(paymentId: SQLWrapper): SQL {
  return sql`exists (select 1 from discrepancies mm where mm.id = ${MARK_ID_PREFIX}::text || ${paymentId})`;
}

/**
 * SQL: the payment row under `alias` keeps its order's money (captured, not mismatched).
 * @param alias the payments table's alias in the caller's statement (a plain identifier).
 */
export function keptCaptureSql(alias: string): SQL {
  if (!/^[a-z_][a-z0-9_]*$/.test(alias)) throw new Error(`not an SQL alias: ${alias}`);
  const a = sql.raw(alias);
  return sql`(${a}.status = 'captured' and not ${mismatchedSql(sql`${a}.id`)})`;
}

/**
 * The order's kept captures, oldest first (capture time, then id): the first keeps the order,
 * any other is an extra capture to refund (I3).
 * @param opts.except leave this payment out (the one the caller is ending).
 */
export async function keptCaptures(tx: Tx | Db, orderId: string, opts: { except?: string } = {}): Promise<string[]> {
  const rows = await tx
    .select({ id: payments.id })
    .from(payments)
    .where(and(eq(payments.orderId, orderId), eq(payments.status, "captured"), opts.except ? ne(payments.id, opts.except) : undefined, sql`not ${mismatchedSql(payments.id)}`))
    .orderBy(asc(payments.capturedAt), asc(payments.id));
  return rows.map((r) => r.id);
}
