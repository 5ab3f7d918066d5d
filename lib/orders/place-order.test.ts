/**
 * The hold path under real concurrency, against the real Redis and Postgres: many fans
 * at once for the same seats, best-available parties, the per-fan limit, Postgres as
 * the last line of defence, and a Redis flush + rebuild in the middle of a sale.
 * Every test ends by checking I1 from the database.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import postgres from "postgres";
import { ZodError } from "zod";
import { eventSeats, lineItems, orders, priceLevels, seats } from "@/db/schema";
import { closeDb, db } from "@/lib/db";
import { newId } from "@/lib/ids";
import { AppError, certainlyRolledBack, toErrorResponse } from "@/lib/errors";
import { FanLimitError, NotEnoughSeatsError, SeatsTakenError, UnknownSeatError } from "@/lib/inventory/errors";
import { holdInRedis, readHold, releaseInRedis, releaseUnlessWritten } from "@/lib/inventory/hold";
import { inventoryKeys } from "@/lib/inventory/keys";
import { rebuildInventory } from "@/lib/inventory/rebuild";
import { holdFingerprint } from "@/lib/orders/idempotency";
import { holdRequestSchema, PendingOrderError, placeOrder } from "@/lib/orders/place-order";
import { releaseOrder } from "@/lib/orders/release";
import { closeRedis, redis } from "@/lib/redis";
import { makeFans, makeStudioShow } from "@/lib/testing/fixtures";

afterAll(async () => {
  await closeDb();
  await closeRedis();
});

let show: Awaited<ReturnType<typeof makeStudioShow>>;
beforeEach(async () => {
  show = await makeStudioShow(db());
  await rebuildInventory(db(), show.eventId);
});

/** I1 from the database: no seat has two live line items; returns the live seat count. */
async function liveSeats(eventId: string): Promise<number> {
  const [r] = await db()
    .select({ live: sql<number>`count(*)::int`, distinct: sql<number>`count(distinct ${lineItems.seatId})::int` })
    .from(lineItems)
    .where(and(eq(lineItems.eventId, eventId), inArray(lineItems.status, ["held", "sold"])));
  expect(r!.live).toBe(r!.distinct);
  return r!.live;
}

const settle = <T>(ps: Promise<T>[]) => Promise.allSettled(ps);
const reasons = (rs: PromiseSettledResult<unknown>[]) => rs.filter((r): r is PromiseRejectedResult => r.status === "rejected").map((r) => r.reason);

describe("500 fans at once for the same 50 seats", () => {
  it("explicit single seats: exactly 50 held, none twice, 450 conflicts", async () => {
    const fans = await makeFans(db(), 500);
    const results = await settle(fans.map((fanId, i) => placeOrder(db(), { eventId: show.eventId, fanId, request: { kind: "seats", ordinals: [i % 50] } })));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(50);
    const errors = reasons(results);
    expect(errors).toHaveLength(450);
    expect(errors.every((e) => e instanceof SeatsTakenError && e.status === 409)).toBe(true);
    expect(await liveSeats(show.eventId)).toBe(50);
    const [orderCount] = await db().select({ n: sql<number>`count(*)::int` }).from(orders).where(eq(orders.eventId, show.eventId));
    expect(orderCount!.n).toBe(50);
  });

  it("explicit pairs: 25 pairs × 20 fans → exactly 25 orders of 2 seats", async () => {
    const fans = await makeFans(db(), 500);
    const results = await settle(fans.map((fanId, i) => placeOrder(db(), { eventId: show.eventId, fanId, request: { kind: "seats", ordinals: [2 * (i % 25), 2 * (i % 25) + 1] } })));
    const won = results.filter((r): r is PromiseFulfilledResult<Awaited<ReturnType<typeof placeOrder>>> => r.status === "fulfilled");
    expect(won).toHaveLength(25);
    expect(won.every((w) => w.value.seats.length === 2)).toBe(true);
    expect(reasons(results).every((e) => e instanceof SeatsTakenError)).toBe(true);
    expect(await liveSeats(show.eventId)).toBe(50);
  });

  it("best-available 1–4 seats: exactly 50 held, each party in one row where possible, losers get 409s", async () => {
    const fans = await makeFans(db(), 500);
    const levels = await db().select().from(priceLevels).where(eq(priceLevels.eventId, show.eventId));
    const results = await settle(
      fans.map((fanId, i) => placeOrder(db(), { eventId: show.eventId, fanId, request: { kind: "best", priceLevelId: levels[i % 2]!.id, quantity: 1 + (i % 4) } })),
    );
    const errors = reasons(results);
    expect(errors.every((e) => e instanceof NotEnoughSeatsError && e.status === 409)).toBe(true);
    expect(await liveSeats(show.eventId)).toBe(50);
    // The price levels were respected: every held seat's level is the one asked for.
    const won = results.flatMap((r, i) => (r.status === "fulfilled" ? [{ i, order: r.value }] : []));
    for (const { i, order } of won) expect(order.seats.every((s) => s.priceLevel === levels[i % 2]!.name)).toBe(true);
    expect(won.reduce((n, w) => n + w.order.seats.length, 0)).toBe(50);
  });
});

