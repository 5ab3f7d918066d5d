"use client";
/**
 * Refund some tickets of an order (docs/adr/0020): tick the tickets, give a reason (required,
 * at most 500 characters), confirm. The form carries one nonce per refund as its idempotency
 * key, so a double click or a resubmit refunds once; a new nonce is drawn after a success.
 */
import { useState, useTransition } from "react";
import { refundTicketsAction, type AdminOrderActionResult } from "@/app/admin/orders/actions";

/** A ticket the organizer may tick: its id, seat and price label ("€29.00"). */
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
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [reason, setReason] = useState("");
  const [key, setKey] = useState(nonce);
  const [confirming, setConfirming] = useState(false);
  const [outcome, setOutcome] = useState<AdminOrderActionResult | null>(null);
  const [pending, startTransition] = useTransition();
  const total = tickets.filter((t) => chosen.has(t.id)).reduce((n, t) => n + t.priceMinor, 0);
  const totalLabel = new Intl.NumberFormat("en-GB", { style: "currency", currency: format.currency }).format(total / 10 ** format.digits);
  const reasonError = reason.trim() === "" ? "Give a reason." : reason.length > REASON_MAX ? `At most ${REASON_MAX} characters (${reason.length}).` : null;

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
      <h2 className="font-semibold">Refund some tickets</h2>
      <fieldset className="space-y-1">
        <legend className="text-sm text-white/60">Tickets to refund</legend>
        {tickets.map((t) => (
          <label key={t.id} className="flex items-center gap-2 text-sm">
            <input type="checkbox" checked={chosen.has(t.id)} onChange={() => toggle(t.id)} disabled={pending} data-testid="refund-ticket" />
            {t.seatLabel} <span className="tabular-nums text-white/60">{t.priceLabel}</span>
          </label>
        ))}
      </fieldset>
      <label className="block text-sm">
        Reason (the fan does not see it; it goes into the audit log)
        <textarea
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          rows={2}
          maxLength={REASON_MAX}
          required
          className="mt-1 w-full rounded bg-black/40 px-3 py-2"
          aria-describedby="refund-reason-count"
        />
        <span id="refund-reason-count" className="block text-xs text-white/50">
          {reason.length}/{REASON_MAX}
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
          className="rounded bg-red-500/80 px-4 py-2 font-semibold hover:bg-red-500 disabled:opacity-40"
        >
          Refund {chosen.size} {chosen.size === 1 ? "ticket" : "tickets"}
        </button>
      ) : (
        <div className="space-y-3 rounded-lg border border-amber-300/30 bg-amber-300/5 p-3" data-testid="confirm-refund-tickets">
          <p className="text-sm text-amber-100">
            The fan gets {totalLabel} back at the payment provider; {chosen.size === 1 ? "that ticket stops" : "those tickets stop"} working and {chosen.size === 1 ? "its seat goes" : "their seats go"} back on sale. The other tickets keep working. This cannot be undone.
          </p>
          <div className="flex gap-3">
            <button type="button" disabled={pending} onClick={submit} className="rounded bg-red-500 px-4 py-2 font-semibold text-white hover:bg-red-400 disabled:opacity-50">
              {pending ? "Working…" : `Yes, refund ${totalLabel}`}
            </button>
            <button type="button" disabled={pending} onClick={() => setConfirming(false)} className="rounded bg-white/10 px-4 py-2 hover:bg-white/20">
              Cancel
            </button>
          </div>
        </div>
      )}
      {outcome && (
        <p role={outcome.ok ? "status" : "alert"} data-testid="refund-tickets-outcome" data-ok={outcome.ok} className={outcome.ok ? "text-emerald-300" : "text-red-300"}>
          {outcome.message}
        </p>
      )}
    </section>
  );
}
