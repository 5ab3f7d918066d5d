/**
 * Reconciliation's one-call reads of the Redis inventory (lib/reconciliation/redis-reads.ts)
 * and the drift check built on them (lib/reconciliation/invariants.ts): each kind of
 * contradiction is found, a look at some seats finds what a look at all finds for those seats,
 * and the ledger pass's confirm check names exactly the holds a confirm would change.
 * Against the real Postgres and Redis.
 */
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { closeDb, db } from "@/lib/db";
import { confirmInRedis, holdInRedis, readHold } from "@/lib/inventory/hold";
import { holdKey, inventoryKeys } from "@/lib/inventory/keys";
import { rebuildInventory } from "@/lib/inventory/rebuild";
import { placeOrder } from "@/lib/orders/place-order";
import { persistentRedisMismatches, redisMismatchSet } from "@/lib/reconciliation/invariants";
import { holdsToConfirm, readInventory, readInventoryAt } from "@/lib/reconciliation/redis-reads";
import { closeRedis, redis } from "@/lib/redis";
import { makeFans, makeStudioShow } from "@/lib/testing/fixtures";

afterAll(async () => {
  await closeDb();
  await closeRedis();
});

let eventId: string;
let holdId: string; // the hold of seats 5 and 6, live in Postgres and Redis
beforeEach(async () => {
  eventId = (await makeStudioShow(db(), { onSaleAt: new Date(Date.now() - 86_400_000) })).eventId;
  await rebuildInventory(db(), eventId);
  const [fan] = await makeFans(db(), 1);
  holdId = (await placeOrder(db(), { eventId, fanId: fan!, request: { kind: "seats", ordinals: [5, 6] } })).holdId;
});

describe("the inventory read in one call", () => {
  it("returns the free bits and owner entries as Redis has them, or null for an inventory not built", async () => {
    const k = inventoryKeys(eventId);
    const look = (await readInventory(eventId))!;
    expect([...look.owners].sort()).toEqual([
      ["5", `h:${holdId}`],
      ["6", `h:${holdId}`],
    ]);
    // The studio plan's seats are on sale and free but for 5 and 6; ordinals past the bitmap are not free.
    expect([4, 5, 6, 7, 100_000].map((o) => look.isFree(o))).toEqual([true, false, false, true, false]);
    expect([4, 5, 6, 7].map((o) => look.isFree(o))).toEqual(await Promise.all([4, 5, 6, 7].map(async (o) => (await redis().getbit(k.free, o)) === 1)));

    const some = (await readInventoryAt(eventId, [4, 5, 7]))!;
    expect([...some.owners]).toEqual([["5", `h:${holdId}`]]);
    expect([4, 5, 7].map((o) => some.isFree(o))).toEqual([true, false, true]);

    await redis().hdel(k.meta, "ready");
    expect(await readInventory(eventId)).toBeNull();
    expect(await readInventoryAt(eventId, [5])).toBeNull();
  });
});

describe("the drift check", () => {
  it("finds each kind of contradiction; looking at some seats finds what looking at all finds for them", async () => {
    const k = inventoryKeys(eventId);
    expect([...(await redisMismatchSet(db(), eventId))]).toEqual([]);
    await redis().setbit(k.free, 5, 1); // held in Postgres, free in Redis
    await redis().hset(k.owner, { "6": "h:hld_someoneelse" }); // owned in Redis by a hold Postgres does not have on it
    await redis().hset(k.owner, { "9": "s:hld_gone" }); // owned in Redis, free in Postgres
    await redis().hset(k.owner, { "10": "" }); // an empty entry is an entry
    await redis().hset(k.owner, { "11": "h:odd\nid" }); // a value the one-call read cannot split: read again as a hash
    const all = await redisMismatchSet(db(), eventId);
    expect([...all].sort()).toEqual(["free:5", "owner:10:", "owner:11:h:odd\nid", "owner:6:h:hld_someoneelse", "owner:9:s:hld_gone"]);
    expect([...(await redisMismatchSet(db(), eventId, [5, 6]))].sort()).toEqual(["free:5", "owner:6:h:hld_someoneelse"]);
    expect([...(await redisMismatchSet(db(), eventId, [9, 10, 12]))].sort()).toEqual(["owner:10:", "owner:9:s:hld_gone"]);
    expect([...(await redisMismatchSet(db(), eventId, [4, 7]))]).toEqual([]);

    // Two looks: what lasts is what both found; a hold made in Redis just now that no order names is in flight.
    await holdInRedis({ eventId, holdId: "hld_inflight", fanId: "usr_inflight", expiresAt: new Date(Date.now() + 60_000), perFanLimit: 4, request: { kind: "seats", ordinals: [20] } });
    const lasting = persistentRedisMismatches(db(), eventId, 300);
    setTimeout(() => void redis().hdel(k.owner, "9"), 50); // repaired in between: not lasting
    expect((await lasting).sort()).toEqual(["free:5", "owner:10:", "owner:11:h:odd\nid", "owner:6:h:hld_someoneelse"]);
  });
});

describe("the ledger pass's confirm check", () => {
  it("names the holds a confirm would change: a record not sold; not a sold one, nor one Redis does not have", async () => {
    const [fan] = await makeFans(db(), 1);
    const sold = (await placeOrder(db(), { eventId, fanId: fan!, request: { kind: "seats", ordinals: [7] } })).holdId;
    await confirmInRedis(eventId, sold);
    expect((await readHold(eventId, sold))!.status).toBe("sold");
    await redis().hset(holdKey(eventId, "hld_nostatus"), { fan: "usr_x", seats: "30" }); // a record without a status: a confirm writes it
    await redis().hset(holdKey(eventId, "hld_nofan"), { status: "held" }); // no fan: a confirm finds no hold
    expect(await holdsToConfirm(eventId, [sold, holdId, "hld_unknown", "hld_nostatus", "hld_nofan"])).toEqual([holdId, "hld_nostatus"]);
    expect(await holdsToConfirm(eventId, [])).toEqual([]);
    // More than one call's worth: the held one is found wherever it stands.
    const many = [...Array.from({ length: 1_500 }, (_, i) => `hld_none${i}`), holdId];
    expect(await holdsToConfirm(eventId, many)).toEqual([holdId]);
  });
});