describe("best available", () => {
  it("keeps a party together in the best row: 4 seats on an empty show are adjacent in row A", async () => {
    const [fan] = await makeFans(db(), 1);
    const [front] = await db().select().from(priceLevels).where(and(eq(priceLevels.eventId, show.eventId), eq(priceLevels.name, "Front")));
    const order = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "best", priceLevelId: front!.id, quantity: 4 } });
    const ordinals = order.seats.map((s) => s.ordinal);
    expect(ordinals).toEqual([ordinals[0]!, ordinals[0]! + 1, ordinals[0]! + 2, ordinals[0]! + 3]);
    expect(order.seats.every((s) => s.label.includes("Row A"))).toBe(true);
    expect(order.totalMinor).toBe(4 * 4_500);
  });

  it("takes seats from one row before spreading, and says how many are left rather than splitting", async () => {
    const wide = await makeStudioShow(db(), { perFanLimit: 10 });
    await rebuildInventory(db(), wide.eventId);
    // Front = rows A and B (20 seats). Take every other seat: 10 free, none adjacent.
    const fans = await makeFans(db(), 10);
    const front = await db()
      .select({ ordinal: seats.ordinal })
      .from(eventSeats)
      .innerJoin(seats, eq(eventSeats.seatId, seats.id))
      .innerJoin(priceLevels, eq(eventSeats.priceLevelId, priceLevels.id))
      .where(and(eq(eventSeats.eventId, wide.eventId), eq(priceLevels.name, "Front")))
      .orderBy(seats.ordinal);
    const taken = front.filter((_, i) => i % 2 === 0).map((f) => f.ordinal);
    for (let i = 0; i < 10; i++) await placeOrder(db(), { eventId: wide.eventId, fanId: fans[i]!, request: { kind: "seats", ordinals: [taken[i]!] } });
    const [fan, late] = await makeFans(db(), 2);
    const [level] = await db().select().from(priceLevels).where(and(eq(priceLevels.eventId, wide.eventId), eq(priceLevels.name, "Front")));
    // No 2 adjacent seats are left, but row A still has 5 free: both seats come from one row.
    const two = await placeOrder(db(), { eventId: wide.eventId, fanId: fan!, request: { kind: "best", priceLevelId: level!.id, quantity: 2 } });
    expect(new Set(two.seats.map((s) => s.label.split(" · ")[1])).size).toBe(1);
    // 8 left in the level: asking for 9 is refused with the count, not split or partially filled.
    await expect(placeOrder(db(), { eventId: wide.eventId, fanId: late!, request: { kind: "best", priceLevelId: level!.id, quantity: 9 } })).rejects.toThrow(
      /Only 8 seats left at this price/,
    );
    expect(await liveSeats(wide.eventId)).toBe(12);
  });
});

