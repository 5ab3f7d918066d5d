"use client";
/** "Run reconciliation now" and what the pass did, in the page's language. */
import { useTranslations } from "next-intl";
import { useState, useTransition } from "react";
import { runReconciliationAction, type ReconcileActionResult } from "./actions";

type Summary = Extract<ReconcileActionResult, { ok: true }>["summary"];

/** The counts of a pass, each worded by `Discrepancies.summary.<key>` ("{count} holds expired"). */
const COUNTS = ["expired", "paidAtExpiry", "paymentsQueried", "ticketed", "latePayments", "extraCapturesRefunded", "redisMismatchesRepaired", "ticketsWithoutPayment"] as const satisfies readonly (keyof Summary)[];

/** Runs one reconciliation pass for the show and shows its summary. */
export function RunReconciliation({ eventId }: { eventId: string }) {
  const t = useTranslations("Discrepancies");
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
        {pending ? t("running") : t("run")}
      </button>
      {result && !result.ok && (
        <p role="alert" className="text-red-300">
          {"reason" in result ? t(result.reason) : result.message}
        </p>
      )}
      {result?.ok && (
        <div role="status" className="rounded-lg border border-white/10 bg-white/5 p-3 text-sm" data-testid="reconcile-result">
          <p className={result.summary.violations === 0 ? "font-semibold text-emerald-300" : "font-semibold text-red-300"}>
            {result.summary.violations === 0 ? t("allHold") : t("violations", { count: result.summary.violations })}
          </p>
          <p className="text-white/70">{COUNTS.map((k) => t(`summary.${k}`, { count: result.summary[k] })).join(" · ")}</p>
          {result.summary.errors.length > 0 && (
            <details className="text-amber-200">
              <summary className="cursor-pointer">{t("retriedLater", { count: result.summary.errors.length })}</summary>
              <ul lang="en" className="mt-1 list-disc break-words pl-5 font-mono text-xs">
                {result.summary.errors.map((e, i) => (
                  <li key={i}>{e}</li>
                ))}
              </ul>
            </details>
          )}
        </div>
      )}
    </div>
  );
}
