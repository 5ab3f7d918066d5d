"use server";
/**
 * Server actions of the admin order page: refund, refund some tickets, re-issue tickets,
 * release a stuck hold. Thin: parse the id, check the caller owns the order's show
 * (requireOrganizerOfEvent: fans and other organizers get 403), call one lib/admin function,
 * report the outcome in the reader's words (seats composed in their language) and refresh the
 * page. A refusal comes back as `{ ok: false, message, code }` (the message in the reader's
 * language where the catalogue has it: lib/http/action.ts; the page may word it by `code`).
 */
import { refresh } from "next/cache";
import { getLocale, getTranslations } from "next-intl/server";
import { z } from "zod";
import { orderShow, refundOrder, refundOrderTickets, reissueTickets, releaseStuckHold, seatsOfOrder } from "@/lib/admin/orders";
import { requireOrganizerOfEvent } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { formatMoney } from "@/lib/format";
import { action } from "@/lib/http/action";
import { intlLocale, isLocale } from "@/lib/i18n/config";
import { orderIdSchema } from "@/lib/ids";
import { REFUND_REASON_MAX, REFUND_TICKETS_MAX } from "@/lib/payments/refund-tickets";
import { seatLabel, type SeatWords } from "@/lib/venues/seat-label";

/** What an action reports back to the page: the outcome in words, and a refusal's stable code. */
export type AdminOrderActionResult = { ok: boolean; message: string; code?: string };

/** The reader's words for an outcome: the `AdminOrders` translator, money in their locale, and stored seat labels of the order composed in their language. */
async function wordsFor(orderId: string) {
  const [t, seatWords, locale, seats] = await Promise.all([getTranslations("AdminOrders"), getTranslations("Seat"), getLocale(), seatsOfOrder(db(), orderId)]);
  const fmt = intlLocale(isLocale(locale) ? locale : "en");
  const parts = new Map(seats.map((s) => [s.label, s]));
  const seat = (label: string) => {
    const p = parts.get(label);
    return p ? seatLabel(seatWords as unknown as SeatWords, p) : label;
  };
  return { t, money: (minor: number, currency: string) => formatMoney(minor, currency, fmt), seatList: (labels: readonly string[]) => labels.map(seat).join(", ") };
}

const refused = (failure: { error: string; code: string }): AdminOrderActionResult => {
  refresh();
  return { ok: false, message: failure.error, code: failure.code };
};

/** One order action: the organizer of the order's show only (403 for anyone else); the page refreshes whatever happened. */
function orderAction(act: (organizerId: string, orderId: string) => Promise<string>) {
  return action(
    {
      who: { organizer: true },
      args: z.tuple([orderIdSchema]),
      onError: (failure): AdminOrderActionResult => refused(failure.code === "invalid_input" ? { ...failure, code: "no_such_order" } : failure),
    },
    async (_call, orderId): Promise<AdminOrderActionResult> => {
      const order = await orderShow(db(), orderId);
      if (!order) throw new AppError("not_found", "no_such_order", "There is no such order.");
      const { user } = await requireOrganizerOfEvent(order.eventId, `/admin/orders/${order.orderId}`);
      const message = await act(user.id, order.orderId);
      refresh();
      return { ok: true, message };
    },
  );
}

/** Refunds the order in full (kept payment at the PSP, tickets void, seats back on sale). */
export const refundOrderAction = orderAction(async (organizerId, id) => {
  const r = await refundOrder(db(), organizerId, id);
  const { t, money, seatList } = await wordsFor(id);
  const paid = r.refunded.map((p) => money(p.amountMinor, p.currency)).join(" + ");
  const parts = [paid ? t("refundedFull", { amount: paid, voided: r.ticketsVoided }) : t("refundedNothing", { voided: r.ticketsVoided })];
  if (r.seatsReleased.length > 0) parts.push(t("backOnSale", { count: r.seatsReleased.length, seats: seatList(r.seatsReleased) }));
  if (r.redis.result === "error") parts.push(t("mapCatchesUp"));
  return parts.join(" ");
});

/**
 * Refunds the ticked tickets with a reason (lib/admin/orders.ts `refundOrderTickets`): their
 * prices back at the PSP, those tickets void, their seats back on sale. `idempotencyKey` is the
 * form's nonce, so a double submit refunds once.
 */
export const refundTicketsAction = action(
  {
    who: { organizer: true },
    args: z.tuple([
      orderIdSchema,
      z.object({
        ticketIds: z.array(z.string().regex(/^tkt_[0-9a-z]{1,32}$/, "That is not a ticket id")).min(1, "Tick the tickets to refund.").max(REFUND_TICKETS_MAX),
        reason: z.string().max(REFUND_REASON_MAX * 2),
        idempotencyKey: z.string().min(8).max(100),
      }),
    ]),
    onError: (failure): AdminOrderActionResult => refused(failure),
  },
  async (_call, orderId, request): Promise<AdminOrderActionResult> => {
    const order = await orderShow(db(), orderId);
    if (!order) throw new AppError("not_found", "no_such_order", "There is no such order.");
    const { user } = await requireOrganizerOfEvent(order.eventId, `/admin/orders/${order.orderId}`);
    const r = await refundOrderTickets(db(), user.id, order.orderId, request);
    refresh();
    const { t, money, seatList } = await wordsFor(order.orderId);
    const message = t("refundedTickets", { amount: money(r.amountMinor, r.currency), seats: seatList(r.seats), count: r.seats.length });
    return { ok: true, message: r.redis === "error" ? `${message} ${t("mapCatchesUp")}` : message };
  },
);

/** Gives the order's valid tickets new codes (old codes stop working). */
export const reissueTicketsAction = orderAction(async (organizerId, id) => {
  const r = await reissueTickets(db(), organizerId, id);
  const { t, seatList } = await wordsFor(id);
  const message = t("reissued", { count: r.reissued.length, seats: seatList(r.reissued.map((ticket) => ticket.seatLabel)) });
  return r.skipped.length > 0 ? `${message} ${t("reissueSkipped", { count: r.skipped.length })}` : message;
});

/** Ends a hold past its expiry (asks the PSP first). */
export const releaseStuckHoldAction = orderAction(async (organizerId, id) => {
  const r = await releaseStuckHold(db(), organizerId, id);
  const t = await getTranslations("AdminOrders");
  return r.result === "paid" ? t("releasedPaid") : t("released");
});
