/**
 * I1 (no oversell) is enforced by Postgres itself: the partial unique index
 * line_items_live_seat_uq allows at most one live (held or sold) line item per
 * (event, seat). These tests write straight to the tables, bypassing every app check.
 */
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventSeats, lineItems, orders, priceLevels } from "@/db/schema";
import { closeDb, db } from "@/lib/db";
import { createEvent } from "@/lib/events/create";
import { newId } from "@/lib/ids";
import { makeFans, makeStudioShow, makeUser } from "@/lib/testing/fixtures";

let show: Awaited<ReturnType<typeof makeStudioShow>>;
let fanId: string;
let seatId: number;
let levelId: string;

beforeAll(async () => {
  show = await makeStudioShow(db());
  fanId = (await makeUser(db())).id;
  const [first] = await db()
    .select({ seatId: eventSeats.seatId, levelId: eventSeats.priceLevelId })
    .from(eventSeats)
    .where(eq(eventSeats.eventId, show.eventId))
    .limit(1);
  seatId = first!.seatId;
  levelId = first!.levelId;
});

afterAll(async () => {
  await closeDb();
});

/**
 * Writes an order with one line item for `seat` in the given status, in one transaction.
 * Each order is another fan's (`owner`, default a new one): a fan may have one pending order per show.
 */
async function orderWithSeat(seat: number, status: "held" | "sold" | "released" = "held", owner?: string) {
  const orderId = newId("ord");
  const [buyer] = owner ? [owner] : await makeFans(db(), 1);
  await db().transaction(async (tx) => {
    await tx.insert(orders).values({
      id: orderId,
      eventId: show.eventId,
      fanId: buyer!,
      holdId: newId("hld"),
      holdExpiresAt: new Date(Date.now() + 15 * 60_000),
      totalMinor: 4_500,
      currency: "EUR",
    });
    await tx.insert(lineItems).values({ orderId, eventId: show.eventId, seatId: seat, priceLevelId: levelId, priceMinor: 4_500, currency: "EUR", status });
  });
  return orderId;
}

function uniqueViolation(error: unknown): string | undefined {
  let e = error as { code?: string; constraint_name?: string; cause?: unknown } | undefined;
  while (e && !e.code && e.cause) e = e.cause as typeof e;
  return e?.code === "23505" ? e.constraint_name : undefined;
}

describe("I1 in the database: one live line item per (event, seat)", () => {
  it("rejects a second held line item for the same seat, and leaves no half-written order", async () => {
    const first = await orderWithSeat(seatId, "held", fanId);
    const [rival] = await makeFans(db(), 1);
    const error = await orderWithSeat(seatId, "held", rival).catch((e: unknown) => e);
    expect(uniqueViolation(error)).toBe("line_items_live_seat_uq");
    const live = await db()
      .select()
      .from(lineItems)
      .where(and(eq(lineItems.eventId, show.eventId), eq(lineItems.seatId, seatId)));
    expect(live.map((l) => l.orderId)).toEqual([first]);
    // the losing transaction's order row was rolled back with its line item
    expect(await db().select().from(orders).where(eq(orders.fanId, fanId))).toHaveLength(1);
    expect(await db().select().from(orders).where(eq(orders.fanId, rival!))).toHaveLength(0);
  });

  it("rejects a hold on a sold seat, and allows a new hold once the old one is released", async () => {
    const [, other] = await db().select({ seatId: eventSeats.seatId }).from(eventSeats).where(eq(eventSeats.eventId, show.eventId)).limit(2);
    const soldOrder = await orderWithSeat(other!.seatId, "sold");
    expect(uniqueViolation(await orderWithSeat(other!.seatId).catch((e: unknown) => e))).toBe("line_items_live_seat_uq");
    await db().update(lineItems).set({ status: "refunded" }).where(eq(lineItems.orderId, soldOrder));
    const again = await orderWithSeat(other!.seatId);
    await db().update(lineItems).set({ status: "released" }).where(eq(lineItems.orderId, again));
    await expect(orderWithSeat(other!.seatId)).resolves.toMatch(/^ord_/);
  });

  it("under 40 concurrent transactions for one seat, exactly one commits", async () => {
    const [, , third] = await db().select({ seatId: eventSeats.seatId }).from(eventSeats).where(eq(eventSeats.eventId, show.eventId)).limit(3);
    const fans = await makeFans(db(), 40);
    const results = await Promise.allSettled(fans.map((f) => orderWithSeat(third!.seatId, "held", f)));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(rejected).toHaveLength(39);
    expect(rejected.every((r) => uniqueViolation(r.reason) === "line_items_live_seat_uq")).toBe(true);
    const live = await db()
      .select()
      .from(lineItems)
      .where(and(eq(lineItems.eventId, show.eventId), eq(lineItems.seatId, third!.seatId)));
    expect(live).toHaveLength(1);
  });

  it("a fan has at most one pending order per show (docs/adr/0011)", async () => {
    const [buyer] = await makeFans(db(), 1);
    const [, , , a, b] = await db().select({ seatId: eventSeats.seatId }).from(eventSeats).where(eq(eventSeats.eventId, show.eventId)).limit(5);
    const first = await orderWithSeat(a!.seatId, "held", buyer);
    expect(uniqueViolation(await orderWithSeat(b!.seatId, "held", buyer).catch((e: unknown) => e))).toBe("orders_one_pending_per_fan_uq");
    // Once the first is no longer pending, the fan may hold again.
    await db().update(orders).set({ status: "expired" }).where(eq(orders.id, first));
    await db().update(lineItems).set({ status: "released" }).where(eq(lineItems.orderId, first));
    await expect(orderWithSeat(b!.seatId, "held", buyer)).resolves.toMatch(/^ord_/);
  });

  it("the same seat is independent across two shows of one venue", async () => {
    const now = Date.now();
    const { eventId: secondShow } = await createEvent(db(), {
      venueId: show.venueId,
      organizerId: show.organizerId,
      name: "Second night",
      slug: `second-night-${now}`,
      startsAt: new Date(now + 2 * 86_400_000),
      onSaleAt: new Date(now),
      timeZone: "Europe/Berlin",
      priceLevels: [{ name: "All", priceMinor: 1_000, currency: "EUR", color: "#111111", seats: [{}] }],
    });
    const [level] = await db().select().from(priceLevels).where(eq(priceLevels.eventId, secondShow));
    const orderId = newId("ord");
    await db().insert(orders).values({ id: orderId, eventId: secondShow, fanId, holdId: newId("hld"), holdExpiresAt: new Date(now + 60_000), totalMinor: 1_000, currency: "EUR" });
    // seatId is already held for the first show (first test); the second show may still sell it.
    await expect(
      db().insert(lineItems).values({ orderId, eventId: secondShow, seatId, priceLevelId: level!.id, priceMinor: 1_000, currency: "EUR" }),
    ).resolves.toBeDefined();
  });

  it("rejects impossible money: negative prices and lower-case currencies", async () => {
    await expect(
      db().insert(priceLevels).values({ id: newId("pl"), eventId: show.eventId, name: "Bad", priceMinor: -1, currency: "EUR", color: "#000000" }),
    ).rejects.toThrow();
    await expect(
      db().insert(priceLevels).values({ id: newId("pl"), eventId: show.eventId, name: "Bad2", priceMinor: 100, currency: "eur", color: "#000000" }),
    ).rejects.toThrow();
  });
});
