/**
 * Best-available in Redis (lib/inventory/lua.ts HOLD_BEST_AVAILABLE) against a plain
 * TypeScript statement of its rules, on random levels and random taken seats: rows are tried
 * best first for N adjacent free seats, then N free seats in one row, then N free seats in one
 * section (rows in order; sections in the order of their best row with a free seat); never
 * across sections; when no section has N, the largest group is
 * reported, and when the level has fewer than N free, how many it has. Holds and releases are
 * interleaved, so the script's row hint (rows found empty are skipped) is exercised as seats
 * are taken and given back. Against the real Redis.
 */
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { adoptInRedis, fanLiveSeats, holdInRedis, readHold, releaseInRedis } from "@/lib/inventory/hold";
import { holdKey, inventoryKeys, rowsKey } from "@/lib/inventory/keys";
import { NotEnoughSeatsError } from "@/lib/inventory/errors";
import { toErrorBody } from "@/lib/errors";
import { closeRedis, redis } from "@/lib/redis";

afterAll(closeRedis);

interface Row {
  section: string;
  first: number;
  last: number;
}

/** The rules, written plainly: what HOLD_BEST_AVAILABLE must pick, or why it refuses. */
function expected(rows: Row[], free: Set<number>, n: number): { picked: number[] } | { notEnough: number } | { notTogether: number } {
  const seatsOf = (r: Row) => Array.from({ length: r.last - r.first + 1 }, (_, i) => r.first + i).filter((o) => free.has(o));
  const total = rows.reduce((t, r) => t + seatsOf(r).length, 0);
  if (total < n) return { notEnough: total };
  for (const r of rows) {
    let run: number[] = [];
    for (let o = r.first; o <= r.last; o++) {
      run = free.has(o) ? [...run, o] : [];
      if (run.length === n) return { picked: run };
    }
  }
  const inOneRow = rows.find((r) => seatsOf(r).length >= n);
  if (inOneRow) return { picked: seatsOf(inOneRow).slice(0, n) };
  // Sections in the order of their best row that still has a free seat.
  const sections = [...new Set(rows.filter((r) => seatsOf(r).length > 0).map((r) => r.section))];
  let largest = 0;
  for (const s of sections) {
    const group = rows.filter((r) => r.section === s).flatMap(seatsOf).slice(0, n);
    if (group.length === n) return { picked: group.sort((a, b) => a - b) };
    largest = Math.max(largest, group.length);
  }
  return { notTogether: largest };
}

/**
 * A level: up to 3 sections of up to 16 rows of 1–16 seats, ordinals increasing with gaps, rows
 * listed in a shuffled "best first" order; half the levels have 33–48 rows, so the script's reads
 * of 32 rows at a time cross a chunk.
 */
const level = fc
  .array(fc.array(fc.record({ seats: fc.integer({ min: 1, max: 16 }), gap: fc.integer({ min: 0, max: 9 }) }), { minLength: 1, maxLength: 16 }), { minLength: 1, maxLength: 3 }).chain((small) =>
    // Half the levels are large (3 sections of 11–16 rows) so that some searches pass 32 rows.
    fc.oneof(fc.constant(small), fc.array(fc.array(fc.record({ seats: fc.integer({ min: 1, max: 16 }), gap: fc.integer({ min: 0, max: 3 }) }), { minLength: 11, maxLength: 16 }), { minLength: 3, maxLength: 3 })),
  )
  .chain((sections) => {
    const rows: Row[] = [];
    let next = 0;
    sections.forEach((rs, s) =>
      rs.forEach(({ seats, gap }) => {
        next += gap;
        rows.push({ section: `S${s}`, first: next, last: next + seats - 1 });
        next += seats;
      }),
    );
    // Nearly sold out or half free: a nearly sold-out level sends the search past many rows.
    const seat = fc.oneof(fc.boolean(), fc.integer({ min: 0, max: 9 }).map((d) => d === 0));
    return fc.tuple(fc.shuffledSubarray(rows, { minLength: rows.length }), fc.array(seat, { minLength: next, maxLength: next }));
  });

let run = 0;

/** One step of a sequence: a best-available hold of n seats, or the release of an earlier successful hold (by its rank among them). */
const step = fc.oneof(
  { weight: 3, arbitrary: fc.record({ hold: fc.integer({ min: 1, max: 6 }) }) },
  { weight: 1, arbitrary: fc.record({ release: fc.nat() }) },
);

