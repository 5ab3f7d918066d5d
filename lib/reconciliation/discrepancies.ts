/**
 * Discrepancies: mismatches between what we expected and what happened (a webhook
 * whose amount differs from the order, a payment for an unknown checkout, a late or
 * double capture…), stored for the organizer dashboard with the action taken.
 * Recording is idempotent per `key`: the same finding is stored once.
 */
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
  | "tickets_without_payment";

/**
 * Records a discrepancy once per `key`.
 * @returns true when it was recorded now, false when it already existed.
 */
export async function recordDiscrepancy(
  tx: Tx,
  d: { key: string; kind: DiscrepancyKind; eventId?: string | null; orderId?: string | null; detail: Record<string, unknown>; action: string; status?: "open" | "repaired" | "needs_attention" },
): Promise<boolean> {
  const inserted = await tx
    .insert(discrepancies)
    .values({ id: `dsc_${d.key}`.slice(0, 120), kind: d.kind, eventId: d.eventId ?? null, orderId: d.orderId ?? null, detail: d.detail, action: d.action, status: d.status ?? "open" })
    .onConflictDoNothing({ target: discrepancies.id })
    .returning({ id: discrepancies.id });
  return inserted.length === 1;
}
