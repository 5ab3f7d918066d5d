"use server";
/**
 * Server actions of the admin order page: refund, re-issue tickets, release a stuck hold.
 * Thin: parse the id, check the caller owns the order's show (requireOrganizerOfEvent:
 * fans and other organizers get 403), call one lib/admin function, report the outcome in
 * words and refresh the page. A refusal comes back as `{ ok: false, message }`.
 */
import { refresh } from "next/cache";
import { z } from "zod";
import { orderShow, refundOrder, refundOrderTickets, reissueTickets, releaseStuckHold } from "@/lib/admin/orders";
import { requireOrganizerOfEvent } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { formatMoney } from "@/lib/format";
import { action } from "@/lib/http/action";
import { orderIdSchema } from "@/lib/ids";
import { REFUND_REASON_MAX, REFUND_TICKETS_MAX } from "@/lib/payments/refund-tickets";

/** What an action reports back to the page. */
export type AdminOrderActionResult = { ok: boolean; message: string };

/** One order action: the organizer of the order's show only (403 for anyone else); the page refreshes whatever happened. */
function orderAction(act: (organizerId: string, orderId: string) => Promise<string>) {
  return action(
    {
      who: { organizer: true },
      args: z.tuple([orderIdSchema]),
      onError: (failure): AdminOrderActionResult => {
        refresh();
        return { ok: false, message: failure.code === "invalid_input" ? "There is no such order." : failure.error };
      },
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
  const money = r.refunded.map((p) => formatMoney(p.amountMinor, p.currency)).join(" + ") || "nothing";
  const seats = r.seatsReleased.length > 0 ? ` ${r.seatsReleased.join(", ")} ${r.seatsReleased.length === 1 ? "is" : "are"} back on sale.` : "";
  const redis = r.redis.result === "error" ? " (The seat map catches up at the next reconciliation.)" : "";
  return `Refunded ${money}. ${r.ticketsVoided} ${r.ticketsVoided === 1 ? "ticket" : "tickets"} voided.${seats}${redis}`;
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
    onError: (failure): AdminOrderActionResult => {
      refresh();
      return { ok: false, message: failure.error };
    },
  },
  async (_call, orderId, request): Promise<AdminOrderActionResult> => {
    const order = await orderShow(db(), orderId);
    if (!order) throw new AppError("not_found", "no_such_order", "There is no such order.");
    const { user } = await requireOrganizerOfEvent(order.eventId, `/admin/orders/${order.orderId}`);
    const r = await refundOrderTickets(db(), user.id, order.orderId, request);
    refresh();
    const redis = r.redis === "error" ? " (The seat map catches up at the next reconciliation.)" : "";
    return { ok: true, message: `Refunded ${formatMoney(r.amountMinor, r.currency)} for ${r.seats.join(", ")}. ${r.seats.length === 1 ? "That ticket no longer gets in and its seat is" : "Those tickets no longer get in and their seats are"} back on sale.${redis}` };
  },
);

/** Gives the order's valid tickets new codes (old codes stop working). */
export const reissueTicketsAction = orderAction(async (organizerId, id) => {
  const r = await reissueTickets(db(), organizerId, id);
  const skipped = r.skipped.length > 0 ? ` ${r.skipped.length} changed meanwhile and ${r.skipped.length === 1 ? "was" : "were"} left alone.` : "";
  return `Re-issued ${r.reissued.length} ${r.reissued.length === 1 ? "ticket" : "tickets"}: ${r.reissued.map((t) => t.seatLabel).join(", ")}. The old codes no longer get in.${skipped}`;
});

/** Ends a hold past its expiry (asks the PSP first). */
export const releaseStuckHoldAction = orderAction(async (organizerId, id) => {
  const r = await releaseStuckHold(db(), organizerId, id);
  return r.result === "paid"
    ? "The payment provider reports that the fan paid, so the order is now paid (tickets follow) instead of released."
    : "Hold released: the order is cancelled and its seats are back on sale.";
});
