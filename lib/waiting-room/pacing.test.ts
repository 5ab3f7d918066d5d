/**
 * Admission pacing: the rule (additive increase, multiplicative decrease) on its own, and
 * a paced event on the real Redis and Postgres — the admission Lua admits no more than the
 * paced cap, the pacer cuts it when holds are slow, waits for the cut to take effect, grows
 * it when they are fast, and pacing off gives the organizer's cap back.
 */
import { afterAll, describe, expect, it } from "vitest";
import { closeDb, db } from "@/lib/db";
import { recordHoldAttempt, RECENT_WINDOW_MS } from "@/lib/metrics/holds";
import { closeRedis } from "@/lib/redis";
import { makeFans, makeStudioShow } from "@/lib/testing/fixtures";
import { capInForce } from "@/lib/waiting-room/cap";
import { eventsToPace, nextPacedCap, paceEvent, PACING, PACING_INTERVAL_MS, unpaceEvent } from "@/lib/waiting-room/pacing";
import { freeSlot, joinQueue, publicQueueStatus } from "@/lib/waiting-room/queue";

afterAll(async () => {
  await closeDb();
  await closeRedis();
});

const base = { organizerCap: 1_000, targetMs: 80, samples: 200 };

describe("nextPacedCap", () => {
  it("starts pacing from the fans shopping, at least 100 (a slow start), then applies the rule when there are holds to judge", () => {
    expect(nextPacedCap({ ...base, pacedCap: null, active: 0, p99: null, samples: 0 })).toBe(PACING.startCap);
    expect(nextPacedCap({ ...base, pacedCap: null, active: 400, p99: 500, samples: PACING.minSamples - 1 })).toBe(400);
    expect(nextPacedCap({ ...base, organizerCap: 40, pacedCap: null, active: 0, p99: null, samples: 0 })).toBe(40);
    // First window: from max(100, 400) = 400; slow holds → 400 × 0.75 = 300.
    expect(nextPacedCap({ ...base, pacedCap: null, active: 400, p99: 500 })).toBe(300);
    // First window with 30 fans shopping and fast holds: from 100, p99 under half the target → 125.
    expect(nextPacedCap({ ...base, pacedCap: null, active: 30, p99: 10 })).toBe(125);
  });

  it("cuts to a quarter under the fans shopping when the p99 is over the target, only once the last cut took effect", () => {
    expect(nextPacedCap({ ...base, pacedCap: 200, active: 200, p99: 81 })).toBe(150);
    expect(nextPacedCap({ ...base, pacedCap: 200, active: 120, p99: 500 })).toBe(90); // from the 120 shopping, not the cap
    // 260 still shopping under a cap of 200: the cut has not taken effect yet.
    expect(nextPacedCap({ ...base, pacedCap: 200, active: 260, p99: 500 })).toBe(200);
    // Never under the floor.
    expect(nextPacedCap({ ...base, pacedCap: 11, active: 11, p99: 900 })).toBe(PACING.floorCap);
  });

  it("grows by 25 % under half the target, by 5 % under the target, never over the organizer's", () => {
    expect(nextPacedCap({ ...base, pacedCap: 200, active: 190, p99: 40 })).toBe(250);
    expect(nextPacedCap({ ...base, pacedCap: 200, active: 180, p99: 79 })).toBe(210);
    expect(nextPacedCap({ ...base, pacedCap: 10, active: 10, p99: 79 })).toBe(11); // at least one fan
    expect(nextPacedCap({ ...base, pacedCap: 200, active: 20, p99: 10 })).toBe(250); // however few shop: slots of fans who left count too
    expect(nextPacedCap({ ...base, pacedCap: 900, active: 900, p99: 10 })).toBe(1_000);
    expect(nextPacedCap({ ...base, organizerCap: 50, pacedCap: 200, active: 10, p99: 10 })).toBe(50);
  });

  it("with too few holds: grows a paced cap by 25 % (a full shop that holds nothing would stall the sale)", () => {
    expect(nextPacedCap({ ...base, pacedCap: 200, active: 200, p99: 900, samples: 3 })).toBe(250);
    expect(nextPacedCap({ ...base, pacedCap: 200, active: 230, p99: null, samples: 0 })).toBe(250);
  });
});

describe("capInForce", () => {
  it("is the pacer's cap when it is lower than the organizer's, else the organizer's", () => {
    expect(capInForce({ activeCap: 500, pacedCap: 225 })).toEqual({ cap: 225, paced: true });
    expect(capInForce({ activeCap: 500, pacedCap: null })).toEqual({ cap: 500, paced: false });
    expect(capInForce({ activeCap: 500, pacedCap: 500 })).toEqual({ cap: 500, paced: false });
  });
});

