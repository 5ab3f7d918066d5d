/** The availability bitset uses Redis's bit order, so it can later be served straight from a Redis bitmap. */
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { eventSeats, seats } from "@/db/schema";
import { closeDb, db } from "@/lib/db";
import { getAvailability, getBit, setBit } from "@/lib/inventory/availability";
import { closeRedis, eventKey, redis } from "@/lib/redis";
import { rebuildInventory } from "@/lib/inventory/rebuild";
import { placeOrder } from "@/lib/orders/place-order";
import { makeFans, makeStudioShow } from "@/lib/testing/fixtures";

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
