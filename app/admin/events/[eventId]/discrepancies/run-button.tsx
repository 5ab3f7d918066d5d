"use client";
/** "Run reconciliation now" and what the pass did. */
import { useState, useTransition } from "react";
import { runReconciliationAction, type ReconcileActionResult } from "./actions";

const LABELS: [keyof Extract<ReconcileActionResult, { ok: true }>["summary"], string][] = [
  ["expired", "holds expired"],
  ["paidAtExpiry", "holds found paid"],
  ["paymentsQueried", "payments asked at the PSP"],
  ["ticketed", "orders ticketed"],
  ["latePayments", "late payments resolved"],
  ["extraCapturesRefunded", "extra captures refunded"],
  ["redisMismatchesRepaired", "seat-map mismatches repaired"],
  ["ticketsWithoutPayment", "orders with tickets but no payment"],
];

/** Runs one reconciliation pass for the show and shows its summary. */
export function RunReconciliation({ eventId }: { eventId: string }) {
  const [result, setResult] = useState<ReconcileActionResult | null>(null);
  const [pending, startTransition] = useTransition();
  return (
    <div className="space-y-3">
      <button
        type="button"
        disabled={pending}
        onClick={() => startTransition(async () => setResult(await runReconciliationAction(eventId)))}
        className="button-primary px-4 py-2"
      >
        {pending ? "Reconciling…" : "Run reconciliation now"}
      </button>
      {result && !result.ok && (
        <p role="alert" className="text-red-300">
          {result.message}
        </p>
      )}
      {result?.ok && (
        <div role="status" className="rounded-lg border border-white/10 bg-white/5 p-3 text-sm" data-testid="reconcile-result">
          <p className={result.summary.violations === 0 ? "font-semibold text-emerald-300" : "font-semibold text-red-300"}>
            {result.summary.violations === 0 ? "Reconciled: every invariant holds." : `Reconciled: ${result.summary.violations} invariant violations remain (see below).`}
          </p>
          <p className="text-white/70">
            {LABELS.map(([k, label]) => `${result.summary[k]} ${label}`).join(" · ")}
          </p>
          {result.summary.errors.length > 0 && <p className="text-amber-200">Retried later: {result.summary.errors.join("; ")}</p>}
        </div>
      )}
    </div>
  );
}
