/**
 * The fan's read models (lib/orders/queries.ts) on the real Postgres and Redis: each seat comes
 * with the parts its label is composed from in the reader's language (issue 42), and "My
 * tickets" lists the soonest show first, then by seat — not in the order they were bought.
 */
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { payments } from "@/db/schema";
import { closeDb, db } from "@/lib/db";
import { rebuildInventory } from "@/lib/inventory/rebuild";
import { getFanOrder, getFanTickets } from "@/lib/orders/queries";
import { placeOrder } from "@/lib/orders/place-order";
import { startCheckout } from "@/lib/payments/checkout";
import { SandboxProvider } from "@/lib/payments/sandbox/provider";
import * as psp from "@/lib/payments/sandbox/psp";
import { syncOrderPayment } from "@/lib/payments/sync";
import { closeRedis } from "@/lib/redis";
import { makeStudioShow, makeUser } from "@/lib/testing/fixtures";
import { issueTickets } from "@/lib/tickets/issue";
import { seatLabel, type SeatWords } from "@/lib/venues/seat-label";

afterAll(async () => {
  await closeDb();
  await closeRedis();
});

const DAY = 86_400_000;
const english: SeatWords = (key, v) => (key === "standing" ? `Floor GA · Unit ${v.unit}` : `Sec ${v.section} · Row ${v.row} · Seat ${v.seat}`);

/** `fanId` buys studio seats `ordinals` of a show starting `inDays` from now; the order is ticketed. */
async function buy(fanId: string, inDays: number, ordinals: number[]) {
  const now = Date.now();
  const show = await makeStudioShow(db(), { startsAt: new Date(now + inDays * DAY), onSaleAt: new Date(now - 60_000) });
  await rebuildInventory(db(), show.eventId);
  const order = await placeOrder(db(), { eventId: show.eventId, fanId, request: { kind: "seats", ordinals } });
  await startCheckout(db(), new SandboxProvider(), { orderId: order.orderId, fanId });
  await psp.approve((await db().query.payments.findFirst({ where: eq(payments.orderId, order.orderId) }))!.checkoutSessionId);
  await syncOrderPayment(db(), order.orderId, { actor: "test", reason: "return" });
  await issueTickets(db(), order.orderId, { actor: "test", reason: "tickets" });
  return { eventId: show.eventId, orderId: order.orderId };
}

describe("the fan's orders and tickets", () => {
  it("give every seat's parts, which compose to its stored English label", async () => {
    const fan = await makeUser(db());
    const { orderId } = await buy(fan.id, 3, [12, 0]);
    const order = (await getFanOrder(db(), orderId, fan.id))!;
    // Studio: rows A–E of 10 seats; ordinal 12 is row B seat 3.
    expect(order.seats.map((s) => s.seat)).toEqual([
      { section: "MAIN", standing: false, row: "A", number: 1 },
      { section: "MAIN", standing: false, row: "B", number: 3 },
    ]);
    for (const s of order.seats) expect(seatLabel(english, s.seat)).toBe(s.label);
    expect(order.tickets.map((t) => [t.seatLabel, t.seat.row, t.seat.number])).toEqual([
      ["Sec MAIN · Row A · Seat 1", "A", 1],
      ["Sec MAIN · Row B · Seat 3", "B", 3],
    ]);
  });

  it("list My tickets soonest show first, then by seat, whatever the order of buying", async () => {
    const fan = await makeUser(db());
    const later = await buy(fan.id, 30, [5]);
    const sooner = await buy(fan.id, 2, [40, 3]);
    const middle = await buy(fan.id, 10, [21]);
    const list = await getFanTickets(db(), fan.id);
    expect(list.map((t) => [t.orderId, t.seatLabel])).toEqual([
      [sooner.orderId, "Sec MAIN · Row A · Seat 4"],
      [sooner.orderId, "Sec MAIN · Row E · Seat 1"],
      [middle.orderId, "Sec MAIN · Row C · Seat 2"],
      [later.orderId, "Sec MAIN · Row A · Seat 6"],
    ]);
    for (const t of list) expect(seatLabel(english, t.seat)).toBe(t.seatLabel);
    const starts = list.map((t) => t.startsAt.getTime());
    expect([...starts].sort((a, b) => a - b)).toEqual(starts);
  });
});
