/**
 * The waiting room against the real Redis (and Postgres for the show's configuration),
 * with an injected clock: fair pre-queue draw, FIFO after the on-sale, admission within
 * rate and cap over a simulated hour, and constant status cost.
 */
import { afterAll, describe, expect, it } from "vitest";
import { closeDb, db } from "@/lib/db";
import { closeRedis } from "@/lib/redis";
import { makeStudioShow } from "@/lib/testing/fixtures";
import { DRAW_RANGE, estimatedPreQueuePosition, MAX_POLL_MS, pollDelayMs, preQueueTurnNear } from "@/lib/waiting-room/draw";
import { setQueueControls } from "@/lib/waiting-room/config";
import { extendSlot, fanQueueStatus, freeSlot, joinQueue, publicQueueStatus } from "@/lib/waiting-room/queue";

afterAll(async () => {
  await closeDb();
  await closeRedis();
});

const HOUR = 3_600_000;

/** Spearman's rank correlation of two equally long sequences of distinct ranks. */
function spearman(a: number[], b: number[]): number {
  const n = a.length;
  let d2 = 0;
  for (let i = 0; i < n; i++) d2 += (a[i]! - b[i]!) ** 2;
  return 1 - (6 * d2) / (n * (n * n - 1));
}

describe("pre-queue and FIFO", () => {
  it("10,000 concurrent pre-queue joins become positions 1..10,000 in an order unrelated to join order; later joins are FIFO", async () => {
    const onSaleAt = Date.now() + HOUR;
    const { eventId } = await makeStudioShow(db(), { onSaleAt: new Date(onSaleAt), startsAt: new Date(onSaleAt + 24 * HOUR) });
    const fans = Array.from({ length: 10_000 }, (_, i) => `usr_pre${i}`);
    const before = await Promise.all(fans.map((f, i) => joinQueue(db(), eventId, f, { now: onSaleAt - 60_000 + i })));
    expect(before.every((s) => s.state === "pre" && s.position === 0)).toBe(true);
    // Joining again (reload, new tab) changes nothing.
    await Promise.all(fans.slice(0, 100).map((f) => joinQueue(db(), eventId, f, { now: onSaleAt - 1_000 })));

    const after = await Promise.all(fans.map((f) => fanQueueStatus(db(), eventId, f, onSaleAt + 1)));
    const positions = after.map((s) => s.position);
    expect([...positions].sort((a, b) => a - b)).toEqual(Array.from({ length: 10_000 }, (_, i) => i + 1));

    // Unrelated to join order: Spearman's rho ~ N(0, 1/sqrt(n-1)) = ±0.01 under independence; 5 sd bound.
    const joinRanks = fans.map((_, i) => i + 1);
    expect(Math.abs(spearman(joinRanks, positions))).toBeLessThan(0.05);
    // And the earliest half of joiners is not favoured: about half of them land in the first 5,000 places
    // (hypergeometric sd ≈ 0.0035 of the fraction; 10 sd bound).
    const earlyInFront = positions.slice(0, 5_000).filter((p) => p <= 5_000).length / 5_000;
    expect(Math.abs(earlyInFront - 0.5)).toBeLessThan(0.035);

    // 5,000 more after the on-sale, arriving one after another: appended in arrival order.
    const late = Array.from({ length: 5_000 }, (_, i) => `usr_late${i}`);
    const joined = [];
    for (const [i, f] of late.entries()) joined.push(await joinQueue(db(), eventId, f, { now: onSaleAt + 10 + i }));
    expect(joined.map((s) => s.position)).toEqual(Array.from({ length: 5_000 }, (_, i) => 10_001 + i));
    // …and a pre-queue fan re-joining after the on-sale keeps their drawn place.
    expect((await joinQueue(db(), eventId, fans[0]!, { now: onSaleAt + 20_000 })).position).toBe(positions[0]);
  });
});

