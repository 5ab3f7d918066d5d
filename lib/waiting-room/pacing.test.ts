/**
 * Admission pacing: the rule (additive increase, multiplicative decrease on the admission
 * rate) on its own, and a paced event on the real Redis and Postgres — the admission Lua lets
 * fans in at the paced rate from the on-sale on, the pacer cuts it when holds are slow (once
 * per hold-off), grows it when they are fast, the waiting fans' ETA follows the rate in force,
 * and pacing off gives the organizer's rate back.
 */
import { afterAll, describe, expect, it } from "vitest";
import { closeDb, db } from "@/lib/db";
import { recordHoldAttempt, RECENT_WINDOW_MS } from "@/lib/metrics/holds";
import { closeRedis } from "@/lib/redis";
import { makeFans, makeStudioShow } from "@/lib/testing/fixtures";
import { eventsToPace, nextPacedRate, paceEvent, PACING, PACING_INTERVAL_MS, unpaceEvent } from "@/lib/waiting-room/pacing";
import { fanQueueStatus, joinQueue, publicQueueStatus } from "@/lib/waiting-room/queue";
import { rateInForce } from "@/lib/waiting-room/rate";

afterAll(async () => {
  await closeDb();
  await closeRedis();
});

const base = { organizerRate: 4_800, targetMs: 80, samples: 200, sinceCutMs: Infinity };

describe("nextPacedRate", () => {
  it("starts from the slow start's 300 fans a minute (or the organizer's, if lower), then applies the rule when there are holds to judge", () => {
    expect(nextPacedRate({ ...base, pacedRate: null, p99: null, samples: 0 })).toBe(300);
    expect(nextPacedRate({ ...base, pacedRate: null, p99: 500, samples: PACING.minSamples - 1 })).toBe(300);
    expect(nextPacedRate({ ...base, organizerRate: 200, pacedRate: null, p99: null, samples: 0 })).toBe(200);
    // First window with slow holds: 300 × 0.75 = 225; with fast ones: 300 × 1.2 = 360.
    expect(nextPacedRate({ ...base, pacedRate: null, p99: 500 })).toBe(225);
    expect(nextPacedRate({ ...base, pacedRate: null, p99: 10 })).toBe(360);
  });

  it("cuts by a quarter when the p99 is over the target, not again within the hold-off, never under the floor", () => {
    expect(nextPacedRate({ ...base, pacedRate: 1_000, p99: 81 })).toBe(750);
    expect(nextPacedRate({ ...base, pacedRate: 1_000, p99: 500, sinceCutMs: 5_000 })).toBe(1_000);
    expect(nextPacedRate({ ...base, pacedRate: 1_000, p99: 500, sinceCutMs: 10_000 })).toBe(750);
    // 35 × 0.75 = 26.25: the floor of 30.
    expect(nextPacedRate({ ...base, pacedRate: 35, p99: 900 })).toBe(30);
  });

  it("does not cut for a few slow holds while the median is within 1.5 times the unloaded one (at most a quarter of the target)", () => {
    // Unloaded median 10 ms: a p50 up to 15 is no queue (outliers: a GC pause), 16 is.
    expect(nextPacedRate({ ...base, pacedRate: 1_000, p99: 300, p50: 15, baseP50: 10 })).toBe(1_000);
    expect(nextPacedRate({ ...base, pacedRate: 1_000, p99: 300, p50: 16, baseP50: 10 })).toBe(750);
    // A shop slow all along (every median 200 ms) is queueing: the base counts as at most 80 / 4 = 20, so over 30 cuts.
    expect(nextPacedRate({ ...base, pacedRate: 1_000, p99: 300, p50: 200, baseP50: 200 })).toBe(750);
    expect(nextPacedRate({ ...base, pacedRate: 1_000, p99: 300, p50: 30, baseP50: 200 })).toBe(1_000);
  });

  it("grows by 20 % under half the target, by 5 % under the target, never over the organizer's", () => {
    expect(nextPacedRate({ ...base, pacedRate: 1_000, p99: 40 })).toBe(1_200);
    expect(nextPacedRate({ ...base, pacedRate: 1_000, p99: 79 })).toBe(1_050);
    expect(nextPacedRate({ ...base, pacedRate: 4_000, p99: 10 })).toBe(4_800);
    // The organizer lowered the rate under the pacer's: the organizer's.
    expect(nextPacedRate({ ...base, organizerRate: 600, pacedRate: 1_000, p99: 10 })).toBe(600);
  });

  it("with too few holds: grows by 20 % (a shop that holds almost nothing is not loaded by holds)", () => {
    expect(nextPacedRate({ ...base, pacedRate: 1_000, p99: 900, samples: 3 })).toBe(1_200);
    expect(nextPacedRate({ ...base, pacedRate: 1_000, p99: null, samples: 0 })).toBe(1_200);
  });
});