describe("a paced event", () => {
  it("admits up to the paced cap, cuts on slow holds, waits for the cut, grows on fast holds, and unpaced gets the organizer's cap", async () => {
    const now = Date.now();
    const { eventId } = await makeStudioShow(db(), { onSaleAt: new Date(now - 60_000), admissionRatePerMinute: 100_000, activeCap: 500 });
    const fans = await makeFans(db(), 300);
    for (const [i, f] of fans.entries()) await joinQueue(db(), eventId, f, { now: now + i });
    // Unpaced: 300 joined within the organizer's cap of 500 and a rate of 100,000/min → all admitted.
    expect((await publicQueueStatus(db(), eventId, now + 1_000)).active).toBe(300);

    // The pacer's first look, no holds yet: paced from the 300 shopping.
    expect(await paceEvent(db(), eventId, 80, now + 1_000)).toMatchObject({ from: null, to: 300, samples: 0 });
    expect((await publicQueueStatus(db(), eventId, now + 1_000)).pacedCap).toBe(300);

    // A window of slow holds (20 at 200 ms, in the window before `t`): cut to 225.
    const t = now + 2 * RECENT_WINDOW_MS;
    for (let k = 0; k < 20; k++) await recordHoldAttempt(eventId, 200, "held", t - RECENT_WINDOW_MS);
    const first = await paceEvent(db(), eventId, 80, t);
    expect(first).toMatchObject({ from: 300, to: 225, active: 300, p99: 200, samples: 20 });
    // 300 still shopping over a cap of 225: the next slow windows do not cut again.
    const t2 = t + RECENT_WINDOW_MS;
    for (let k = 0; k < 20; k++) await recordHoldAttempt(eventId, 200, "held", t2 - RECENT_WINDOW_MS);
    expect((await paceEvent(db(), eventId, 80, t2)).to).toBe(225);

    // 100 fans finish: 200 shop on.
    for (const f of fans.slice(0, 100)) await freeSlot(db(), eventId, f, t2 + 1);
    const after = await publicQueueStatus(db(), eventId, t2 + 2);
    // Only 300 joined and 300 were admitted already: nobody is left to admit, so 200 shop now.
    expect(after).toMatchObject({ active: 200, pacedCap: 225, servingCounter: 300 });

    // More fans join: admitted up to the paced cap (225), not the organizer's 500.
    const more = await makeFans(db(), 100);
    for (const [i, f] of more.entries()) await joinQueue(db(), eventId, f, { now: t2 + 10 + i });
    expect((await publicQueueStatus(db(), eventId, t2 + 200)).active).toBe(225);

    // Two windows of fast holds (p99 10 ms ≤ 40; the pacer judges the last two): +25 % → 281; then admitted up to it.
    const t3 = t2 + 2 * RECENT_WINDOW_MS;
    for (let k = 0; k < 30; k++) await recordHoldAttempt(eventId, 10, "held", t3 - RECENT_WINDOW_MS);
    for (let k = 0; k < 30; k++) await recordHoldAttempt(eventId, 10, "held", t3 - 2 * RECENT_WINDOW_MS);
    expect((await paceEvent(db(), eventId, 80, t3)).to).toBe(281);
    // (A second later: while the cap bound, admission's rate allowance did not pile up, ./lua.ts.)
    expect((await publicQueueStatus(db(), eventId, t3 + 1_000)).active).toBe(281);

    // Pacing off: the organizer's cap (500) again; all 400 joined, 100 finished → 300 shopping.
    await unpaceEvent(eventId);
    expect(await publicQueueStatus(db(), eventId, t3 + 2_000)).toMatchObject({ active: 300, pacedCap: null, activeCap: 500 });
    // (No pre-queue: servingDraw says so, -1, rather than a missing value.)
    expect((await publicQueueStatus(db(), eventId, t3 + 3_000)).servingDraw).toBe(-1);
  });

  it("is paced from the slow start's cap before its on-sale, so the first fans are admitted up to it, not up to the organizer's cap", async () => {
    const now = Date.now();
    const soon = await makeStudioShow(db(), { onSaleAt: new Date(now + PACING_INTERVAL_MS - 1_000), admissionRatePerMinute: 100_000, activeCap: 500 });
    const later = await makeStudioShow(db(), { onSaleAt: new Date(now + 10 * PACING_INTERVAL_MS), admissionRatePerMinute: 100_000, activeCap: 500 });
    const ids = (await eventsToPace(db(), now)).map((e) => e.id);
    expect(ids).toContain(soon.eventId);
    expect(ids).not.toContain(later.eventId);

    // 150 fans in the pre-queue; the pacer's step before the on-sale sets the slow start's 100.
    const fans = await makeFans(db(), 150);
    for (const [i, f] of fans.entries()) await joinQueue(db(), soon.eventId, f, { now: now + i });
    expect(await paceEvent(db(), soon.eventId, 80, now + 500)).toMatchObject({ from: null, to: PACING.startCap });
    // At the on-sale (a second after it, at 100,000/min): 100 admitted, not 150.
    const atOnSale = now + PACING_INTERVAL_MS;
    expect(await publicQueueStatus(db(), soon.eventId, atOnSale)).toMatchObject({ active: PACING.startCap, pacedCap: PACING.startCap });
  });
});
