/**
 * `npm run demo:reset` against the real Postgres and Redis: the seeded demo show, after an
 * on-sale that already ran (a ticketed order, a live hold, fans in the queue), gets a new
 * on-sale `minutes` from now and an empty waiting room — a fresh join is the pre-queue's
 * first fan — while orders, tickets, payments, seats and the Redis inventory stay as they
 * were and the invariant checker stays at zero. Bad input is refused with typed errors.
 *
 * The demo seed needs a database of its own: scripts/lib/seed.test.ts counts what seeding
 * adds to the run's shared database, and the demo's slug and accounts exist only once. So
 * this file points lib/env at `<run's database>_demo_reset` before anything reads it.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { and, asc, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { eventSeats, events, lineItems, orders, payments, tickets, user } from "@/db/schema";
import { closeDb, db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { DEMO_ORGANIZER_EMAIL, DEMO_SHOW_SLUG, NotTheDemoShowError, resetDemoOnSale } from "@/lib/events/demo-reset";
import { EventNotFoundError } from "@/lib/events/errors";
import { inventoryKeys } from "@/lib/inventory/keys";
import { readHold } from "@/lib/inventory/hold";
import { rebuildInventory } from "@/lib/inventory/rebuild";
import { dropDatabase, ensureDatabase, runMigrations } from "@/lib/migrations";
import { placeOrder } from "@/lib/orders/place-order";
import { startCheckout } from "@/lib/payments/checkout";
import * as psp from "@/lib/payments/sandbox/psp";
import { checkInvariants } from "@/lib/reconciliation/invariants";
import { closeRedis, redis } from "@/lib/redis";
import { makeFans } from "@/lib/testing/fixtures";
import { CLEAN_INVARIANTS } from "@/lib/testing/invariants";
import { deliverAll, sandbox } from "@/lib/testing/psp";
import { queueKeys } from "@/lib/waiting-room/keys";
import { fanQueueStatus, joinQueue, publicQueueStatus } from "@/lib/waiting-room/queue";
import { DEMO_EVENT_SLUG, seedDemo, TEST_EVENT_SLUG } from "@/scripts/lib/seed";

const DEMO_DB_URL = vi.hoisted(() => {
  const u = new URL(process.env.DATABASE_URL!);
  u.pathname = `${u.pathname}_demo_reset`;
  process.env.DATABASE_URL = u.toString();
  return u.toString();
});

const MIN = 60_000;
let eventId: string;
let fans: string[];

beforeAll(async () => {
  await ensureDatabase(DEMO_DB_URL);
  await runMigrations(DEMO_DB_URL);
  // The demo as it is after its on-sale: opened 10 minutes ago.
  eventId = (await seedDemo(db(), { onSaleDelayMinutes: -10 })).demoEventId;
  await rebuildInventory(db(), eventId);
  fans = await makeFans(db(), 5);
}, 120_000);

afterAll(async () => {
  await closeDb();
  await closeRedis();
  await dropDatabase(DEMO_DB_URL);
});

/** Everything the reset must not touch: the show's orders, line items, seats, tickets, payments and Redis inventory. */
async function untouchables() {
  const k = inventoryKeys(eventId);
  const [orderRows, itemRows, seatCounts, ticketRows, paymentRows, free, owner, fanCounts, holds] = await Promise.all([
    db().select({ id: orders.id, status: orders.status, totalMinor: orders.totalMinor }).from(orders).where(eq(orders.eventId, eventId)).orderBy(asc(orders.id)),
    db().select({ id: lineItems.id, status: lineItems.status, seatId: lineItems.seatId }).from(lineItems).where(eq(lineItems.eventId, eventId)).orderBy(asc(lineItems.id)),
    db().select({ status: eventSeats.status, n: sql<number>`count(*)::int` }).from(eventSeats).where(eq(eventSeats.eventId, eventId)).groupBy(eventSeats.status).orderBy(asc(eventSeats.status)),
    db().select({ id: tickets.id, status: tickets.status, code: tickets.shortCode }).from(tickets).innerJoin(orders, eq(tickets.orderId, orders.id)).where(eq(orders.eventId, eventId)).orderBy(asc(tickets.id)),
    db().select({ id: payments.id, status: payments.status, amount: payments.amountMinor }).from(payments).innerJoin(orders, eq(payments.orderId, orders.id)).where(eq(orders.eventId, eventId)).orderBy(asc(payments.id)),
    redis().get<string>(k.free),
    redis().hgetall(k.owner),
    redis().hgetall(k.fan),
    redis().zrange(k.holds, 0, -1, { withScores: true }),
  ]);
  return { orderRows, itemRows, seatCounts, ticketRows, paymentRows, free, owner, fanCounts, holds };
}

