/**
 * Discrepancies: mismatches between what we expected and what happened (a capture
 * whose amount differs from the order, a payment for an unknown checkout, a late or
 * double capture, a capture the PSP's ledger does not have…), stored for the organizer
 * dashboard with the action taken.
 * Recording is idempotent per `key`: the same finding is stored once (or, with
 * `update`, brought up to date when its outcome changes).
 */
import { eq, sql } from "drizzle-orm";
import { discrepancies } from "@/db/schema";
import type { Db } from "@/lib/db";

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0] | Db;

/** Kinds of discrepancy. */
export type DiscrepancyKind =
  | "amount_mismatch"
  | "unknown_checkout"
  | "late_payment"
  | "double_capture"
  | "capture_on_closed_order"
  | "redis_drift"
  | "tickets_without_payment"
  /** The PSP's ledger has a capture the app did not know about (or thought cancelled): applied. */
  | "capture_found_in_ledger"
  /** The app marked a payment captured that the PSP does not have: tickets voided. */
  | "capture_missing_at_psp"
  /** The PSP refunded a payment the app thought kept: recorded, the order ended. */
  | "refunded_at_psp"
  /** The app recorded a refund the PSP has not made: the refund was sent again. */
  | "refund_missing_at_psp"
  /** The app recorded partial refunds the PSP has not all made: sent again (docs/adr/0020). */
  | "partial_refund_missing_at_psp"
  /** The PSP gave back part of a payment outside StarArena: for a person. */
  | "partial_refund_unknown"
  /** A correctly signed webhook for another PSP account or mode: refused, nothing applied. */
  | "foreign_webhook"
  /** A correctly signed capture webhook whose capture the PSP's own record shows never happened: nothing applied. */
  | "webhook_contradicted";

/** The stored id of a discrepancy key (ids are bounded: keys from outside can be long). */
export const discrepancyId = (key: string) => `dsc_${key}`.slice(0, 120);

/**
 * Records a discrepancy once per `key`.
 * @param d.update when the key exists already, overwrite its detail, action and status
 *   (a finding whose outcome changed, e.g. a refund that was pending and is now made).
 * @returns true when it was recorded (or updated) now, false when it already existed.
 */
export async function recordDiscrepancy(
  tx: Tx,
  d: {
    key: string;
    kind: DiscrepancyKind;
    eventId?: string | null;
    orderId?: string | null;
    detail: Record<string, unknown>;
    action: string;
    status?: "open" | "repaired" | "needs_attention";
    update?: boolean;
  },
): Promise<boolean> {
  const values = { id: discrepancyId(d.key), kind: d.kind, eventId: d.eventId ?? null, orderId: d.orderId ?? null, detail: d.detail, action: d.action, status: d.status ?? "open" };
  const insert = tx.insert(discrepancies).values(values);
  const inserted = d.update
    ? await insert
        .onConflictDoUpdate({
          target: discrepancies.id,
          set: { detail: values.detail, action: values.action, status: values.status, resolvedAt: values.status === "repaired" ? sql`now()` : null },
        })
        .returning({ id: discrepancies.id })
    : await insert.onConflictDoNothing({ target: discrepancies.id }).returning({ id: discrepancies.id });
  return inserted.length === 1;
}

/** The discrepancy recorded under `key`, or null. */
export async function findDiscrepancy(tx: Tx, key: string) {
  const [row] = await tx.select().from(discrepancies).where(eq(discrepancies.id, discrepancyId(key)));
  return row ?? null;
}
