"use server";
/**
 * Server actions of the admin order page: refund, re-issue tickets, release a stuck hold.
 * Thin: parse the id, check the caller owns the order's show (requireOrganizerOfEvent:
 * fans and other organizers get 403), call one lib/admin function, report the outcome in
 * words and refresh the page.
 */
import { eq } from "drizzle-orm";
import { refresh } from "next/cache";
import { orders } from "@/db/schema";
import { AdminOrderError, refundOrder, reissueTickets, releaseStuckHold } from "@/lib/admin/orders";
import { requireOrganizer, requireOrganizerOfEvent } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { orderIdSchema } from "@/lib/http";
import { formatMoney } from "@/lib/format";

/** What an action reports back to the page. */
export type AdminOrderActionResult = { ok: boolean; message: string };

/** The signed-in organizer of the order's show (403 for anyone else), or null for an unknown order. */
async function organizerOf(id: unknown) {
  const parsed = orderIdSchema.safeParse(id);
  if (!parsed.success) {
    await requireOrganizer();
    return null;
  }
  const order = await db().query.orders.findFirst({ where: eq(orders.id, parsed.data), columns: { id: true, eventId: true } });
  if (!order) {
    await requireOrganizer();
    return null;
  }
  const { user } = await requireOrganizerOfEvent(order.eventId, `/admin/orders/${order.id}`);
  return { user, orderId: order.id };
}

async function run(id: unknown, act: (organizerId: string, orderId: string) => Promise<string>): Promise<AdminOrderActionResult> {
  const who = await organizerOf(id);
  if (!who) return { ok: false, message: "There is no such order." };
  try {
    const message = await act(who.user.id, who.orderId);
    return { ok: true, message };
  } catch (error) {
    if (error instanceof AdminOrderError) return { ok: false, message: error.message };
    throw error;
  } finally {
    refresh();
  }
}

/** Refunds the order in full (kept payment at the PSP, tickets void, seats back on sale). */
export async function refundOrderAction(orderId: unknown): Promise<AdminOrderActionResult> {
  return run(orderId, async (organizerId, id) => {
    const r = await refundOrder(db(), organizerId, id);
    const money = r.refunded.map((p) => formatMoney(p.amountMinor, p.currency)).join(" + ") || "nothing";
    const seats = r.seatsReleased.length > 0 ? ` ${r.seatsReleased.join(", ")} ${r.seatsReleased.length === 1 ? "is" : "are"} back on sale.` : "";
    const redis = r.redis.result === "error" ? " (The seat map catches up at the next reconciliation.)" : "";
    return `Refunded ${money}. ${r.ticketsVoided} ${r.ticketsVoided === 1 ? "ticket" : "tickets"} voided.${seats}${redis}`;
  });
}

/** Gives the order's valid tickets new codes (old codes stop working). */
export async function reissueTicketsAction(orderId: unknown): Promise<AdminOrderActionResult> {
  return run(orderId, async (organizerId, id) => {
    const r = await reissueTickets(db(), organizerId, id);
    const skipped = r.skipped.length > 0 ? ` ${r.skipped.length} changed meanwhile and ${r.skipped.length === 1 ? "was" : "were"} left alone.` : "";
    return `Re-issued ${r.reissued.length} ${r.reissued.length === 1 ? "ticket" : "tickets"}: ${r.reissued.map((t) => t.seatLabel).join(", ")}. The old codes no longer get in.${skipped}`;
  });
}

/** Ends a hold past its expiry (asks the PSP first). */
export async function releaseStuckHoldAction(orderId: unknown): Promise<AdminOrderActionResult> {
  return run(orderId, async (organizerId, id) => {
    const r = await releaseStuckHold(db(), organizerId, id);
    return r.result === "paid"
      ? "The payment provider reports that the fan paid, so the order is now paid (tickets follow) instead of released."
      : "Hold released: the order is cancelled and its seats are back on sale.";
  });
}