describe("the draw: a pre-queue fan learns its turn from the public status", () => {
  it("servingDraw admits exactly the fans ranked up to the serving counter; estimates stay within their spread", async () => {
    const onSaleAt = Date.now() + HOUR;
    // 2,000 pre-queue fans; 60 admitted per minute, cap high enough not to bind.
    const { eventId } = await makeStudioShow(db(), { onSaleAt: new Date(onSaleAt), startsAt: new Date(onSaleAt + 24 * HOUR), admissionRatePerMinute: 60, activeCap: 10_000 });
    const fans = Array.from({ length: 2_000 }, (_, i) => `usr_draw${i}`);
    const joined = await Promise.all(fans.map((f) => joinQueue(db(), eventId, f, { now: onSaleAt - 30_000 })));
    expect(joined.every((s) => s.draw !== null && Number.isInteger(s.draw) && s.draw >= 0 && s.draw < DRAW_RANGE)).toBe(true);
    const before = await publicQueueStatus(db(), eventId, onSaleAt - 1);
    expect(before).toMatchObject({ preQueueSize: 2_000, servingCounter: 0, servingDraw: -1 });

    // 30 s after the on-sale: 30 admitted (60/min). Exactly the 30 smallest draws are ≤ servingDraw.
    const pub = await publicQueueStatus(db(), eventId, onSaleAt + 30_000);
    expect(pub.servingCounter).toBe(30);
    const exact = await Promise.all(fans.map((f) => fanQueueStatus(db(), eventId, f, onSaleAt + 30_000)));
    const served = joined.map((s, i) => ({ draw: s.draw!, position: exact[i]!.position }));
    expect(served.filter((f) => f.draw <= pub.servingDraw).map((f) => f.position).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    // A fan's draw order is its place: sorting by draw gives positions 1..2,000.
    expect([...served].sort((a, b) => a.draw - b.draw).map((f) => f.position)).toEqual(Array.from({ length: 2_000 }, (_, i) => i + 1));
    // Estimates from the draw alone: within 5σ of the exact place (σ = √(n·q·(1−q)) ≤ √2000/2 ≈ 22.4).
    const worst = Math.max(...served.map((f) => Math.abs(estimatedPreQueuePosition(f.draw, 2_000) - f.position)));
    expect(worst).toBeLessThan(5 * 22.4);
    // Everyone whose turn came is told to ask (no fan admitted without knowing), and far-back fans are not.
    expect(served.filter((f) => f.position <= 30).every((f) => preQueueTurnNear(f.draw, pub))).toBe(true);
    const asking = served.filter((f) => preQueueTurnNear(f.draw, pub)).length;
    expect(asking).toBeLessThan(30 + 50 + 5 * 22.4 * 2);
    expect(served.filter((f) => f.position > 500).some((f) => preQueueTurnNear(f.draw, pub))).toBe(false);

    // Once the serving counter passes the pre-queue, servingDraw covers every draw.
    await setQueueControls(db(), eventId, { ratePerMinute: 100_000 }, onSaleAt + 30_000);
    const end = await publicQueueStatus(db(), eventId, onSaleAt + 60 * 60_000);
    expect(end.servingCounter).toBe(2_000);
    expect(end.servingDraw).toBe(DRAW_RANGE);
    // A fan joining after the on-sale has no draw.
    expect((await joinQueue(db(), eventId, "usr_drawlate", { now: onSaleAt + 60 * 60_000 })).draw).toBeNull();
  });
});

describe("poll interval", () => {
  it("is the base near the turn and a twentieth of the wait far back, at most 30 s", () => {
    expect(pollDelayMs(0, 4_800)).toBe(2_500);
    expect(pollDelayMs(100, 4_800)).toBe(2_500); // 1.25 s away
    expect(pollDelayMs(10_000, 4_800)).toBe(6_250); // 125 s away → 125/20 s
    expect(pollDelayMs(1_000_000, 4_800)).toBe(MAX_POLL_MS);
    expect(pollDelayMs(10_000, 0)).toBe(2_500); // paused: keep looking at the base rate
  });
});

describe("admission over a simulated hour", () => {
  it("never admits more than R per minute nor more than C at once, and reuses freed slots", async () => {
    const R = 30;
    const C = 12;
    const onSaleAt = Date.now() + 60_000;
    const { eventId } = await makeStudioShow(db(), {
      onSaleAt: new Date(onSaleAt),
      startsAt: new Date(onSaleAt + 24 * HOUR),
      admissionRatePerMinute: R,
      activeCap: C,
    });
    const fans = Array.from({ length: 2_000 }, (_, i) => `usr_sim${i}`);
    await Promise.all(fans.map((f, i) => joinQueue(db(), eventId, f, { now: onSaleAt + i })));

    // Deterministic pseudo-random steps and behaviours.
    let seed = 42;
    const rand = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const admissions: { at: number; n: number }[] = [];
    let now = onSaleAt + 2_000;
    let lastServing = 0;
    let maxActive = 0;
    const fate = new Map<number, "buy" | "hold" | "leave" | "idle">();
    while (now < onSaleAt + HOUR) {
      const s = await publicQueueStatus(db(), eventId, now);
      maxActive = Math.max(maxActive, s.active);
      expect(s.active).toBeLessThanOrEqual(C);
      if (s.servingCounter > lastServing) {
        admissions.push({ at: now, n: s.servingCounter - lastServing });
        for (let p = lastServing + 1; p <= s.servingCounter; p++) {
          const r = rand();
          fate.set(p, r < 0.4 ? "buy" : r < 0.6 ? "hold" : r < 0.8 ? "leave" : "idle");
        }
        lastServing = s.servingCounter;
      }
      // Admitted fans act a little later: buy (slot freed), hold (slot kept 15 min), leave (freed), or idle (token expires).
      for (const [p, what] of fate) {
        if (rand() < 0.3) {
          const fan = fans[p - 1]!;
          if (what === "buy" || what === "leave") await freeSlot(db(), eventId, fan, now);
          if (what === "hold") await extendSlot(db(), eventId, fan, now + 15 * 60_000, now);
          fate.delete(p);
        }
      }
      now += 500 + Math.floor(rand() * 4_500);
    }
    // Rate: in every trailing minute ending at an admission, at most R admitted.
    for (const a of admissions) {
      const inWindow = admissions.filter((b) => b.at > a.at - 60_000 && b.at <= a.at).reduce((n, b) => n + b.n, 0);
      expect(inWindow).toBeLessThanOrEqual(R);
    }
    const total = admissions.reduce((n, a) => n + a.n, 0);
    expect(maxActive).toBe(C); // the cap was reached…
    expect(total).toBeGreaterThan(3 * C); // …and freed slots were reused many times
    expect(total).toBeLessThanOrEqual(R * 60);
  });

  it("pause stops admission at once; resume and a new rate take effect immediately", async () => {
    const onSaleAt = Date.now() + 60_000;
    const { eventId } = await makeStudioShow(db(), { onSaleAt: new Date(onSaleAt), startsAt: new Date(onSaleAt + 24 * HOUR), admissionRatePerMinute: 60, activeCap: 1_000 });
    await Promise.all(Array.from({ length: 500 }, (_, i) => joinQueue(db(), eventId, `usr_p${i}`, { now: onSaleAt + i })));
    expect((await publicQueueStatus(db(), eventId, onSaleAt + 10_000)).servingCounter).toBe(10);
    await setQueueControls(db(), eventId, { paused: true }, onSaleAt + 10_000);
    expect((await publicQueueStatus(db(), eventId, onSaleAt + 40_000)).servingCounter).toBe(10);
    await setQueueControls(db(), eventId, { paused: false, ratePerMinute: 240 }, onSaleAt + 40_000);
    // 240/min = 4 per second: 5 s later, 20 more.
    const s = await publicQueueStatus(db(), eventId, onSaleAt + 45_000);
    expect(s.servingCounter).toBe(30);
    expect(s.ratePerMinute).toBe(240);
  });

  it("an admitted fan whose token expires unused frees the slot and may rejoin at the back", async () => {
    const onSaleAt = Date.now() + 60_000;
    const { eventId } = await makeStudioShow(db(), { onSaleAt: new Date(onSaleAt), startsAt: new Date(onSaleAt + 24 * HOUR), admissionRatePerMinute: 60, activeCap: 1 });
    await joinQueue(db(), eventId, "usr_a", { now: onSaleAt + 1 });
    await joinQueue(db(), eventId, "usr_b", { now: onSaleAt + 2 });
    const a = await fanQueueStatus(db(), eventId, "usr_a", onSaleAt + 2_000);
    expect(a.state).toBe("admitted");
    // Admitted when the counter was next read (at +2 s), for the 10-minute admission window.
    expect(a.admittedUntil).toBe(onSaleAt + 2_000 + 10 * 60_000);
    expect((await fanQueueStatus(db(), eventId, "usr_b", onSaleAt + 60_000)).state).toBe("waiting"); // cap 1
    const later = onSaleAt + 2_000 + 10 * 60_000 + 1;
    expect((await fanQueueStatus(db(), eventId, "usr_a", later)).state).toBe("expired");
    expect((await fanQueueStatus(db(), eventId, "usr_b", later + 1_000)).state).toBe("admitted");
    expect((await joinQueue(db(), eventId, "usr_a", { now: later + 2_000, rejoin: true })).position).toBe(3);
  });
});
