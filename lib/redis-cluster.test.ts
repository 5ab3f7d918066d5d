/**
 * Redis Cluster readiness by construction: every multi-key call the app makes stays inside
 * one event's slot. The key builders give one event's keys one hash tag, the script binding
 * refuses keys that do not share one, and the hold's rate limiter tags the fan. Against a
 * live cluster (REDIS_CLUSTER_NODES, as `npm run test:distributed` runs it) the same calls
 * succeed, and a cross-slot call is refused by the cluster itself — so the checks can fail.
 */
import calculateSlot from "cluster-key-slot";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { env } from "@/lib/env";
import { inventoryKeys, holdKey, rowsKey, scriptKeys } from "@/lib/inventory/keys";
import { closeRedis, eventKey, globalKey, hashTagged, InvalidKeyPartError, luaScript, redis } from "@/lib/redis";
import { assertOneSlot, CrossSlotKeysError, keyHashTag } from "@/lib/redis-core";
import { patternHashTag } from "@/lib/redis-tcp";
import { parseEnv } from "@/lib/env";
import { admissionSlotKey, queueKeys, queueStateKey } from "@/lib/waiting-room/keys";

afterAll(async () => {
  await closeRedis();
});

const eventIds = fc.stringMatching(/^[0-9a-z]{1,32}$/).map((s) => `evt_${s}`);
const slots = (keys: string[]) => new Set(keys.map((k) => calculateSlot(k)));

describe("one event's keys share one slot, by construction", () => {
  it("every key list a script takes hashes to one slot, for any event id", () => {
    fc.assert(
      fc.property(eventIds, fc.stringMatching(/^[0-9a-z_]{1,30}$/), (eventId, id) => {
        const k = inventoryKeys(eventId);
        const lists = [
          [...queueKeys(eventId), eventKey(eventId, "wr", "rl", "203.0.113.7")], // join
          [...scriptKeys(eventId, id), rowsKey(eventId, id), queueStateKey(eventId), admissionSlotKey(eventId)], // hold
          [k.meta, k.free, k.owner, k.fan, k.holds, k.lock, holdKey(eventId, "")], // rebuild
        ];
        for (const keys of lists) {
          expect(slots(keys).size).toBe(1);
          expect(() => assertOneSlot(keys)).not.toThrow();
        }
      }),
    );
  });

  it("the script binding refuses keys of two events, or a key without a tag, before anything is sent", async () => {
    const script = luaScript<number>("return #KEYS");
    await expect(script.exec([eventKey("evt_a", "x"), eventKey("evt_b", "x")], [])).rejects.toBeInstanceOf(CrossSlotKeysError);
    await expect(script.exec([eventKey("evt_a", "x"), globalKey("rl", "x")], [])).rejects.toBeInstanceOf(CrossSlotKeysError);
    expect(await script.exec([eventKey("evt_a", "x"), eventKey("evt_a", "y")], [])).toBe(2);
  });

  it("the hold limiter's window keys for one fan share a slot (the fan id is their tag)", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^usr_[0-9A-Za-z]{1,30}$/), fc.integer({ min: 0, max: 2 ** 40 }), (fanId, window) => {
        // @upstash/ratelimit's sliding window builds [prefix, identifier, window].join(":") for this window and the last.
        const key = (w: number) => [globalKey("rl", "hold"), hashTagged(fanId), w].join(":");
        expect(calculateSlot(key(window))).toBe(calculateSlot(key(window - 1)));
      }),
    );
    expect(() => hashTagged("a}b")).toThrow(InvalidKeyPartError);
    expect(() => hashTagged("")).toThrow(InvalidKeyPartError);
  });

  it("reads hash tags the way Redis does, in keys and in escaped MATCH patterns", () => {
    expect(keyHashTag("sa:{evt_1}:inv:meta")).toBe("evt_1");
    expect(keyHashTag("sa:{}:x")).toBeUndefined();
    expect(keyHashTag("sa:rl:x")).toBeUndefined();
    expect(patternHashTag("sa:\\{evt_1\\}:inv:hold:*")).toBe("evt_1");
    expect(patternHashTag("test:run:*")).toBeUndefined();
  });

  it("parses REDIS_CLUSTER_NODES and refuses what is not host:port", () => {
    expect(parseEnv({ REDIS_CLUSTER_NODES: "127.0.0.1:7101, redis-2:7102" }).REDIS_CLUSTER_NODES).toEqual([
      { host: "127.0.0.1", port: 7101 },
      { host: "redis-2", port: 7102 },
    ]);
    expect(parseEnv({ REDIS_CLUSTER_NODES: "" }).REDIS_CLUSTER_NODES).toBeUndefined();
    expect(() => parseEnv({ REDIS_CLUSTER_NODES: "127.0.0.1" })).toThrow(/host:port/);
    expect(() => parseEnv({ REDIS_CLUSTER_NODES: "127.0.0.1:99999" })).toThrow(/host:port/);
  });
});

describe.runIf(Boolean(process.env.REDIS_CLUSTER_NODES))("against the live Redis Cluster", () => {
  it("spreads keys over the primaries, and the cluster itself refuses a cross-slot call", async () => {
    expect(env().REDIS_CLUSTER_NODES!.length).toBeGreaterThanOrEqual(3);
    const r = redis();
    // Keys of 30 events land on several shards; one pipeline writes them all.
    const keys = Array.from({ length: 30 }, (_, i) => eventKey(`evt_spread${i}`, "x"));
    const p = r.pipeline();
    for (const k of keys) p.set(k, "1");
    expect(await p.exec()).toEqual(keys.map(() => "OK"));
    expect(new Set(keys.map((k) => Math.floor(calculateSlot(k) / 5462))).size).toBeGreaterThan(1);
    // Past the binding's check (raw EVAL): Redis answers CROSSSLOT.
    await expect(r.eval("return 1", [eventKey("evt_a", "x"), eventKey("evt_b", "x")], [])).rejects.toThrow(/CROSSSLOT|same slot/);
    // SCAN is routed to the shard that owns the tag its pattern names.
    const found = await r.keys(`${eventKey("evt_spread7", "")}*`.replace(/[{}]/g, (c) => `\\${c}`));
    expect(found).toEqual([keys[7]]);
    await expect(r.keys(`${globalKey("nothing")}*`)).rejects.toThrow(/hash tag/);
  });
});