describe("best available in Redis", () => {
  it("picks what the rules say on random levels and random taken seats, through holds and releases", async () => {
    await fc.assert(
      fc.asyncProperty(level, fc.array(step, { minLength: 1, maxLength: 8 }), async ([rows, bits], steps) => {
        const eventId = `evt_bestprop${++run}`;
        const k = inventoryKeys(eventId);
        const free = new Set(bits.flatMap((b, o) => (b ? [o] : [])));
        const p = redis().pipeline();
        p.hset(k.meta, { ready: "1" });
        for (const o of free) p.setbit(k.free, o, 1);
        p.rpush(rowsKey(eventId, "lvl"), ...rows.map((r, i) => `${r.section}|R${i}|${r.first}|${r.last}`));
        await p.exec();
        const held: { holdId: string; seats: number[] }[] = [];
        for (const [i, s] of steps.entries()) {
          if ("release" in s) {
            if (held.length === 0) continue;
            const [gone] = held.splice(s.release % held.length, 1);
            expect(await releaseInRedis(eventId, gone!.holdId)).toEqual({ result: "released", seats: gone!.seats.length });
            for (const o of gone!.seats) free.add(o);
            continue;
          }
          const n = s.hold;
          const want = expected(rows, free, n);
          const holdId = `hld_${run}_${i}`;
          const got = await holdInRedis({ eventId, holdId, fanId: `usr_prop${i}`, expiresAt: new Date(Date.now() + 60_000), perFanLimit: 10, request: { kind: "best", priceLevelId: "lvl", quantity: n } }).then(
            (picked) => ({ picked }),
            (e: unknown) => {
              if (!(e instanceof NotEnoughSeatsError)) throw e;
              // The answer's body carries the same counts, for clients that offer "hold N instead".
              expect(toErrorBody(e, "req_test")).toMatchObject({ code: e.code, requested: n, bestGroup: e.bestGroup });
              return e.code === "not_together" ? { notTogether: e.bestGroup } : { notEnough: e.bestGroup };
            },
          );
          expect(got).toEqual(want);
          if ("picked" in got) {
            held.push({ holdId, seats: got.picked });
            for (const o of got.picked) free.delete(o);
          }
        }
        await redis().del(k.meta, k.free, k.owner, k.fan, k.holds, k.rowHint, rowsKey(eventId, "lvl"), ...held.map((h) => holdKey(eventId, h.holdId)));
      }),
      { numRuns: 300 },
    );
  });
});

describe("adopting a hold Postgres has live", () => {
  it("claims its seats that are free and nobody's, leaves another hold's seat alone, and counts the fan's seats", async () => {
    const eventId = `evt_adopt${Date.now().toString(36)}`;
    const k = inventoryKeys(eventId);
    const p = redis().pipeline();
    p.hset(k.meta, { ready: "1" });
    for (const o of [1, 2, 3]) p.setbit(k.free, o, 1);
    await p.exec();
    // Seat 3 goes to another fan's hold first.
    await holdInRedis({ eventId, holdId: "hld_other", fanId: "usr_other", expiresAt: new Date(Date.now() + 60_000), perFanLimit: 10, request: { kind: "seats", ordinals: [3] } });
    const expires = Date.now() + 60_000;
    expect(await adoptInRedis(eventId, { id: "hld_adopted", fan: "usr_fan", expires, status: "held", seats: [1, 2, 3] })).toBe(2);
    expect(await redis().hmget<Record<string, string>>(k.owner, "1", "2", "3")).toEqual({ "1": "h:hld_adopted", "2": "h:hld_adopted", "3": "h:hld_other" });
    expect([await redis().getbit(k.free, 1), await redis().getbit(k.free, 2), await redis().getbit(k.free, 3)]).toEqual([0, 0, 0]);
    expect(await readHold(eventId, "hld_adopted")).toEqual({ fan: "usr_fan", seats: [1, 2], expires, status: "held" });
    expect(await redis().zscore(k.holds, "hld_adopted")).toBe(expires);
    expect(Number(await redis().hget(k.fan, "usr_fan"))).toBe(2);
    // Again: nothing left to claim, nothing counted twice.
    expect(await adoptInRedis(eventId, { id: "hld_adopted", fan: "usr_fan", expires, status: "held", seats: [1, 2, 3] })).toBe(0);
    expect(Number(await redis().hget(k.fan, "usr_fan"))).toBe(2);
    // The buy panel's count is the one the limit is checked against: 2 adopted, 1 for the other fan, 0 for a stranger.
    expect([await fanLiveSeats(eventId, "usr_fan"), await fanLiveSeats(eventId, "usr_other"), await fanLiveSeats(eventId, "usr_nobody")]).toEqual([2, 1, 0]);
    await redis().del(k.meta, k.free, k.owner, k.fan, k.holds, holdKey(eventId, "hld_adopted"), holdKey(eventId, "hld_other"));
  });
});
