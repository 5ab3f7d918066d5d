"use client";
/**
 * An order, followed live: pending_payment (countdown, pay, give back) → paid → ticketed
 * (QR codes). Polls /api/orders/:id while the order can still change.
 */
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useLocale, useTranslations } from "next-intl";
import { useState, useTransition } from "react";
import { cancelAction, payAction } from "@/app/[locale]/orders/[orderId]/actions";
import { formatClock, useTimeLeft } from "@/components/countdown";
import { formatInZone, formatMoney } from "@/lib/format";
import { intlLocale } from "@/lib/i18n/config";
import type { FanOrderView } from "@/lib/orders/queries";
import { TicketQr } from "@/components/ticket-qr";
import { formatShortCode } from "@/lib/tickets/short-code";
import { seatLabel, type SeatWords } from "@/lib/venues/seat-label";

const LIVE = new Set(["pending_payment", "paid"]);

/** The order statuses with words of their own (catalogue keys `Order.status_<status>`). */
const STATUSES = new Set(["pending_payment", "paid", "ticketed", "expired", "cancelled", "refunded", "partially_refunded"]);
/** From how much hold time left the page warns (ms). */
const HOLD_WARNING_MS = 60_000;

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
  const t = useTranslations("Order");
  const seatWords = useTranslations("Seat") as unknown as SeatWords;
  const fmt = intlLocale(useLocale());
  const left = useTimeLeft(order.holdExpiresAt);
  const [pending, startTransition] = useTransition();
  const [error, setError] = useState<string | null>(null);
  // "Give the seats back" asks once more before it lets them go.
  const [confirmGiveBack, setConfirmGiveBack] = useState(false);
  const holdOver = order.status === "pending_payment" && left === 0;
  // The PSP has the payment in hand but has not said "captured" yet: paying again is not offered.
  const confirming = order.status === "pending_payment" && order.payment?.status === "pending";
  const holdWarning = order.status === "pending_payment" && left > 0 && left <= HOLD_WARNING_MS;

  return (
    <div className="space-y-6" data-testid="order" data-status={order.status}>
      <header className="space-y-1">
        <p className="text-sm text-white/60">{t("order", { id: order.id })}</p>
        <h1 className="text-3xl font-bold">{order.event.name}</h1>
        <p className="text-white/70">
          {order.event.venue} · {formatInZone(new Date(order.event.startsAt), order.event.timeZone, fmt)}
        </p>
      </header>

      <p className="text-xl font-semibold" data-testid="order-status">
        {confirming ? t("confirming") : STATUSES.has(order.status) ? t(`status_${order.status}` as "status_paid") : order.status}
      </p>

      {order.status === "pending_payment" && (
        <div className="space-y-3 rounded-xl border border-amber-300/30 bg-amber-300/5 p-4">
          {holdOver ? (
            <p className="text-amber-200">{t("holdOver")}</p>
          ) : (
            <div data-testid="hold" data-warning={holdWarning ? "true" : "false"}>
              <p>
                {t("holdFor")}{" "}
                <span role="timer" className={`font-mono text-2xl tabular-nums ${holdWarning ? "text-amber-300" : ""}`} data-testid="hold-countdown">
                  {formatClock(left)}
                </span>
              </p>
              {holdWarning && (
                <p role="status" className="font-semibold text-amber-300" data-testid="hold-warning">
                  {t("holdEndingSoon")}
                </p>
              )}
            </div>
          )}
          {order.payment?.status === "declined" && (
            <p role="alert" className="text-red-300">
              {t("declined")}
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
              {t("pay", { amount: formatMoney(order.totalMinor, order.currency, fmt) })}
            </button>
            )}
            {confirmGiveBack ? (
              <span className="flex flex-wrap items-center gap-2" role="group" aria-label={t("giveBackQuestion")}>
                <span>{t("giveBackConfirm")}</span>
                <button
                  disabled={pending}
                  onClick={() =>
                    startTransition(async () => {
                      const r = await cancelAction(order.id);
                      setError(r.ok ? null : r.error);
                      setConfirmGiveBack(false);
                    })
                  }
                  className="button-danger px-4 py-2"
                >
                  {t("giveBackYes")}
                </button>
                <button disabled={pending} onClick={() => setConfirmGiveBack(false)} className="rounded bg-white/10 px-4 py-2 hover:bg-white/20">
                  {t("keep")}
                </button>
              </span>
            ) : (
              <button disabled={pending} onClick={() => setConfirmGiveBack(true)} className="rounded bg-white/10 px-4 py-2 hover:bg-white/20">
                {t("giveBack")}
              </button>
            )}
          </div>
        </div>
      )}
      {order.status === "expired" && (
        <p className="text-amber-200">
          {t("expiredNote")} {order.refunded ? t("lateRefunded") : t("nothingCharged")}
        </p>
      )}
      {order.status === "refunded" && <p className="text-amber-200">{t("refundedNote")}</p>}
      {order.status === "cancelled" && (
        <p className="text-amber-200" data-testid="order-cancelled-note">
          {order.voided
            ? t("voidedNote")
            : order.refunded
              ? t("cancelledRefunded")
              : t("cancelledNote")}
        </p>
      )}

      <table className="w-full max-w-2xl text-left text-sm">
        <tbody>
          {order.seats.map((s) => (
            <tr key={s.label} className="border-t border-white/10">
              <td className="py-2" data-testid="order-seat">
                {seatLabel(seatWords, s.seat)}
              </td>
              <td>{s.priceLevel}</td>
              <td className="text-right">{formatMoney(s.priceMinor, order.currency, fmt)}</td>
            </tr>
          ))}
          <tr className="border-t border-white/30 font-semibold">
            <td className="py-2">{t("total")}</td>
            <td />
            <td className="text-right">{formatMoney(order.totalMinor, order.currency, fmt)}</td>
          </tr>
        </tbody>
      </table>

      {order.tickets.length > 0 && (
        <section className="space-y-3">
          <h2 className="text-xl font-semibold">{t("tickets")}</h2>
          <ul className="grid gap-4 sm:grid-cols-2 md:grid-cols-3">
            {order.tickets.map((ticket) => (
              <li key={ticket.id} className="rounded-xl bg-white p-3 text-black" data-testid="ticket">
                <TicketQr code={ticket.code} className="mx-auto w-48" />
                <p className="mt-2 text-center text-sm font-semibold" data-testid="ticket-seat">
                  {seatLabel(seatWords, ticket.seat)}
                </p>
                {ticket.shortCode && (
                  <p className="text-center font-mono text-base tracking-widest" data-testid="ticket-short-code" aria-label={t("ticketCode", { code: formatShortCode(ticket.shortCode) })}>
                    {formatShortCode(ticket.shortCode)}
                  </p>
                )}
              </li>
            ))}
          </ul>
          <Link href="/tickets" className="underline">
            {t("allTickets")}
          </Link>
        </section>
      )}
      {(order.status === "expired" || order.status === "cancelled" || holdOver) && (
        <Link href={`/events/${order.event.slug}`} className="button-primary inline-block px-5 py-2" data-testid="pick-again">
          {t("pickAgain")}
        </Link>
      )}
      <Link href={`/events/${order.event.slug}`} className="block text-sm underline">
        {t("backToShow")}
      </Link>
    </div>
  );
}