describe("per-fan limit (I6)", () => {
  it("counts all of a fan's live seats, held and sold", async () => {
    const [fan] = await makeFans(db(), 1);
    const first = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [0, 1, 2] } });
    await expect(placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [3, 4] } })).rejects.toBeInstanceOf(FanLimitError);
    // Paid (sold) seats count too: with 3 sold, 1 more fits, 2 do not.
    await db().update(orders).set({ status: "paid" }).where(eq(orders.id, first.orderId));
    await db().update(lineItems).set({ status: "sold" }).where(eq(lineItems.orderId, first.orderId));
    await expect(placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [3, 4] } })).rejects.toBeInstanceOf(FanLimitError);
    await expect(placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [3] } })).resolves.toMatchObject({ seats: [{ ordinal: 3 }] });
    expect(await liveSeats(show.eventId)).toBe(4);
  });

  it("10 concurrent holds by one fan: one order, the others refused, never over the limit", async () => {
    const [fan] = await makeFans(db(), 1);
    const results = await settle(Array.from({ length: 10 }, (_, i) => placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [10 + i] } })));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    // Refused by Redis (the limit) or by Postgres (one pending order per fan and show).
    expect(reasons(results).every((e) => e instanceof FanLimitError || e instanceof PendingOrderError)).toBe(true);
    expect(await db().select().from(orders).where(eq(orders.fanId, fan!))).toHaveLength(1);
    expect(Number(await redis().hget(inventoryKeys(show.eventId).fan, fan!))).toBe(1);
    expect(await liveSeats(show.eventId)).toBe(1);
  });
});

describe("release and Postgres as the last line of defence", () => {
  it("releases only with the matching hold id", async () => {
    const [fan] = await makeFans(db(), 1);
    const order = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [7] } });
    expect(await releaseInRedis(show.eventId, "hld_notthisone")).toEqual({ result: "unknown" });
    expect((await readHold(show.eventId, order.holdId))?.seats).toEqual([7]);
    expect(await releaseInRedis(show.eventId, order.holdId)).toEqual({ result: "released", seats: 1 });
    expect(await readHold(show.eventId, order.holdId)).toBeNull();
  });

  it("ends a hold none of whose seats it still owns (found by the simulator: Redis refused a -0 increment)", async () => {
    const [fan] = await makeFans(db(), 1);
    const order = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [8] } });
    // The seat went to someone else behind this hold's back (e.g. a repair re-claimed it).
    await redis().hset(inventoryKeys(show.eventId).owner, { "8": "h:hld_someoneelse" });
    expect(await releaseInRedis(show.eventId, order.holdId)).toEqual({ result: "released", seats: 0 });
    expect(await readHold(show.eventId, order.holdId)).toBeNull();
    expect(Number(await redis().hget(inventoryKeys(show.eventId).fan, fan!))).toBe(1); // nothing freed, nothing uncounted
  });

  it("after a write whose outcome the client could not see, frees the Redis hold only when no order names it", async () => {
    // The client-side failures that leave a COMMIT's outcome unknown: our deadline, a lost connection.
    const timeout = Object.assign(new Error("Postgres did not answer within 1500 ms"), { code: "QUERY_TIMEOUT" });
    const lost = Object.assign(new Error("write CONNECTION_ENDED 127.0.0.1:6435"), { code: "CONNECTION_ENDED" });
    const refused = await db().execute(sql`select 1 / 0`).catch((e: unknown) => e); // Postgres's own answer (drizzle wraps it)
    // Nothing reached Postgres: a port nobody listens on refuses the connection.
    const noServer = postgres("postgres://postgres@127.0.0.1:1/none", { max: 1, connect_timeout: 2, onnotice: () => {} });
    const unreached = await noServer.begin((tx) => tx`select 1`).catch((e: unknown) => e);
    await noServer.end();
    expect([certainlyRolledBack(timeout), certainlyRolledBack(lost), certainlyRolledBack(refused), certainlyRolledBack(unreached)]).toEqual([false, false, true, true]);
    const free = inventoryKeys(show.eventId).free;
    const [fan, other] = await makeFans(db(), 2);
    // Committed, though the client saw it fail: the seat stays held in Redis, as Postgres has it.
    const order = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [9] } });
    expect(await releaseUnlessWritten(db(), show.eventId, order.holdId, timeout)).toBe("kept");
    expect((await readHold(show.eventId, order.holdId))?.seats).toEqual([9]);
    expect(await redis().getbit(free, 9)).toBe(0);
    // Never written: looked up, not found, freed.
    const expiresAt = new Date(Date.now() + 60_000);
    const unwritten = newId("hld");
    await holdInRedis({ eventId: show.eventId, holdId: unwritten, fanId: other!, expiresAt, perFanLimit: 10, request: { kind: "seats", ordinals: [10] } });
    expect(await releaseUnlessWritten(db(), show.eventId, unwritten, lost)).toBe("released");
    expect(await redis().getbit(free, 10)).toBe(1);
    // Refused by Postgres: rolled back for certain, freed.
    const refusedHold = newId("hld");
    await holdInRedis({ eventId: show.eventId, holdId: refusedHold, fanId: other!, expiresAt, perFanLimit: 10, request: { kind: "seats", ordinals: [11] } });
    expect(await releaseUnlessWritten(db(), show.eventId, refusedHold, refused)).toBe("released");
    expect(await redis().getbit(free, 11)).toBe(1);
    expect(await liveSeats(show.eventId)).toBe(1);
  });

  it("undoes the Redis hold when Postgres refuses, and tells the fan the seat was just taken", async () => {
    const [intruder, fan] = await makeFans(db(), 2);
    // A live line item Redis does not know about (as if Redis had been rebuilt from a stale copy).
    const [seat] = await db().select({ seatId: seats.id, levelId: eventSeats.priceLevelId }).from(eventSeats).innerJoin(seats, eq(eventSeats.seatId, seats.id)).where(and(eq(eventSeats.eventId, show.eventId), eq(seats.ordinal, 20)));
    const orderId = newId("ord");
    await db().insert(orders).values({ id: orderId, eventId: show.eventId, fanId: intruder!, holdId: newId("hld"), holdExpiresAt: new Date(Date.now() + 60_000), totalMinor: 2_900, currency: "EUR" });
    await db().insert(lineItems).values({ orderId, eventId: show.eventId, seatId: seat!.seatId, priceLevelId: seat!.levelId, priceMinor: 2_900, currency: "EUR" });
    const error = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [20, 21] } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SeatsTakenError);
    expect((error as Error).message).toMatch(/just taken/);
    // No order for the fan, and seat 21 is free again in Redis.
    expect(await db().select().from(orders).where(eq(orders.fanId, fan!))).toEqual([]);
    expect(await redis().getbit(inventoryKeys(show.eventId).free, 21)).toBe(1);
    expect(await liveSeats(show.eventId)).toBe(1);
  });
});

