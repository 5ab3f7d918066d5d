/**
 * Reconciliation's Redis drift repair against the real Postgres and Redis: a contradiction
 * that lasts is repaired by a rebuild (and recorded); a hold in flight (in Redis, its
 * Postgres write not yet committed) is not mistaken for drift.
 */
import { afterAll, describe, expect, it } from "vitest";
import { closeDb, db } from "@/lib/db";
import { holdInRedis, releaseInRedis } from "@/lib/inventory/hold";
import { inventoryKeys } from "@/lib/inventory/keys";
import { rebuildInventory } from "@/lib/inventory/rebuild";
import { placeOrder } from "@/lib/orders/place-order";
import { redisMismatches } from "@/lib/reconciliation/invariants";
import { reconcile } from "@/lib/reconciliation/reconcile";
import { closeRedis, redis } from "@/lib/redis";
import { makeFans, makeStudioShow } from "@/lib/testing/fixtures";

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
});
