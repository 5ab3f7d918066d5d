"use client";
/**
 * An order, followed live: pending_payment (countdown, pay, give back) → paid → ticketed
 * (QR codes). Polls /api/orders/:id while the order can still change.
 */
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useState, useTransition } from "react";
import { cancelAction, payAction } from "@/app/orders/[orderId]/actions";
import { formatInZone, formatMoney } from "@/lib/format";
import type { FanOrderView } from "@/lib/orders/queries";
import { TicketQr } from "@/components/ticket-qr";
import { formatShortCode } from "@/lib/tickets/short-code";

const LIVE = new Set(["pending_payment", "paid"]);

const STATUS_TEXT: Record<string, string> = {
  pending_payment: "Seats held — waiting for payment",
  paid: "Payment received — issuing your tickets…",
  ticketed: "Your tickets are ready",
  expired: "Hold expired",
  cancelled: "Seats given back",
  refunded: "Refunded",
};

function useCountdown(until: string): number {
  const [left, setLeft] = useState(() => Math.max(0, new Date(until).getTime() - Date.now()));
  useEffect(() => {
    const tick = () => setLeft(Math.max(0, new Date(until).getTime() - Date.now()));
    tick();
    const id = setInterval(tick, 500);
    return () => clearInterval(id);
  }, [until]);
  return left;
}

/**
 * @param initial the order as the server read it for this render. Its `readAt` is part of the
 *   query's key, so a new render's order replaces what the browser's query cache still holds
 *   from an earlier visit (coming back from the PSP, the cache showed "waiting for payment"
 *   with Pay enabled for ~2 s although the server had already seen the payment).
 */
