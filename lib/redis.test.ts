/**
 * The TCP path of the app's Redis client against the real local Redis: plain commands,
 * pipelines, a Lua script (EVALSHA with NOSCRIPT fallback), and @upstash/ratelimit,
 * whose scripts carry the Upstash-only `allow-key-locking` flag.
 */
import { Ratelimit } from "@upstash/ratelimit";
import { afterAll, describe, expect, it } from "vitest";
import { closeRedis, eventKey, globalKey, hashTagged, InvalidKeyPartError, redis, redisTransport } from "@/lib/redis";
import { stripUnknownScriptFlags } from "@/lib/redis-tcp";

afterAll(async () => {
  await closeRedis();
});

describe("redis over TCP (custom requester)", () => {
  it("uses the TCP transport when no Upstash REST variables are set", () => {
    expect(redisTransport()).toBe("tcp");
  });

  it("runs plain commands with REST-shaped results", async () => {
    const r = redis();
    const k = globalKey("t", "plain");
    expect(await r.set(k, "v1")).toBe("OK");
    expect(await r.get(k)).toBe("v1");
    expect(await r.get(globalKey("t", "missing"))).toBeNull();
    expect(await r.incrby(globalKey("t", "n"), 5)).toBe(5);
    await r.hset(globalKey("t", "h"), { a: "1", b: "two" });
    // automatic deserialisation turns the numeric string back into a number, as on Upstash
    expect(await r.hgetall(globalKey("t", "h"))).toEqual({ a: 1, b: "two" });
    await r.set(globalKey("t", "json"), { seats: [1, 2] });
    expect(await r.get(globalKey("t", "json"))).toEqual({ seats: [1, 2] });
    await expect(r.incr(k)).rejects.toThrow(/not an integer/);
  });

  it("runs pipelines and transactions", async () => {
    const r = redis();
    const p = r.pipeline();
    p.set(globalKey("t", "p1"), "a");
    p.incr(globalKey("t", "p2"));
    p.get(globalKey("t", "p1"));
    expect(await p.exec()).toEqual(["OK", 1, "a"]);
    const m = r.multi();
    m.incr(globalKey("t", "p2"));
    m.incr(globalKey("t", "p2"));
    expect(await m.exec()).toEqual([2, 3]);
  });

  it("runs a Lua script atomically, falling back from EVALSHA to EVAL", async () => {
    const r = redis();
    const script = r.createScript<number>(
      `local v = redis.call('INCRBY', KEYS[1], ARGV[1])
       if v > tonumber(ARGV[2]) then redis.call('DECRBY', KEYS[1], ARGV[1]); return -1 end
       return v`,
    );
    const key = eventKey("evt_luatest", "counter");
    const results = await Promise.all(Array.from({ length: 50 }, () => script.exec([key], ["1", "20"])));
    // 50 concurrent increments against a cap of 20: exactly 20 succeed with values 1..20.
    expect(results.filter((v) => v > 0).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(results.filter((v) => v === -1)).toHaveLength(30);
    expect(await r.get(key)).toBe(20);
  });

  it("rate-limits with @upstash/ratelimit against stock Redis (allow-key-locking flag stripped)", async () => {
    const limiter = new Ratelimit({
      redis: redis(),
      limiter: Ratelimit.fixedWindow(3, "60 s"),
      prefix: globalKey("rl", "test"),
      analytics: false,
    });
    const outcomes = [];
    for (let i = 0; i < 5; i++) outcomes.push(await limiter.limit("fan_1"));
    expect(outcomes.map((o) => o.success)).toEqual([true, true, true, false, false]);
    expect(outcomes.map((o) => o.remaining)).toEqual([2, 1, 0, 0, 0]);
    const sliding = new Ratelimit({ redis: redis(), limiter: Ratelimit.slidingWindow(2, "10 s"), prefix: globalKey("rl", "sw") });
    const s = [];
    // The sliding window reads two keys: tagged as the app tags them (lib/waiting-room/limits.ts), one cluster slot.
    for (let i = 0; i < 3; i++) s.push((await sliding.limit(hashTagged("ip_1"))).success);
    expect(s).toEqual([true, true, false]);
    const bucket = new Ratelimit({ redis: redis(), limiter: Ratelimit.tokenBucket(1, "10 s", 2), prefix: globalKey("rl", "tb") });
    const b = [];
    for (let i = 0; i < 3; i++) b.push((await bucket.limit(hashTagged("fan_2"))).success);
    expect(b).toEqual([true, true, false]);
  });

  it("keys one event under one hash tag and rejects ids that would break it", () => {
    expect(eventKey("evt_abc123", "seats", 7)).toMatch(/\{evt_abc123\}:seats:7$/);
    expect(() => eventKey("evt_}x{", "seats")).toThrow(InvalidKeyPartError);
  });
});

describe("stripUnknownScriptFlags", () => {
  it("keeps known flags, drops unknown ones and leaves line numbers alone", () => {
    expect(stripUnknownScriptFlags("#!lua flags=allow-key-locking\nreturn 1")).toBe("#!lua\nreturn 1");
    expect(stripUnknownScriptFlags("#!lua flags=no-writes,allow-key-locking\nreturn 1")).toBe("#!lua flags=no-writes\nreturn 1");
    expect(stripUnknownScriptFlags("return 1")).toBe("return 1");
  });
});