describe("Redis flushed in the middle of a sale", () => {
  it("rebuilds from Postgres on the next hold; no seat can then be held twice", async () => {
    const fans = await makeFans(db(), 200);
    // First half of the sale: 20 fans hold one seat each (ordinals 0..19).
    await Promise.all(fans.slice(0, 20).map((fanId, i) => placeOrder(db(), { eventId: show.eventId, fanId, request: { kind: "seats", ordinals: [i] } })));
    // Redis forgets everything about the event.
    const keys = await redis().keys(`${inventoryKeys(show.eventId).meta.replace(/meta$/, "")}*`.replace(/[{}]/g, (c) => `\\${c}`));
    expect(keys.length).toBeGreaterThan(0);
    await redis().del(...keys);
    // 180 fans now race for all 50 seats (ordinal i % 50): the first request rebuilds, the rest wait for it.
    const results = await settle(fans.slice(20).map((fanId, i) => placeOrder(db(), { eventId: show.eventId, fanId, request: { kind: "seats", ordinals: [i % 50] } })));
    const won = results.filter((r): r is PromiseFulfilledResult<Awaited<ReturnType<typeof placeOrder>>> => r.status === "fulfilled");
    // Seats 0..19 were held before the flush and stay held: only 20..49 could be won.
    expect(won.map((w) => w.value.seats[0]!.ordinal).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => 20 + i));
    expect(reasons(results).every((e) => e instanceof SeatsTakenError)).toBe(true);
    expect(await liveSeats(show.eventId)).toBe(50);
  });
});