const onSaleOf = async () => (await db().query.events.findFirst({ where: eq(events.id, eventId) }))!.onSaleAt;

describe("resetDemoOnSale", () => {
  it("knows the seed's demo show", () => {
    expect(DEMO_SHOW_SLUG).toBe(DEMO_EVENT_SLUG);
  });

  it("moves the on-sale to now + minutes and empties the waiting room; sold seats, holds, orders and tickets stay as they were", async () => {
    const [buyer, holder, queued1, queued2, newcomer] = fans as [string, string, string, string, string];
    // A ticketed order of two seats…
    const bought = await placeOrder(db(), { eventId, fanId: buyer, request: { kind: "seats", ordinals: [0, 1] } });
    const { url } = await startCheckout(db(), sandbox, { orderId: bought.orderId, fanId: buyer });
    const checkoutId = /sbx_cs_[0-9a-z]+/.exec(url)![0];
    await psp.approve(checkoutId);
    await deliverAll(checkoutId);
    expect((await db().query.orders.findFirst({ where: eq(orders.id, bought.orderId) }))!.status).toBe("ticketed");
    // …a live hold waiting for payment…
    const holding = await placeOrder(db(), { eventId, fanId: holder, request: { kind: "seats", ordinals: [2] } });
    // …and two fans in the queue (after the on-sale: positions 1 and 2, the first admitted at once).
    expect((await joinQueue(db(), eventId, queued1)).position).toBe(1);
    expect((await joinQueue(db(), eventId, queued2)).position).toBe(2);
    expect((await fanQueueStatus(db(), eventId, queued1, Date.now() + 1_000)).state).toBe("admitted");

    const before = await untouchables();
    expect(before.seatCounts).toEqual([
      { status: "available", n: 19_997 },
      { status: "held", n: 1 },
      { status: "sold", n: 2 },
    ]);
    expect(before.ticketRows).toHaveLength(2);
    const previousOnSale = await onSaleOf();

    const t0 = Date.now();
    const r = await resetDemoOnSale(db(), redis(), { minutes: 5 });
    const t1 = Date.now();

    // The new on-sale, computed here: between t0 + 5 min and t1 + 5 min (the column keeps microseconds; ms are exact).
    const onSale = await onSaleOf();
    expect(onSale.getTime()).toBeGreaterThanOrEqual(t0 + 5 * MIN);
    expect(onSale.getTime()).toBeLessThanOrEqual(t1 + 5 * MIN);
    expect(r).toMatchObject({ eventId, slug: DEMO_SHOW_SLUG, minutes: 5, previousOnSaleAt: previousOnSale, seatsSold: 2, seatsHeld: 1, queuePlacesCleared: 2, timeZone: "Europe/Berlin" });
    expect(r.onSaleAt.getTime()).toBe(onSale.getTime());

    // The room: everything but the configuration is gone; the configuration is Postgres's, not paused.
    const [cfg, ...state] = queueKeys(eventId);
    expect(await redis().exists(...state)).toBe(0);
    expect(await redis().hgetall(cfg!)).toMatchObject({ onSaleAt: onSale.getTime(), paused: 0 });
    // The old fans have no place; a fresh join is the pre-queue's first fan.
    expect((await fanQueueStatus(db(), eventId, queued1)).state).toBe("none");
    expect((await fanQueueStatus(db(), eventId, queued2)).state).toBe("none");
    const fresh = await joinQueue(db(), eventId, newcomer);
    expect(fresh).toMatchObject({ state: "pre", position: 0, preQueueSize: 1, servingCounter: 0 });
    expect(fresh.draw).not.toBeNull();
    expect(await publicQueueStatus(db(), eventId)).toMatchObject({ servingCounter: 0, queueLength: 1, active: 0, preQueueSize: 1, onSaleAt: onSale.getTime() });
    // At the new on-sale the draw makes the newcomer position 1, admitted.
    expect(await fanQueueStatus(db(), eventId, newcomer, onSale.getTime() + 1_000)).toMatchObject({ state: "admitted", position: 1 });

    // Nothing of the sale changed: seats sold stay sold, the hold is still live, money and tickets are as they were.
    expect(await untouchables()).toEqual(before);
    expect(await readHold(eventId, holding.holdId)).toMatchObject({ fan: holder, seats: [2] });
    expect(await checkInvariants(db(), { eventId, graceMs: 0 })).toEqual(CLEAN_INVARIANTS);
    // The fans still holding seats can pay: a hold does not need the waiting room any more.
    await expect(startCheckout(db(), sandbox, { orderId: holding.orderId, fanId: holder })).resolves.toMatchObject({ url: expect.any(String) });
  });

  it("defaults to 3 minutes, and can run again", async () => {
    const t0 = Date.now();
    const r = await resetDemoOnSale(db(), redis());
    expect(r.minutes).toBe(3);
    expect(r.queuePlacesCleared).toBe(1); // the newcomer of the test before
    expect(Math.abs((await onSaleOf()).getTime() - (t0 + 3 * MIN))).toBeLessThan(5_000);
  });

  it("refuses bad minutes, an unknown show and any show but the seeded demo show, and changes nothing", async () => {
    const onSale = await onSaleOf();
    const [fan] = await makeFans(db(), 1);
    await joinQueue(db(), eventId, fan!);

    for (const minutes of [0, 500, 121, -3, 2.5, Number.NaN]) {
      const refused = resetDemoOnSale(db(), redis(), { minutes });
      await expect(refused).rejects.toBeInstanceOf(AppError);
      await expect(resetDemoOnSale(db(), redis(), { minutes })).rejects.toMatchObject({ kind: "bad_request", code: "invalid_input", field: "minutes", status: 400 });
    }
    await expect(resetDemoOnSale(db(), redis(), { slug: "no-such-show", minutes: 3 })).rejects.toBeInstanceOf(EventNotFoundError);
    await expect(resetDemoOnSale(db(), redis(), { slug: "no-such-show" })).rejects.toMatchObject({ status: 404, code: "no_such_show" });
    // The seed's other show is a real show, not the demo's.
    await expect(resetDemoOnSale(db(), redis(), { slug: TEST_EVENT_SLUG })).rejects.toBeInstanceOf(NotTheDemoShowError);
    await expect(resetDemoOnSale(db(), redis(), { slug: TEST_EVENT_SLUG })).rejects.toMatchObject({ status: 403 });
    // A show under the demo's slug that some other organizer runs is not the demo either.
    const [organizer] = await db().select({ id: user.id }).from(user).where(eq(user.email, DEMO_ORGANIZER_EMAIL));
    await db().update(user).set({ email: "someone-else@stararena.test" }).where(eq(user.id, organizer!.id));
    try {
      await expect(resetDemoOnSale(db(), redis())).rejects.toBeInstanceOf(NotTheDemoShowError);
    } finally {
      await db().update(user).set({ email: DEMO_ORGANIZER_EMAIL }).where(eq(user.id, organizer!.id));
    }

    expect((await onSaleOf()).getTime()).toBe(onSale.getTime());
    expect((await fanQueueStatus(db(), eventId, fan!)).state).toBe("pre");
    const [studio] = await db().select({ onSaleAt: events.onSaleAt }).from(events).where(and(eq(events.slug, TEST_EVENT_SLUG)));
    expect(studio!.onSaleAt.getTime()).toBeLessThan(Date.now());
  });
});