describe("rateInForce", () => {
  it("is the pacer's rate when it is lower than the organizer's, else the organizer's", () => {
    expect(rateInForce({ ratePerMinute: 4_800, pacedRate: 300 })).toEqual({ rate: 300, paced: true });
    expect(rateInForce({ ratePerMinute: 4_800, pacedRate: null })).toEqual({ rate: 4_800, paced: false });
    expect(rateInForce({ ratePerMinute: 4_800, pacedRate: 4_800 })).toEqual({ rate: 4_800, paced: false });
  });
});

describe("a paced event", () => {
  it("is paced before its on-sale and admits at the paced rate from it; cuts on slow holds once per hold-off, grows on fast ones; ETAs follow; unpaced gets the organizer's rate", async () => {
    const now = Date.now();
    const onSaleAt = now + 1_000;
    // The organizer's rate: 6,000/min (100 fans a second); cap 500.
    const soon = await makeStudioShow(db(), { onSaleAt: new Date(onSaleAt), admissionRatePerMinute: 6_000, activeCap: 500 });
    const later = await makeStudioShow(db(), { onSaleAt: new Date(now + 10 * PACING_INTERVAL_MS), admissionRatePerMinute: 6_000, activeCap: 500 });
    const ids = (await eventsToPace(db(), now)).map((e) => e.id);
    expect(ids).toContain(soon.eventId);
    expect(ids).not.toContain(later.eventId);
    const { eventId } = soon;

    // 300 fans in the pre-queue; the pacer's step before the on-sale sets the slow start.
    const fans = await makeFans(db(), 300);
    for (const [i, f] of fans.entries()) await joinQueue(db(), eventId, f, { now: now + i });
    expect(await paceEvent(eventId, 80, now + 500)).toMatchObject({ from: null, to: PACING.startRate });
    expect((await publicQueueStatus(db(), eventId, now + 500)).pacedRate).toBe(PACING.startRate);

    // 10 s after the on-sale at 300/min: 10 × 5 = 50 admitted (at the organizer's 6,000/min all 300 would be).
    const t = onSaleAt + 10_000;
    expect(await publicQueueStatus(db(), eventId, t)).toMatchObject({ servingCounter: 50, active: 50, pacedRate: 300, ratePerMinute: 6_000 });

    // A window of slow holds (20 at 200 ms, in the window before `t`): cut to 225.
    for (let k = 0; k < 20; k++) await recordHoldAttempt(eventId, 200, "held", t - RECENT_WINDOW_MS);
    // (Every hold at 200 ms: the median 200 is over 1.5 times the unloaded one, taken as at most 80 / 4 = 20.)
    expect(await paceEvent(eventId, 80, t)).toMatchObject({ from: 300, to: 225, p99: 200, p50: 200, samples: 20 });
    // 4 s later at 225/min: 15 more (4 × 3.75).
    expect(await publicQueueStatus(db(), eventId, t + 4_000)).toMatchObject({ servingCounter: 65, pacedRate: 225 });
    // A waiting fan's ETA is at the rate in force: position p waits (p − 65) × 60 / 225 s.
    const waiting = (await Promise.all(fans.map((f) => fanQueueStatus(db(), eventId, f, t + 4_000)))).filter((s) => s.state === "waiting");
    expect(waiting).toHaveLength(300 - 65);
    for (const s of waiting) expect(s).toMatchObject({ ratePerMinute: 225, etaSeconds: Math.ceil(((s.position - 65) * 60) / 225) });

    // Still slow 5 s later: within the hold-off (10 s), no second cut.
    for (let k = 0; k < 20; k++) await recordHoldAttempt(eventId, 200, "held", t);
    expect((await paceEvent(eventId, 80, t + 5_000)).to).toBe(225);
    // Still slow 10 s after the cut: 225 × 0.75 = 168.75 → 169.
    for (let k = 0; k < 20; k++) await recordHoldAttempt(eventId, 200, "held", t + 5_000);
    expect((await paceEvent(eventId, 80, t + 10_000)).to).toBe(169);

    // Two windows of fast holds (p99 10 ms ≤ 40): +20 % → 202.8 → 203.
    const t4 = t + 30_000;
    for (let k = 0; k < 30; k++) await recordHoldAttempt(eventId, 10, "held", t4 - RECENT_WINDOW_MS);
    for (let k = 0; k < 30; k++) await recordHoldAttempt(eventId, 10, "held", t4 - 2 * RECENT_WINDOW_MS);
    expect((await paceEvent(eventId, 80, t4)).to).toBe(203);

    // Pacing off: the organizer's 6,000/min again — a second later everyone left is admitted (300 < the cap of 500).
    await unpaceEvent(eventId);
    expect(await publicQueueStatus(db(), eventId, t4 + 1_000)).toMatchObject({ pacedRate: null, servingCounter: 300, ratePerMinute: 6_000 });
  });
});