describe("bad input gets a clear error and changes nothing", () => {
  it.each([
    ["zero quantity", { kind: "best", priceLevelId: "pl_x", quantity: 0 }, /at least one seat/],
    ["negative quantity", { kind: "best", priceLevelId: "pl_x", quantity: -2 }, /at least one seat/],
    ["fractional quantity", { kind: "best", priceLevelId: "pl_x", quantity: 1.5 }, /whole number/],
    ["huge quantity", { kind: "best", priceLevelId: "pl_x", quantity: 1e9 }, /At most 10 seats/],
    ["the same seat twice", { kind: "seats", ordinals: [3, 3] }, /same seat appears twice/],
    ["no seats", { kind: "seats", ordinals: [] }, /at least one seat/],
    ["a negative seat", { kind: "seats", ordinals: [-1] }, /does not exist/],
  ])("%s → validation error", async (_name, request, message) => {
    const [fan] = await makeFans(db(), 1);
    const error = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: request as never }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ZodError);
    expect((error as ZodError).issues[0]!.message).toMatch(message);
    expect(await liveSeats(show.eventId)).toBe(0);
  });

  it("unknown event, unknown seat, another show's price level → typed 4xx errors", async () => {
    const [fan] = await makeFans(db(), 1);
    const other = await makeStudioShow(db());
    const [otherLevel] = await db().select().from(priceLevels).where(eq(priceLevels.eventId, other.eventId));
    const unknownEvent = await placeOrder(db(), { eventId: "evt_nosuchevent", fanId: fan!, request: { kind: "seats", ordinals: [1] } }).catch((e: unknown) => e);
    expect(unknownEvent).toMatchObject({ code: "not_on_sale" });
    expect((unknownEvent as AppError).status).toBe(404);
    const unknownSeat = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [49, 50, 5000] } }).catch((e: unknown) => e);
    expect(unknownSeat).toBeInstanceOf(UnknownSeatError);
    expect((unknownSeat as UnknownSeatError).seats).toEqual([50, 5000]);
    // A seat another fan holds is plainly taken (Redis names its owner, no Postgres read); only the seat nobody owns is checked.
    const [holder] = await makeFans(db(), 1);
    await placeOrder(db(), { eventId: show.eventId, fanId: holder!, request: { kind: "seats", ordinals: [10] } });
    const taken = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [10, 11] } }).catch((e: unknown) => e);
    expect(taken).toBeInstanceOf(SeatsTakenError);
    expect(taken).toMatchObject({ ordinals: [10], unowned: [] });
    const mixed = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [10, 5000] } }).catch((e: unknown) => e);
    expect((mixed as UnknownSeatError).seats).toEqual([5000]);
    const foreignLevel = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "best", priceLevelId: otherLevel!.id, quantity: 1 } }).catch((e: unknown) => e);
    expect((foreignLevel as AppError).status).toBe(400);
    expect(await liveSeats(show.eventId)).toBe(1); // the holder's seat 10
    expect(await redis().getbit(inventoryKeys(show.eventId).free, 49)).toBe(1);
    expect(await redis().getbit(inventoryKeys(show.eventId).free, 11)).toBe(1);
  });

  it("refuses holds before the on-sale", async () => {
    const early = await makeStudioShow(db(), { onSaleAt: new Date(Date.now() + 3_600_000) });
    const [fan] = await makeFans(db(), 1);
    await expect(placeOrder(db(), { eventId: early.eventId, fanId: fan!, request: { kind: "seats", ordinals: [1] } })).rejects.toThrow(/not on sale yet/);
  });
});

describe("holdRequestSchema", () => {
  it("a body without a known kind is told, in words, the two shapes a hold takes", () => {
    for (const body of [{}, { seats: "x" }, { kind: "cheapest" }]) {
      const message = holdRequestSchema.safeParse(body).error?.issues[0]?.message;
      expect(message).toBe('Say which seats: "kind" must be "seats" (with "ordinals") or "best" (with "priceLevelId" and "quantity")');
    }
    expect(holdRequestSchema.safeParse({ kind: "seats", ordinals: [1, 2] }).success).toBe(true);
  });
});

