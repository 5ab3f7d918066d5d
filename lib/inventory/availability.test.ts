/**
 * The availability bitset uses Redis's bit order, so it can later be served straight from a Redis
 * bitmap. Every free-seat figure a fan reads — the map, the show page's price table, the home
 * page — comes from it (issue 42), checked here against counts worked out apart on the real
 * Redis and Postgres.
 */
import { and, asc, eq, sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { eventSeats, events, payments, priceLevels, seats } from "@/db/schema";
import { closeDb, db } from "@/lib/db";
import { listPublishedEvents, getPublishedEventBySlug } from "@/lib/events/queries";
import { freeSeatCounts, getAvailability, getBit, levelAvailability, setBit } from "@/lib/inventory/availability";
import { countByLevel, decodeBits } from "@/lib/inventory/availability-bits";
import { holdInRedis } from "@/lib/inventory/hold";
import { inventoryKeys } from "@/lib/inventory/keys";
import { closeRedis, eventKey, redis } from "@/lib/redis";
import { rebuildInventory } from "@/lib/inventory/rebuild";
import { placeOrder } from "@/lib/orders/place-order";
import { releaseOrder } from "@/lib/orders/release";
import { startCheckout } from "@/lib/payments/checkout";
import { SandboxProvider } from "@/lib/payments/sandbox/provider";
import * as psp from "@/lib/payments/sandbox/psp";
import { syncOrderPayment } from "@/lib/payments/sync";
import { makeFans, makeStudioShow, makeUser } from "@/lib/testing/fixtures";
import { issueTickets } from "@/lib/tickets/issue";
import { getSeatMap } from "@/lib/venues/seat-map";

afterAll(async () => {
  await closeDb();
  await closeRedis();
});

describe("availability bitset", () => {
  it("puts each bit where Redis SETBIT/GETBIT put it", async () => {
    const ordinals = [0, 1, 7, 8, 9, 15, 16, 49, 1000, 19_999];
    const bytes = new Uint8Array(2_500);
    for (const i of ordinals) setBit(bytes, i);
    const key = eventKey("evt_bittest", "bits");
    for (const i of ordinals) await redis().setbit(key, i, 1);
    // Redis: bit 0 = most significant bit of byte 0, so bits 0,1,7 set → byte 0 = 0b1100_0001.
    expect(bytes[0]).toBe(0b1100_0001);
    const positions = [...Array.from({ length: 64 }, (_, i) => i), 999, 1000, 1001, 19_998, 19_999];
    const p = redis().pipeline();
    for (const i of positions) p.getbit(key, i);
    const fromRedis = (await p.exec()) as number[];
    expect(positions.map((i) => (getBit(bytes, i) ? 1 : 0))).toEqual(fromRedis);
    expect(ordinals.every((i) => getBit(bytes, i))).toBe(true);
    expect(getBit(bytes, 2)).toBe(false);
  });

  it("reports exactly the free seats of an event", async () => {
    const show = await makeStudioShow(db());
    const all = await db().select({ seatId: eventSeats.seatId, ordinal: seats.ordinal }).from(eventSeats).innerJoin(seats, eq(eventSeats.seatId, seats.id)).where(eq(eventSeats.eventId, show.eventId));
    const taken = all.slice(0, 3);
    for (const t of taken) await db().update(eventSeats).set({ status: "sold" }).where(eq(eventSeats.seatId, t.seatId));
    const a = await getAvailability(db(), show.eventId);
    expect(a!.capacity).toBe(50);
    expect(a!.available).toBe(47);
    const bits = Buffer.from(a!.bits, "base64");
    expect(bits.length).toBe(7);
    for (const s of all) expect(getBit(bits, s.ordinal)).toBe(!taken.includes(s));
    expect(await getAvailability(db(), "evt_doesnotexist")).toBeNull();
  });

  it("comes from the Redis inventory once built: held seats are not free", async () => {
    const show = await makeStudioShow(db());
    await rebuildInventory(db(), show.eventId);
    const [fan] = await makeFans(db(), 1);
    await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [2, 3, 49] } });
    const a = (await getAvailability(db(), show.eventId))!;
    expect(a.source).toBe("redis");
    expect(a.available).toBe(47);
    const bits = Buffer.from(a.bits, "base64");
    expect(bits.length).toBe(7); // ⌈50 / 8⌉, whatever length Redis keeps
    for (let i = 0; i < 50; i++) expect(getBit(bits, i)).toBe(![2, 3, 49].includes(i));
    for (let i = 50; i < 56; i++) expect(getBit(bits, i)).toBe(false);
  });
});

