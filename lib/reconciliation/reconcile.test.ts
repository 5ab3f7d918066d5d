/**
 * Reconciliation's Redis drift repair against the real Postgres and Redis: a contradiction
 * that lasts is repaired by a rebuild (and recorded); a hold in flight (in Redis, its
 * Postgres write not yet committed) is not mistaken for drift. And the local worker's routine
 * pass: the repairs without the invariant scans.
 */
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { lineItems, orders } from "@/db/schema";
import { closeDb, db } from "@/lib/db";
import { holdInRedis, readHold, releaseInRedis } from "@/lib/inventory/hold";
import { holdKey, inventoryKeys } from "@/lib/inventory/keys";
import { rebuildInventory } from "@/lib/inventory/rebuild";
import { placeOrder } from "@/lib/orders/place-order";
import { releaseOrder } from "@/lib/orders/release";
import { startCheckout } from "@/lib/payments/checkout";
import { redisMismatchSet, redisMismatches } from "@/lib/reconciliation/invariants";
import { reconcile } from "@/lib/reconciliation/reconcile";
import { closeRedis, redis } from "@/lib/redis";
import { makeFans, makeStudioShow } from "@/lib/testing/fixtures";
import { sandbox } from "@/lib/testing/psp";

afterAll(async () => {
  await closeDb();
  await closeRedis();
});

async function showWithAHold() {
  const show = await makeStudioShow(db(), { onSaleAt: new Date(Date.now() - 86_400_000) });
  await rebuildInventory(db(), show.eventId);
  const [fan] = await makeFans(db(), 1);
  await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [5] } });
  return show.eventId;
}

