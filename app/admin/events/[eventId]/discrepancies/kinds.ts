/**
 * The discrepancy kinds the page words: each has `Discrepancies.kinds.<kind>` (its name) and
 * `Discrepancies.explain.<kind>` (what it means and what StarArena does about it) in every
 * catalogue. The type below fails to compile when lib/audit/discrepancies.ts gains a kind
 * this list lacks.
 */
import type { DiscrepancyKind } from "@/lib/audit/discrepancies";

export const DISCREPANCY_KINDS = [
  "amount_mismatch",
  "unknown_checkout",
  "late_payment",
  "double_capture",
  "capture_on_closed_order",
  "redis_drift",
  "tickets_without_payment",
  "capture_found_in_ledger",
  "capture_missing_at_psp",
  "refunded_at_psp",
  "refund_missing_at_psp",
  "partial_refund_missing_at_psp",
  "partial_refund_unknown",
  "foreign_webhook",
  "webhook_contradicted",
] as const satisfies readonly DiscrepancyKind[];

/** A kind with words in the catalogue. */
export type KnownKind = (typeof DISCREPANCY_KINDS)[number];

/** Compiles only while every kind of lib/audit/discrepancies.ts is listed above. */
const everyKind: Record<Exclude<DiscrepancyKind, KnownKind>, never> = {};
void everyKind;
