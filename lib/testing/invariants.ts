/** Test helper: the invariant checker's report with every count at zero (lib/reconciliation/invariants.ts). */
import type { InvariantReport } from "@/lib/reconciliation/invariants";

/** Every violation count 0: what a converged show must report. */
export const CLEAN_INVARIANTS: Readonly<InvariantReport> = Object.freeze({
  oversold: 0,
  redisMismatches: 0,
  paidWithoutTickets: 0,
  refundedWithTickets: 0,
  doubleCharged: 0,
  ticketsWithoutPayment: 0,
  keptMoneyMismatch: 0,
  pspKeptMoneyMismatch: 0,
  holdsNotEnded: 0,
  overFanLimit: 0,
  pspCapturedWithoutTickets: 0,
  pspDoubleCharged: 0,
  pspTicketsWithoutCapture: 0,
});
