"use client";
/**
 * Refund some tickets of an order (docs/adr/0020): tick the tickets, give a reason (required,
 * at most 500 characters), confirm. The form carries one nonce per refund as its idempotency
 * key, so a double click or a resubmit refunds once; a new nonce is drawn after a success.
 */
import { useLocale, useTranslations } from "next-intl";
import { useState, useTransition } from "react";
import { refundTicketsAction, type AdminOrderActionResult } from "@/app/admin/orders/actions";
import { intlLocale, isLocale } from "@/lib/i18n/config";
import { useOutcomeText } from "./order-actions";

/** A ticket the organizer may tick: its id, its seat's label in the reader's language, its price and price label ("€29.00"). */
export interface RefundableTicket {
  id: string;
  seatLabel: string;
  priceMinor: number;
  priceLabel: string;
}

const REASON_MAX = 500;
const nonce = () => `rfdform_${crypto.randomUUID()}`;

/** The partial-refund form of the admin order page. */
export function RefundTicketsForm({ orderId, tickets, format }: { orderId: string; tickets: RefundableTicket[]; format: { currency: string; digits: number } }) {
  const t = useTranslations("AdminOrders");
  const locale = useLocale();
  const outcomeText = useOutcomeText();
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [reason, setReason] = useState("");
  const [key, setKey] = useState(nonce);
  const [confirming, setConfirming] = useState(false);
  const [outcome, setOutcome] = useState<AdminOrderActionResult | null>(null);
  const [pending, startTransition] = useTransition();
  const total = tickets.filter((t) => chosen.has(t.id)).reduce((n, t) => n + t.priceMinor, 0);
  const totalLabel = new Intl.NumberFormat(intlLocale(isLocale(locale) ? locale : "en"), { style: "currency", currency: format.currency }).format(total / 10 ** format.digits);
  const reasonError = reason.trim() === "" ? t("giveReason") : reason.length > REASON_MAX ? t("reasonTooLong", { max: REASON_MAX, count: reason.length }) : null;

  const toggle = (id: string) =>
    setChosen((s) => {
      const next = new Set(s);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const submit = () =>
    startTransition(async () => {
      const result = await refundTicketsAction(orderId, { ticketIds: [...chosen], reason, idempotencyKey: key });
      setOutcome(result);
      setConfirming(false);
      if (result.ok) {
        setChosen(new Set());
        setReason("");
        setKey(nonce());
      }
    });

  return (
    <section className="space-y-3 rounded-xl border border-white/10 bg-white/5 p-4" data-testid="refund-tickets">
      <h2 className="font-semibold">{t("refundSome")}</h2>
      <fieldset className="space-y-1">
        <legend className="text-sm text-white/60">{t("ticketsToRefund")}</legend>
        {tickets.map((ticket) => (
          <label key={ticket.id} className="flex items-center gap-2 text-sm">
            <input type="checkbox" checked={chosen.has(ticket.id)} onChange={() => toggle(ticket.id)} disabled={pending} data-testid="refund-ticket" />
            {ticket.seatLabel} <span className="tabular-nums text-white/60">{ticket.priceLabel}</span>
          </label>
        ))}
      </fieldset>
      <label className="block text-sm">
        {t("reasonLabel")}
        <textarea
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          rows={2}
          maxLength={REASON_MAX}
          required
          className="mt-1 w-full rounded bg-black/40 px-3 py-2"
          aria-describedby="refund-reason-count"
        />
        <span id="refund-reason-count" className="block text-xs text-white/60">
          {t("reasonCount", { count: reason.length, max: REASON_MAX })}
        </span>
      </label>
      {!confirming ? (
        <button
          type="button"
          disabled={chosen.size === 0 || reasonError !== null || pending}
          onClick={() => {
            setOutcome(null);
            setConfirming(true);
          }}
          className="rounded bg-red-700 px-4 py-2 font-semibold text-white hover:bg-red-800 disabled:opacity-40"
        >
          {t("refundTickets", { count: chosen.size })}
        </button>
      ) : (
        <div className="space-y-3 rounded-lg border border-amber-300/30 bg-amber-300/5 p-3" data-testid="confirm-refund-tickets">
          <p className="text-sm text-amber-100">{t("refundTicketsExplain", { amount: totalLabel, count: chosen.size })}</p>
          <div className="flex flex-wrap gap-3">
            <button type="button" disabled={pending} onClick={submit} className="rounded bg-red-700 px-4 py-2 font-semibold text-white hover:bg-red-800 disabled:opacity-50">
              {pending ? t("working") : t("refundConfirm", { amount: totalLabel })}
            </button>
            <button type="button" disabled={pending} onClick={() => setConfirming(false)} className="rounded bg-white/10 px-4 py-2 hover:bg-white/20">
              {t("cancel")}
            </button>
          </div>
        </div>
      )}
      {outcome && (
        <p role={outcome.ok ? "status" : "alert"} data-testid="refund-tickets-outcome" data-ok={outcome.ok} className={outcome.ok ? "text-emerald-300" : "text-red-300"}>
          {outcomeText(outcome)}
        </p>
      )}
    </section>
  );
}