describe("npm run demo:reset", () => {
  const run = (args: string[], envOverrides: Record<string, string> = {}) =>
    spawnSync(process.execPath, [path.join(process.cwd(), "node_modules/tsx/dist/cli.mjs"), "scripts/demo-reset.ts", ...args], {
      cwd: process.cwd(),
      encoding: "utf8",
      env: { ...process.env, DATABASE_URL: DEMO_DB_URL, ...envOverrides },
      timeout: 60_000,
    });

  it("prints what it did", () => {
    const r = run(["--minutes", "7"]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Demo show Nova Lights — World Tour 2027: on-sale moved to \d\d:\d\d Central European Time \(in 7 min; was .+\); waiting room cleared \(\d+ places?\b.*\); 2 seats already sold stay sold \(1 held seat stays? held/);
  });

  it("exits 2 on bad arguments and 1 on a refusal or an unreachable database, saying why", () => {
    for (const args of [["--minutes", "0x"], ["--minutes"], ["--frobnicate"]]) {
      const r = run(args);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/^demo:reset: .+\nusage: npm run demo:reset/);
    }
    const tooMany = run(["--minutes", "500"]);
    expect(tooMany.status).toBe(1);
    expect(tooMany.stderr).toMatch(/minutes must be a whole number from 1 to 120 .*\(invalid_input\)/);
    const notDemo = run(["--slug", TEST_EVENT_SLUG]);
    expect(notDemo.status).toBe(1);
    expect(notDemo.stderr).toMatch(/is not the seeded demo show/);
    const down = run([], { DATABASE_URL: "postgres://postgres@127.0.0.1:1/stararena" });
    expect(down.status).toBe(1);
    expect(down.stderr).toMatch(/^demo:reset: cannot reach the database \(postgres:\/\/postgres@127\.0\.0\.1:1\/stararena\)/);
  });
});
