import { describe, expect, it } from "vitest";
import { PollWheel, nextPollMs, turnNear } from "@/lib/simulator/waiting";
import type { PublicQueueStatus } from "@/lib/waiting-room/room";

const pub = (servingCounter: number): PublicQueueStatus => ({ servingCounter, queueLength: 1_000, active: 0, ratePerMinute: 600, activeCap: 100, pacedRate: null, paused: false, onSaleAt: 0, now: 0, preQueueSize: 0, servingDraw: -1, generation: "1", returning: 0 });

describe("PollWheel", () => {
  it("wakes each waiting fan at its first look that finds its turn, in turn order, and counts the looks", async () => {
    let serving = 0;
    let reads = 0;
    const wheel = new PollWheel({ status: async () => pub(serving), baseMs: 20, tickMs: 5, onReads: (n) => (reads += n) });
    const woke: number[] = [];
    const waits = [3, 1, 2].map((position) => wheel.untilTurnNear({ state: "waiting", position, draw: null, generation: "1" }, 0).then((near) => near && woke.push(position)));
    expect(wheel.waiting).toBe(3);
    for (serving = 1; serving <= 3; serving++) await new Promise((r) => setTimeout(r, 120));
    await Promise.all(waits);
    expect(woke).toEqual([1, 2, 3]);
    expect(wheel.waiting).toBe(0);
    // At least one look each before its turn came (the first is one poll interval after the call).
    expect(reads).toBeGreaterThanOrEqual(6);
    wheel.stop();
  });

  it("ends every wait with false when stopped", async () => {
    const wheel = new PollWheel({ status: async () => pub(0), baseMs: 10, tickMs: 5 });
    const waits = [5, 6].map((position) => wheel.untilTurnNear({ state: "waiting", position, draw: null, generation: "1" }, 1));
    await new Promise((r) => setTimeout(r, 40));
    wheel.stop();
    expect(await Promise.all(waits)).toEqual([false, false]);
    expect(await wheel.untilTurnNear({ state: "waiting", position: 1, draw: null, generation: "1" }, 0)).toBe(false);
  });

  it("judges turns and pauses like the queue page (lib/waiting-room/draw.ts)", () => {
    expect(turnNear({ state: "waiting", position: 10, draw: null, generation: "1" }, pub(10))).toBe(true);
    expect(turnNear({ state: "waiting", position: 11, draw: null, generation: "1" }, pub(10))).toBe(false);
    // Redis lost the queue (another generation): the fan asks for its own place, which re-seats it.
    expect(turnNear({ state: "waiting", position: 11, draw: null, generation: "0" }, pub(10))).toBe(true);
    expect(turnNear({ state: "pre", position: 0, draw: 2 ** 47, generation: "0" }, pub(10))).toBe(true);
    // 6,000 fans ahead at 600 a minute: a 10-minute wait, looked at every 30 s (the longest pause).
    expect(nextPollMs({ state: "waiting", position: 6_011, draw: null, generation: "1" }, pub(10), 2_500)).toBe(30_000);
    // Next in line: the base interval.
    expect(nextPollMs({ state: "waiting", position: 11, draw: null, generation: "1" }, pub(10), 2_500)).toBe(2_500);
  });
});