describe("an idempotency key is bound to its request (docs/adr/0025)", () => {
  const front = async (eventId: string) => (await db().select().from(priceLevels).where(and(eq(priceLevels.eventId, eventId), eq(priceLevels.name, "Front"))))[0]!.id;
  const mismatch = (e: unknown) => e instanceof AppError && e.status === 422 && e.code === "idempotency_key_mismatch";
  const ordersOf = (fanId: string) => db().select().from(orders).where(eq(orders.fanId, fanId));

  it("the same key with other seats or best-available → 422 and nothing held; the same key and seats → the same order", async () => {
    const [fan] = await makeFans(db(), 1);
    const key = "bound-key-0001";
    const first = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [11] }, idempotencyKey: key });
    expect(first.replayed).toBeUndefined();
    for (const request of [{ kind: "seats" as const, ordinals: [12] }, { kind: "seats" as const, ordinals: [11, 12] }, { kind: "best" as const, priceLevelId: await front(show.eventId), quantity: 3 }]) {
      const error = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request, idempotencyKey: key }).catch((e: unknown) => e);
      expect(mismatch(error)).toBe(true);
      expect((error as AppError).message).toMatch(/already used for a different request/);
    }
    // Nothing was left behind by the refused requests: one order, one live seat (11), seat 12 free in Redis, the fan counted once.
    expect(await ordersOf(fan!)).toHaveLength(1);
    expect(await liveSeats(show.eventId)).toBe(1);
    expect(await redis().getbit(inventoryKeys(show.eventId).free, 12)).toBe(1);
    expect(Number(await redis().hget(inventoryKeys(show.eventId).fan, fan!))).toBe(1);
    // The same request again (a retry): the same order, marked replayed.
    const again = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [11] }, idempotencyKey: key });
    expect(again).toMatchObject({ orderId: first.orderId, replayed: true, status: "pending_payment", seats: [{ ordinal: 11 }] });
  });

  it("a best-available request replays with the same level and quantity only", async () => {
    const [fan] = await makeFans(db(), 1);
    const level = await front(show.eventId);
    const key = "bound-key-best-1";
    const first = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "best", priceLevelId: level, quantity: 2 }, idempotencyKey: key });
    expect((await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "best", priceLevelId: level, quantity: 2 }, idempotencyKey: key })).orderId).toBe(first.orderId);
    expect(mismatch(await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "best", priceLevelId: level, quantity: 1 }, idempotencyKey: key }).catch((e: unknown) => e))).toBe(true);
    const [back] = await db().select().from(priceLevels).where(and(eq(priceLevels.eventId, show.eventId), eq(priceLevels.name, "Back")));
    expect(mismatch(await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "best", priceLevelId: back!.id, quantity: 2 }, idempotencyKey: key }).catch((e: unknown) => e))).toBe(true);
    // The seats the first request got, as a seats request, are still another request.
    const ordinals = first.seats.map((x) => x.ordinal);
    expect(mismatch(await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals }, idempotencyKey: key }).catch((e: unknown) => e))).toBe(true);
    expect(await ordersOf(fan!)).toHaveLength(1);
    expect(await liveSeats(show.eventId)).toBe(2);
  });

  it("after the order was given back: the same body answers that (cancelled) order, another body 422", async () => {
    const [fan] = await makeFans(db(), 1);
    const key = "bound-key-given-back";
    const first = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [21, 22] }, idempotencyKey: key });
    expect(await releaseOrder(db(), first.orderId, "cancelled", { actor: `fan:${fan}`, reason: "test: given back" })).toBe(true);
    expect(mismatch(await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [23] }, idempotencyKey: key }).catch((e: unknown) => e))).toBe(true);
    // The seats listed in another order are the same request.
    const same = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [22, 21] }, idempotencyKey: key });
    expect(same).toMatchObject({ orderId: first.orderId, replayed: true, status: "cancelled" });
    // Neither request kept a seat: the cancelled order's seats and seat 23 are free again.
    expect(await liveSeats(show.eventId)).toBe(0);
    for (const ordinal of [21, 22, 23]) expect(await redis().getbit(inventoryKeys(show.eventId).free, ordinal)).toBe(1);
    expect(await ordersOf(fan!)).toHaveLength(1);
  });

  it("the same key for another show → 422", async () => {
    const [fan] = await makeFans(db(), 1);
    const other = await makeStudioShow(db());
    await rebuildInventory(db(), other.eventId);
    await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [30] }, idempotencyKey: "bound-key-two-shows" });
    const error = await placeOrder(db(), { eventId: other.eventId, fanId: fan!, request: { kind: "seats", ordinals: [30] }, idempotencyKey: "bound-key-two-shows" }).catch((e: unknown) => e);
    expect(mismatch(error)).toBe(true);
    expect(await liveSeats(other.eventId)).toBe(0);
  });

  it("two requests with one key and different bodies at once: one order, the other 422", async () => {
    const [fan] = await makeFans(db(), 1);
    const results = await settle([
      placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [40, 41] }, idempotencyKey: "bound-key-race" }),
      placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [42] }, idempotencyKey: "bound-key-race" }),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(reasons(results).every(mismatch)).toBe(true);
    expect(await ordersOf(fan!)).toHaveLength(1);
    expect(Number(await redis().hget(inventoryKeys(show.eventId).fan, fan!))).toBe((await liveSeats(show.eventId)));
  });

  it("an order keyed before fingerprints were stored replays nothing: its key answers 422", async () => {
    const [fan] = await makeFans(db(), 1);
    const first = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [5] }, idempotencyKey: "bound-key-legacy" });
    await db().update(orders).set({ idempotencyFingerprint: null }).where(eq(orders.id, first.orderId));
    expect(mismatch(await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [5] }, idempotencyKey: "bound-key-legacy" }).catch((e: unknown) => e))).toBe(true);
    expect(await ordersOf(fan!)).toHaveLength(1);
  });

  it("answers 422 with the code, in English and in Chinese", async () => {
    const [fan] = await makeFans(db(), 1);
    await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [6] }, idempotencyKey: "bound-key-http-1" });
    const error = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [7] }, idempotencyKey: "bound-key-http-1" }).catch((e: unknown) => e);
    const en = toErrorResponse(error, "req_test", "en");
    expect(en.status).toBe(422);
    expect(await en.json()).toMatchObject({ code: "idempotency_key_mismatch", error: expect.stringMatching(/already used for a different request/) });
    const zh = await toErrorResponse(error, "req_test", "zh-CN").json();
    expect(zh).toMatchObject({ code: "idempotency_key_mismatch", error: expect.stringMatching(/幂等键已用于另一个不同的请求/) });
  });

  it("the fingerprint is the request's meaning: JSON key order, unknown fields and the seats' order do not change it", () => {
    const fp = (eventId: string, body: unknown) => holdFingerprint(eventId, holdRequestSchema.parse(body));
    const a = fp("evt_a", JSON.parse('{"kind":"best","priceLevelId":"pl_front","quantity":2}'));
    expect(fp("evt_a", JSON.parse('{"quantity":2,"priceLevelId":"pl_front","kind":"best"}'))).toBe(a);
    expect(fp("evt_a", { kind: "best", priceLevelId: "pl_front", quantity: 2, note: "ignored" })).toBe(a);
    expect(fp("evt_a", { kind: "best", priceLevelId: "pl_front", quantity: 3 })).not.toBe(a);
    expect(fp("evt_a", { kind: "best", priceLevelId: "pl_back", quantity: 2 })).not.toBe(a);
    expect(fp("evt_b", { kind: "best", priceLevelId: "pl_front", quantity: 2 })).not.toBe(a);
    expect(fp("evt_a", { ordinals: [12, 3], kind: "seats" })).toBe(fp("evt_a", { kind: "seats", ordinals: [3, 12] }));
    expect(fp("evt_a", { kind: "seats", ordinals: [3, 12] })).not.toBe(fp("evt_a", { kind: "seats", ordinals: [3, 13] }));
    // Numeric order, not text order: [2, 10] and [10, 2] are one request.
    expect(fp("evt_a", { kind: "seats", ordinals: [10, 2] })).toBe(fp("evt_a", { kind: "seats", ordinals: [2, 10] }));
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });
});