export function OrderView({ initial }: { initial: FanOrderView }) {
  const { data: order = initial } = useQuery({
    queryKey: ["order", initial.id, initial.readAt],
    queryFn: async () => {
      const res = await fetch(`/api/orders/${initial.id}`);
      if (!res.ok) throw new Error(String(res.status));
      return (await res.json()) as FanOrderView;
    },
    initialData: initial,
    refetchInterval: (q) => (LIVE.has(q.state.data?.status ?? "") ? 1_500 : false),
  });
  const left = useCountdown(order.holdExpiresAt);
  const [pending, startTransition] = useTransition();
  const [error, setError] = useState<string | null>(null);
  // "Give the seats back" asks once more before it lets them go.
  const [confirmGiveBack, setConfirmGiveBack] = useState(false);
  const holdOver = order.status === "pending_payment" && left === 0;
  // The PSP has the payment in hand but has not said "captured" yet: paying again is not offered.
  const confirming = order.status === "pending_payment" && order.payment?.status === "pending";
  const mm = Math.floor(left / 60_000);
  const ss = Math.floor((left % 60_000) / 1000).toString().padStart(2, "0");

  return (
    <div className="space-y-6" data-testid="order" data-status={order.status}>
      <header className="space-y-1">
        <p className="text-sm text-white/60">Order {order.id}</p>
        <h1 className="text-3xl font-bold">{order.event.name}</h1>
        <p className="text-white/70">
          {order.event.venue} · {formatInZone(new Date(order.event.startsAt), order.event.timeZone)}
        </p>
      </header>

      <p className="text-xl font-semibold" data-testid="order-status">
        {confirming ? "Payment being confirmed by the payment provider…" : (STATUS_TEXT[order.status] ?? order.status)}
      </p>

      {order.status === "pending_payment" && (
        <div className="space-y-3 rounded-xl border border-amber-300/30 bg-amber-300/5 p-4">
          {holdOver ? (
            <p className="text-amber-200">Your hold has run out. The seats go back on sale in a moment — pick seats again.</p>
          ) : (
            <p>
              We hold these seats for you for <span className="font-mono text-2xl tabular-nums" data-testid="hold-countdown">{mm}:{ss}</span>
            </p>
          )}
          {order.payment?.status === "declined" && (
            <p role="alert" className="text-red-300">
              Your payment was declined and nothing was charged. You can try again while your hold lasts.
            </p>
          )}
          {error && (
            <p role="alert" className="text-red-300">
              {error}
            </p>
          )}
          <div className="flex flex-wrap gap-3">
            {!confirming && (
            <button
              disabled={pending || holdOver}
              onClick={() => startTransition(async () => setError((await payAction(order.id))?.error ?? null))}
              className="rounded bg-emerald-500 px-5 py-2 font-semibold text-black hover:bg-emerald-400 disabled:opacity-50"
            >
              Pay {formatMoney(order.totalMinor, order.currency)}
            </button>
            )}
            {confirmGiveBack ? (
              <span className="flex flex-wrap items-center gap-2" role="group" aria-label="Give the seats back?">
                <span>Give these seats back? Someone else can buy them at once.</span>
                <button
                  disabled={pending}
                  onClick={() =>
                    startTransition(async () => {
                      const r = await cancelAction(order.id);
                      setError(r.ok ? null : r.error);
                      setConfirmGiveBack(false);
                    })
                  }
                  className="rounded bg-red-500/80 px-4 py-2 font-semibold hover:bg-red-500"
                >
                  Yes, give them back
                </button>
                <button disabled={pending} onClick={() => setConfirmGiveBack(false)} className="rounded bg-white/10 px-4 py-2 hover:bg-white/20">
                  Keep them
                </button>
              </span>
            ) : (
              <button disabled={pending} onClick={() => setConfirmGiveBack(true)} className="rounded bg-white/10 px-4 py-2 hover:bg-white/20">
                Give the seats back
              </button>
            )}
          </div>
        </div>
      )}
      {order.status === "expired" && (
        <p className="text-amber-200">
          Your hold expired before payment, so the seats went back on sale.{" "}
          {order.refunded ? "A payment that arrived too late has been refunded in full." : "Nothing was charged."}
        </p>
      )}
      {order.status === "refunded" && <p className="text-amber-200">This order was refunded in full.</p>}
      {order.status === "cancelled" && (
        <p className="text-amber-200" data-testid="order-cancelled-note">
          {order.voided
            ? "The payment provider has no record of a payment for this order, so its tickets were cancelled and the seats went back on sale. Nothing was charged."
            : order.refunded
              ? "The seats were given back before payment. A payment that arrived afterwards has been refunded in full."
              : "The seats were given back before payment; nothing was charged."}
        </p>
      )}

      <table className="w-full max-w-2xl text-left text-sm">
        <tbody>
          {order.seats.map((s) => (
            <tr key={s.label} className="border-t border-white/10">
              <td className="py-2">{s.label}</td>
              <td>{s.priceLevel}</td>
              <td className="text-right">{formatMoney(s.priceMinor, order.currency)}</td>
            </tr>
          ))}
          <tr className="border-t border-white/30 font-semibold">
            <td className="py-2">Total</td>
            <td />
            <td className="text-right">{formatMoney(order.totalMinor, order.currency)}</td>
          </tr>
        </tbody>
      </table>

      {order.tickets.length > 0 && (
        <section className="space-y-3">
          <h2 className="text-xl font-semibold">Tickets</h2>
          <ul className="grid gap-4 sm:grid-cols-2 md:grid-cols-3">
            {order.tickets.map((t) => (
              <li key={t.id} className="rounded-xl bg-white p-3 text-black" data-testid="ticket">
                <TicketQr code={t.code} className="mx-auto w-48" />
                <p className="mt-2 text-center text-sm font-semibold">{t.seatLabel}</p>
                {t.shortCode && (
                  <p className="text-center font-mono text-base tracking-widest" data-testid="ticket-short-code" aria-label={`Ticket code ${formatShortCode(t.shortCode)}`}>
                    {formatShortCode(t.shortCode)}
                  </p>
                )}
              </li>
            ))}
          </ul>
          <Link href="/tickets" className="underline">
            All my tickets
          </Link>
        </section>
      )}
      {(order.status === "expired" || order.status === "cancelled" || holdOver) && (
        <Link href={`/events/${order.event.slug}`} className="inline-block rounded bg-indigo-500 px-5 py-2 font-semibold" data-testid="pick-again">
          Pick seats again
        </Link>
      )}
      <Link href={`/events/${order.event.slug}`} className="block text-sm underline">
        Back to the show
      </Link>
    </div>
  );
}