describe("Redis drift", () => {
  it("rebuilds while fans hold and cancel leave Redis agreeing with Postgres", async () => {
    // A rebuild reads Postgres, then replaces Redis: a hold made, cancelled or ended in that gap
    // must not be lost (seats held in Postgres, free in Redis) nor restored (seats owned by a
    // hold that ended). 40 fans hold and cancel one seat each, twice, while rebuilds run back to back.
    const show = await makeStudioShow(db(), { onSaleAt: new Date(Date.now() - 86_400_000) });
    const eventId = show.eventId;
    await rebuildInventory(db(), eventId);
    const fans = await makeFans(db(), 40);
    let fansDone = false;
    const rebuilds = (async () => {
      let n = 0;
      while (!fansDone) {
        await rebuildInventory(db(), eventId);
        n++;
      }
      return n;
    })();
    const results = await Promise.all(
      fans.map(async (fanId, i) => {
        const kept: string[] = [];
        for (const round of [0, 1]) {
          // A seat a rebuild made briefly unavailable is refused (409); that fan simply tries again next round.
          const placed = await placeOrder(db(), { eventId, fanId, request: { kind: "seats", ordinals: [i + 1] } }).catch(() => null);
          if (!placed) continue;
          const orderId = placed.orderId;
          if (round === 0 && i % 2 === 0) await releaseOrder(db(), orderId, "cancelled", { actor: `fan:${fanId}`, reason: "test: cancelled" });
          else kept.push(orderId);
        }
        return kept;
      }),
    );
    fansDone = true;
    expect(await rebuilds).toBeGreaterThan(0);
    expect(results.flat().length).toBeGreaterThan(0);
    expect([...(await redisMismatchSet(db(), eventId))]).toEqual([]);
  });

  it("a lasting contradiction is rebuilt away", async () => {
    const eventId = await showWithAHold();
    await redis().setbit(inventoryKeys(eventId).free, 5, 1); // the held seat looks free in Redis
    expect(await redisMismatches(db(), eventId)).toBe(1);
    const r = await reconcile(db(), { eventId, redisRecheckMs: 200 });
    expect(r.redisRebuilt).toEqual([{ eventId, mismatches: 1 }]);
    expect(await redisMismatches(db(), eventId)).toBe(0);
  });

  it("a hold in flight (Redis first, Postgres a moment later) is not drift", async () => {
    const eventId = await showWithAHold();
    // A hold that exists only in Redis for 100 ms, as between the hold Lua and the order's commit.
    await holdInRedis({ eventId, holdId: "hld_inflight", fanId: "usr_inflight", expiresAt: new Date(Date.now() + 60_000), perFanLimit: 4, request: { kind: "seats", ordinals: [9] } });
    expect(await redisMismatches(db(), eventId)).toBe(1);
    setTimeout(() => void releaseInRedis(eventId, "hld_inflight"), 100); // …then undone (Postgres refused it)
    const r = await reconcile(db(), { eventId, redisRecheckMs: 400 });
    expect(r.redisRebuilt).toEqual([]);
    expect(await redisMismatches(db(), eventId)).toBe(0);
  });

  it("a hold whose order is slow to reach Postgres is not drift, and a rebuild keeps it unless Postgres gave its seats away", async () => {
    const eventId = await showWithAHold(); // seat 5 held in both
    const hold = async (holdId: string, ordinal: number, ageMs: number) => {
      await holdInRedis({ eventId, holdId, fanId: `usr_${holdId}`, expiresAt: new Date(Date.now() + 15 * 60_000), perFanLimit: 4, request: { kind: "seats", ordinals: [ordinal] } });
      if (ageMs > 0) await redis().hset(holdKey(eventId, holdId), { at: Date.now() - ageMs }); // made that long ago
    };
    await hold("hld_young", 9, 0); // just claimed, its order still waiting for a connection
    await hold("hld_leaked", 12, 10 * 60_000); // claimed 10 minutes ago and never written: a leak
    expect(await redisMismatches(db(), eventId)).toBe(2);
    // Only the leak lasts as drift: the rebuild drops it and keeps the young hold and seat 5's.
    const r = await reconcile(db(), { eventId, redisRecheckMs: 200 });
    expect(r.redisRebuilt).toEqual([{ eventId, mismatches: 1 }]);
    expect(await readHold(eventId, "hld_leaked")).toBeNull();
    expect(await redis().getbit(inventoryKeys(eventId).free, 12)).toBe(1);
    expect(await readHold(eventId, "hld_young")).toMatchObject({ fan: "usr_hld_young", seats: [9], status: "held" });
    expect(await redis().getbit(inventoryKeys(eventId).free, 9)).toBe(0);
    expect(await redis().hget(inventoryKeys(eventId).fan, "usr_hld_young")).toBe(1);
    expect(await redis().getbit(inventoryKeys(eventId).free, 5)).toBe(0);

    // A young hold on a seat Postgres has sold or held for someone else is not kept: Postgres wins.
    const k = inventoryKeys(eventId);
    await redis().hset(k.owner, { "5": "h:hld_rival" });
    await redis().hset(holdKey(eventId, "hld_rival"), { fan: "usr_rival", seats: "5", expires: Date.now() + 15 * 60_000, status: "held", at: Date.now() });
    await redis().zadd(k.holds, { score: Date.now() + 15 * 60_000, member: "hld_rival" });
    const rebuilt = await rebuildInventory(db(), eventId);
    expect(rebuilt.inFlightKept).toBe(1); // hld_young again, not hld_rival
    expect(await readHold(eventId, "hld_rival")).toBeNull();
    expect(await redis().hget(k.owner, "5")).toMatch(/^h:hld_/);
    expect(await redis().hget(k.owner, "5")).not.toBe("h:hld_rival");
    // With keepInFlightMs 0 a rebuild is Postgres's picture alone.
    expect((await rebuildInventory(db(), eventId, { keepInFlightMs: 0 })).inFlightKept).toBe(0);
    expect(await readHold(eventId, "hld_young")).toBeNull();
    expect(await redisMismatches(db(), eventId)).toBe(0);
  });

  it("a rebuild between a hold's Redis claim and its order's write: the order lands and Redis agrees with Postgres", async () => {
    const eventId = await showWithAHold();
    const [fan, rival] = await makeFans(db(), 2);
    // The transaction that writes the order starts only after a rebuild ran (as when it waited for a connection).
    const slow = new Proxy(db(), {
      get(target, prop, receiver) {
        if (prop !== "transaction") return Reflect.get(target, prop, receiver);
        return async (...args: Parameters<typeof target.transaction>) => {
          await rebuildInventory(db(), eventId);
          return target.transaction(...args);
        };
      },
    });
    const order = await placeOrder(slow, { eventId, fanId: fan!, request: { kind: "seats", ordinals: [14] } });
    expect(await readHold(eventId, order.holdId)).toMatchObject({ seats: [14], status: "held" });
    expect(await redisMismatches(db(), eventId)).toBe(0);
    // The seat is refused by Redis (not by a failed Postgres write after Redis said yes).
    await expect(placeOrder(db(), { eventId, fanId: rival!, request: { kind: "seats", ordinals: [14] } })).rejects.toMatchObject({ code: "seat_taken" });
  });

  it("a young hold whose order was already ended is not in flight: drift, rebuilt away", async () => {
    const eventId = await showWithAHold();
    const [fan] = await makeFans(db(), 1);
    const order = await placeOrder(db(), { eventId, fanId: fan!, request: { kind: "seats", ordinals: [16] } });
    // Postgres ended the order (the fan gave the seats back) but the Redis release never happened.
    await db().update(lineItems).set({ status: "released" }).where(eq(lineItems.orderId, order.orderId));
    await db().update(orders).set({ status: "cancelled" }).where(eq(orders.id, order.orderId));
    const r = await reconcile(db(), { eventId, redisRecheckMs: 200 });
    expect(r.redisRebuilt).toEqual([{ eventId, mismatches: 1 }]);
    expect(await readHold(eventId, order.holdId)).toBeNull();
    expect(await redis().getbit(inventoryKeys(eventId).free, 16)).toBe(1);
    expect(await redisMismatches(db(), eventId)).toBe(0);
  });
});

describe("the routine pass (the local worker's)", () => {
  it("repairs without the invariant scans and leaves a fresh open payment to its webhook; the full pass asks the PSP about it", async () => {
    const show = await makeStudioShow(db(), { onSaleAt: new Date(Date.now() - 86_400_000) });
    await rebuildInventory(db(), show.eventId);
    const [fan] = await makeFans(db(), 1);
    const order = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [3] } });
    await startCheckout(db(), sandbox, { orderId: order.orderId, fanId: fan! }); // open at the PSP, seconds old

    const routine = await reconcile(db(), { eventId: show.eventId, redisRecheckMs: 50, routine: true });
    expect(routine.invariants).toBeNull();
    expect(routine.ms.invariants).toBe(0);
    expect(routine.sweep.paymentsQueried).toBe(0); // the sweep asks only after a minute of silence

    const full = await reconcile(db(), { eventId: show.eventId, redisRecheckMs: 50 });
    expect(full.sweep.paymentsQueried).toBe(1);
    expect(full.invariants).toMatchObject({ oversold: 0, doubleCharged: 0 });
  });
});
