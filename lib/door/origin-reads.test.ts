/** The origin's status-read count: per second, summed over processes, at most one Redis write a second per process. */
import { afterAll, describe, expect, it } from "vitest";
import { OriginReadCounter, originStatusReads } from "@/lib/door/origin-reads";
import { closeRedis, redis } from "@/lib/redis";

afterAll(async () => {
  await closeRedis();
});

describe("origin status reads", () => {
  it("sums two processes' reads per second, written in batches", async () => {
    const eventId = `evt_origin${Date.now().toString(36)}`;
    let t = 1_700_000_000_000; // second 1,700,000,000
    const clock = () => t;
    const a = new OriginReadCounter(redis(), clock);
    const b = new OriginReadCounter(redis(), clock);
    // Second 0: a reads 30 times, b 20 times; second 1: a 5, b 7; second 2: a 1.
    for (let i = 0; i < 30; i++) a.note(eventId);
    for (let i = 0; i < 20; i++) b.note(eventId);
    t += 1_000;
    for (let i = 0; i < 5; i++) a.note(eventId);
    for (let i = 0; i < 7; i++) b.note(eventId);
    t += 1_000;
    a.note(eventId);
    await Promise.all([a.flush(), b.flush()]);
    expect(await originStatusReads(redis(), eventId)).toEqual([
      [1_700_000_000, 50],
      [1_700_000_001, 12],
      [1_700_000_002, 1],
    ]);
  });
});