describe("the free seats a fan reads, per price level", () => {
  it("after holds, a sale, a give-back and a hold Postgres has not seen yet, equal the inventory's own count on every page", async () => {
    const show = await makeStudioShow(db());
    await rebuildInventory(db(), show.eventId);
    const [slug] = await db().select({ slug: events.slug }).from(events).where(eq(events.id, show.eventId));
    const [front, back] = await db().select({ id: priceLevels.id }).from(priceLevels).where(eq(priceLevels.eventId, show.eventId)).orderBy(asc(priceLevels.sortOrder));
    // The fixture: "Front" is rows A–B (ordinals 0–19), "Back" rows C–E (20–49).
    const levelOf = (ordinal: number) => (ordinal < 20 ? front!.id : back!.id);

    const held = await makeUser(db());
    await placeOrder(db(), { eventId: show.eventId, fanId: held.id, request: { kind: "seats", ordinals: [2, 3, 25] } });
    const buyer = await makeUser(db());
    const sold = await placeOrder(db(), { eventId: show.eventId, fanId: buyer.id, request: { kind: "seats", ordinals: [10, 40] } });
    await startCheckout(db(), new SandboxProvider(), { orderId: sold.orderId, fanId: buyer.id });
    await psp.approve((await db().query.payments.findFirst({ where: eq(payments.orderId, sold.orderId) }))!.checkoutSessionId);
    await syncOrderPayment(db(), sold.orderId, { actor: "test", reason: "return" });
    await issueTickets(db(), sold.orderId, { actor: "test", reason: "tickets" });
    const givesBack = await makeUser(db());
    const returned = await placeOrder(db(), { eventId: show.eventId, fanId: givesBack.id, request: { kind: "seats", ordinals: [30, 31] } });
    await releaseOrder(db(), returned.orderId, "cancelled", { actor: "test", reason: "given back" });
    // A hold in flight: claimed in Redis (where the hold path decides), not yet written to Postgres.
    await holdInRedis({ eventId: show.eventId, holdId: "hold_inflight_test", fanId: "usr_inflight", expiresAt: new Date(Date.now() + 60_000), perFanLimit: 4, request: { kind: "seats", ordinals: [45, 46] } });

    // Worked out apart: the seats each level has, less those held or sold (30 and 31 came back).
    const taken = new Set([2, 3, 25, 10, 40, 45, 46]);
    const expected = new Map<string, { total: number; available: number }>();
    for (let o = 0; o < 50; o++) {
      const e = expected.get(levelOf(o)) ?? { total: 0, available: 0 };
      e.total++;
      if (!taken.has(o)) e.available++;
      expected.set(levelOf(o), e);
    }
    expect(expected).toEqual(new Map([[front!.id, { total: 20, available: 17 }], [back!.id, { total: 30, available: 26 }]]));
    // …and read seat by seat from the Redis inventory's free bitmap.
    const bitsInRedis = await Promise.all(Array.from({ length: 50 }, (_, o) => redis().getbit(inventoryKeys(show.eventId).free, o)));
    for (const [id, e] of expected) expect(bitsInRedis.filter((b, o) => b === 1 && levelOf(o) === id).length).toBe(e.available);

    // The price table as the server renders it, and as the browser recounts it from the map's answers.
    const counted = (await levelAvailability(db(), show.eventId))!;
    expect(counted.source).toBe("redis");
    expect(counted.levels).toEqual(expected);
    const page = (await getPublishedEventBySlug(db(), slug!.slug))!;
    expect(page.levels.map((l) => [l.id, { total: l.total, available: l.remaining }])).toEqual([...expected]);
    expect(Date.now() - page.availableAt.getTime()).toBeLessThan(5_000);
    const [map, availability] = [(await getSeatMap(db(), show.eventId))!, (await getAvailability(db(), show.eventId))!];
    const inBrowser = countByLevel(decodeBits(availability.bits), map.seats.level, map.levels.length);
    expect(map.levels.map((l, i) => [l.id, { total: inBrowser.total[i], available: inBrowser.free[i] }])).toEqual([...expected]);
    // The home page's count and the map's caption: 43.
    expect(availability.available).toBe(43);
    expect((await freeSeatCounts([show.eventId])).get(show.eventId)).toBe(43);
    expect((await listPublishedEvents(db())).find((e) => e.id === show.eventId)!.seatsAvailable).toBe(43);

    // Postgres alone has not seen the hold in flight: counting its rows (what the table did) says 45.
    const [pg] = await db().select({ n: sql<number>`count(*)::int` }).from(eventSeats).where(and(eq(eventSeats.eventId, show.eventId), eq(eventSeats.status, "available")));
    expect(pg!.n).toBe(45);
  });

  it("come from Postgres, seat by seat, while the Redis inventory is not built", async () => {
    const show = await makeStudioShow(db());
    const all = await db().select({ seatId: eventSeats.seatId, ordinal: seats.ordinal }).from(eventSeats).innerJoin(seats, eq(eventSeats.seatId, seats.id)).where(eq(eventSeats.eventId, show.eventId));
    for (const s of all.filter((s) => [0, 1, 49].includes(s.ordinal))) await db().update(eventSeats).set({ status: "sold" }).where(eq(eventSeats.seatId, s.seatId));
    const counted = (await levelAvailability(db(), show.eventId))!;
    expect(counted.source).toBe("postgres");
    expect([...counted.levels.values()].sort((a, b) => a.total - b.total)).toEqual([
      { total: 20, available: 18 },
      { total: 30, available: 29 },
    ]);
    expect((await freeSeatCounts([show.eventId])).has(show.eventId)).toBe(false);
    expect((await listPublishedEvents(db())).find((e) => e.id === show.eventId)!.seatsAvailable).toBe(47);
    expect(await levelAvailability(db(), "evt_doesnotexist")).toBeNull();
  });
});
