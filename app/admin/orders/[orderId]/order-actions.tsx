"use client";
/**
 * The admin order page's action buttons. Each action takes two clicks: the first shows
 * what will happen and a "Yes, …" button; only that one calls the server action. The
 * outcome (or the refusal, in words) stays on the page.
 */
import { useTranslations } from "next-intl";
import { useState, useTransition } from "react";
import { refundOrderAction, reissueTicketsAction, releaseStuckHoldAction, type AdminOrderActionResult } from "@/app/admin/orders/actions";

type Kind = "refund" | "reissue" | "release";

interface Props {
  orderId: string;
  can: { refund: boolean; reissue: boolean; releaseHold: boolean };
  /** "€90.00", in the reader's locale */
  totalLabel: string;
  validTickets: number;
}

/** An action's outcome in the reader's words: a refusal the catalogue words by its code, else the message as the server wrote it. */
export function useOutcomeText() {
  const t = useTranslations("AdminOrders");
  return (outcome: AdminOrderActionResult) => {
    const key = `refused.${outcome.code}` as "refused.no_such_order";
    return !outcome.ok && outcome.code && outcome.code !== "unknown_status" && t.has(key) ? t(key) : outcome.message;
  };
}

/** Refund / Re-issue tickets / Release stuck hold, each behind a confirmation step. */
export function OrderActions({ orderId, can, totalLabel, validTickets }: Props) {
  const t = useTranslations("AdminOrders");
  const outcomeText = useOutcomeText();
  const [confirming, setConfirming] = useState<Kind | null>(null);
  const [outcome, setOutcome] = useState<AdminOrderActionResult | null>(null);
  const [pending, startTransition] = useTransition();

  const spec: Record<Kind, { enabled: boolean; label: string; confirm: string; explain: string; call: (id: string) => Promise<AdminOrderActionResult> }> = {
    refund: {
      enabled: can.refund,
      label: t("refund"),
      confirm: t("refundConfirm", { amount: totalLabel }),
      explain: t("refundExplain", { amount: totalLabel }),
      call: refundOrderAction,
    },
    reissue: {
      enabled: can.reissue,
      label: t("reissue"),
      confirm: t("reissueConfirm", { count: validTickets }),
      explain: t("reissueExplain"),
      call: reissueTicketsAction,
    },
    release: {
      enabled: can.releaseHold,
      label: t("release"),
      confirm: t("releaseConfirm"),
      explain: t("releaseExplain"),
      call: releaseStuckHoldAction,
    },
  };

  const run = (kind: Kind) =>
    startTransition(async () => {
      const result = await spec[kind].call(orderId);
      setOutcome(result);
      setConfirming(null);
    });

  return (
    <section className="space-y-3 rounded-xl border border-white/10 bg-white/5 p-4" data-testid="order-actions">
      <h2 className="font-semibold">{t("actions")}</h2>
      <div className="flex flex-wrap gap-3">
        {(Object.keys(spec) as Kind[]).map((kind) => (
          <button
            key={kind}
            type="button"
            disabled={!spec[kind].enabled || pending}
            onClick={() => {
              setOutcome(null);
              setConfirming(kind);
            }}
            className={`rounded px-4 py-2 font-semibold disabled:opacity-40 ${kind === "refund" ? "bg-red-700 text-white hover:bg-red-800" : "bg-white/10 hover:bg-white/20"}`}
          >
            {spec[kind].label}
          </button>
        ))}
      </div>
      {confirming && (
        <div className="space-y-3 rounded-lg border border-amber-300/30 bg-amber-300/5 p-3" data-testid="confirm-action">
          <p className="text-sm text-amber-100">{spec[confirming].explain}</p>
          <div className="flex flex-wrap gap-3">
            <button
              type="button"
              disabled={pending}
              onClick={() => run(confirming)}
              className="rounded bg-red-700 px-4 py-2 font-semibold text-white hover:bg-red-800 disabled:opacity-50"
            >
              {pending ? t("working") : spec[confirming].confirm}
            </button>
            <button type="button" disabled={pending} onClick={() => setConfirming(null)} className="rounded bg-white/10 px-4 py-2 hover:bg-white/20">
              {t("cancel")}
            </button>
          </div>
        </div>
      )}
      {outcome && (
        <p role={outcome.ok ? "status" : "alert"} data-testid="action-outcome" data-ok={outcome.ok} className={outcome.ok ? "text-emerald-300" : "text-red-300"}>
          {outcomeText(outcome)}
        </p>
      )}
    </section>
  );
}
