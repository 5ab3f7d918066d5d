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

const LIVE = new Set(["pending_payment", "paid"]);

const STATUS_TEXT: Record<string, string> = {
  pending_payment: "Seats held — waiting for payment",
  paid: "Payment received — issuing your tickets…",
  ticketed: "Your tickets are ready",
  expired: "Hold expired",
  cancelled: "Cancelled",
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

export function OrderView({ initial }: { initial: FanOrderView }) {
  const { data: order = initial } = useQuery({
    queryKey: ["order", initial.id],
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
  const holdOver = order.status === "pending_payment" && left === 0;
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
        {STATUS_TEXT[order.status] ?? order.status}
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
          <div className="flex gap-3">
            <button
              disabled={pending || holdOver}
              onClick={() => startTransition(async () => setError((await payAction(order.id))?.error ?? null))}
              className="rounded bg-emerald-500 px-5 py-2 font-semibold text-black hover:bg-emerald-400 disabled:opacity-50"
            >
              Pay {formatMoney(order.totalMinor, order.currency)}
            </button>
            <button
              disabled={pending}
              onClick={() =>
                startTransition(async () => {
                  const r = await cancelAction(order.id);
                  setError(r.ok ? null : r.error);
                })
              }
              className="rounded bg-white/10 px-4 py-2 hover:bg-white/20"
            >
              Give the seats back
            </button>
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
              </li>
            ))}
          </ul>
          <Link href="/tickets" className="underline">
            All my tickets
          </Link>
        </section>
      )}
      <Link href={`/events/${order.event.slug}`} className="block text-sm underline">
        Back to the show
      </Link>
    </div>
  );
}
