/**
 * docs/design.md's failure table, row by row, against the real Postgres and Redis and the
 * sandbox PSP's fault knobs; plus late payments, a double capture and a crash between
 * the PSP's capture and the order update. Each test ends with the invariant checker at zero.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { discrepancies, eventSeats, lineItems, orders, orderTransitions, paymentEvents, payments, tickets } from "@/db/schema";
import { closeDb, db } from "@/lib/db";
import { env } from "@/lib/env";
import { newId } from "@/lib/ids";
import { inventoryKeys } from "@/lib/inventory/keys";
import { rebuildInventory } from "@/lib/inventory/rebuild";
import { placeOrder } from "@/lib/orders/place-order";
import { startCheckout } from "@/lib/payments/checkout";
import * as psp from "@/lib/payments/sandbox/psp";
import { checkInvariants, totalViolations } from "@/lib/reconciliation/invariants";
import { sweep } from "@/lib/reconciliation/sweep";
import { closeRedis, redis } from "@/lib/redis";
import { deliverAll, sandbox } from "@/lib/testing/psp";
import { CLEAN_INVARIANTS } from "@/lib/testing/invariants";
import { makeFans, makeStudioShow } from "@/lib/testing/fixtures";

afterAll(async () => {
  await closeDb();
  await closeRedis();
});

const provider = sandbox;
const MIN = 60_000;
let show: Awaited<ReturnType<typeof makeStudioShow>>;
beforeEach(async () => {
  show = await makeStudioShow(db(), { onSaleAt: new Date(Date.now() - 86_400_000) });
  await rebuildInventory(db(), show.eventId);
});

const later = (ms = 16 * MIN) => new Date(Date.now() + ms);

/** A fan holds `ordinals`; the hold started `ageMs` ago (15-minute holds); the checkout is open. */
async function heldOrder(ordinals: number[], ageMs = 0) {
  const [fan] = await makeFans(db(), 1);
  const order = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals }, now: new Date(Date.now() - ageMs) });
  if (ageMs < 15 * MIN) await startCheckout(db(), provider, { orderId: order.orderId, fanId: fan!, now: new Date(Date.now() - ageMs) });
  const payment = await db().query.payments.findFirst({ where: eq(payments.orderId, order.orderId) });
  return { fan: fan!, order, checkoutId: payment?.checkoutSessionId ?? "" };
}

const statusOf = async (orderId: string) => (await db().query.orders.findFirst({ where: eq(orders.id, orderId) }))!.status;
const ticketsOf = async (orderId: string) => db().select().from(tickets).where(eq(tickets.orderId, orderId));
async function expectInvariantsClean() {
  const report = await checkInvariants(db(), { eventId: show.eventId, graceMs: 0 });
  expect(report).toEqual(CLEAN_INVARIANTS);
  expect(totalViolations(report)).toBe(0);
}

describe("failure table", () => {
  it("a fan holds seats and never pays → the hold expires on time and the seats return to sale", async () => {
    const { order, checkoutId } = await heldOrder([5, 6]);
    // Before expiry the sweep leaves it alone.
    await sweep(db(), { eventId: show.eventId });
    expect(await statusOf(order.orderId)).toBe("pending_payment");
    const r = await sweep(db(), { eventId: show.eventId, now: later() });
    expect(r.expired).toBe(1);
    expect(await statusOf(order.orderId)).toBe("expired");
    expect((await psp.retrieve(checkoutId)).status).toBe("cancelled");
    const items = await db().select().from(lineItems).where(eq(lineItems.orderId, order.orderId));
    expect(items.map((i) => i.status)).toEqual(["released", "released"]);
    expect(await redis().getbit(inventoryKeys(show.eventId).free, 5)).toBe(1);
    // Buyable again.
    const [other] = await makeFans(db(), 1);
    await expect(placeOrder(db(), { eventId: show.eventId, fanId: other!, request: { kind: "seats", ordinals: [5, 6] } })).resolves.toMatchObject({ seats: [{ ordinal: 5 }, { ordinal: 6 }] });
    await expectInvariantsClean();
  });

  it("payment succeeds, webhook lost → the active PSP query confirms the order and issues tickets", async () => {
    const { order, checkoutId } = await heldOrder([10, 11]);
    await psp.setCheckoutFaults(checkoutId, { drop: true });
    await psp.approve(checkoutId);
    expect((await deliverAll(checkoutId)).delivered).toBe(0);
    expect(await statusOf(order.orderId)).toBe("pending_payment");
    const r = await sweep(db(), { eventId: show.eventId, paymentQueryAfterMs: 0 });
    expect(r.paymentsQueried).toBe(1);
    expect(await statusOf(order.orderId)).toBe("ticketed");
    expect(await ticketsOf(order.orderId)).toHaveLength(2);
    await expectInvariantsClean();
  });

  it("webhooks delivered 3× each and out of order → one state change, one set of tickets", async () => {
    const { order, checkoutId } = await heldOrder([12]);
    // The PSP expires the checkout, then a late approval captures it; each webhook 3×, newest first.
    await psp.setCheckoutFaults(checkoutId, { duplicate: 2, reorder: true, webhookDelayMs: 5_000, captureAfterExpiry: true });
    await psp.cancel(checkoutId);
    await psp.approve(checkoutId);
    const d = await deliverAll(checkoutId);
    expect(d.delivered).toBe(6);
    expect(d.attempts[0]!.type).toBe("payment.captured");
    const log = await db().select().from(orderTransitions).where(eq(orderTransitions.orderId, order.orderId));
    expect(log.filter((l) => l.toStatus === "paid")).toHaveLength(1);
    expect(await statusOf(order.orderId)).toBe("ticketed");
    expect(await ticketsOf(order.orderId)).toHaveLength(1);
    expect(await db().select().from(paymentEvents).where(inArray(paymentEvents.providerEventId, [...new Set(d.attempts.map((a) => a.eventId))]))).toHaveLength(2);
    await expectInvariantsClean();
  });

  it("ticket issuance fails for a while → the order waits in paid, then the retry issues the tickets", async () => {
    const { order, checkoutId } = await heldOrder([20, 21]);
    // Another session holds a lock that blocks ticket inserts (issuance gives up after its 2 s lock timeout).
    const blocker = postgres(env().DATABASE_URL, { max: 1, onnotice: () => {} });
    const reserved = await blocker.reserve();
    await reserved`begin`;
    await reserved`lock table tickets in share row exclusive mode`;
    try {
      await psp.approve(checkoutId);
      await deliverAll(checkoutId);
      expect(await statusOf(order.orderId)).toBe("paid");
      expect(await ticketsOf(order.orderId)).toHaveLength(0);
      expect((await sweep(db(), { eventId: show.eventId })).errors.join()).toMatch(/lock timeout/);
      expect(await statusOf(order.orderId)).toBe("paid");
    } finally {
      await reserved`rollback`;
      reserved.release();
      await blocker.end();
    }
    const r = await sweep(db(), { eventId: show.eventId });
    expect(r.ticketed).toBe(1);
    expect(await statusOf(order.orderId)).toBe("ticketed");
    expect(await ticketsOf(order.orderId)).toHaveLength(2);
    await expectInvariantsClean();
  }, 30_000);

  it("expiry races a payment (pays at 14:59, webhook at 15:02) → paid, never both expired and charged", async () => {
    // The hold started 14 min 59 s ago: the fan pays now, the webhook is 3 minutes late.
    const { order, checkoutId } = await heldOrder([30], 14 * MIN + 59_000);
    await psp.setCheckoutFaults(checkoutId, { webhookDelayMs: 3 * MIN });
    await psp.approve(checkoutId);
    // 15:00 — the expiry sweep runs first and asks the PSP before releasing anything.
    const r = await sweep(db(), { eventId: show.eventId, now: later(2_000) });
    expect(r.paidAtExpiry).toBe(1);
    expect(r.expired).toBe(0);
    // 15:02 — the webhook arrives: no further effect.
    await deliverAll(checkoutId);
    const log = await db().select().from(orderTransitions).where(eq(orderTransitions.orderId, order.orderId));
    expect(log.some((l) => l.toStatus === "expired")).toBe(false);
    expect(await statusOf(order.orderId)).toBe("ticketed");
    await expectInvariantsClean();
  });
});

describe("late payments, double capture, crash", () => {
  it("a payment after expiry with the seats still free → re-claims them and confirms", async () => {
    const { order, checkoutId } = await heldOrder([40, 41]);
    await sweep(db(), { eventId: show.eventId, now: later() });
    expect(await statusOf(order.orderId)).toBe("expired");
    await psp.setCheckoutFaults(checkoutId, { captureAfterExpiry: true });
    await psp.approve(checkoutId);
    await deliverAll(checkoutId);
    expect(await statusOf(order.orderId)).toBe("ticketed");
    expect(await ticketsOf(order.orderId)).toHaveLength(2);
    const [d] = await db().select().from(discrepancies).where(eq(discrepancies.orderId, order.orderId));
    expect([d!.kind, d!.status, d!.action]).toEqual(["late_payment", "repaired", "seats were still free: re-claimed and sold"]);
    await expectInvariantsClean();
  });

  it("a payment after expiry with the seats gone → refunded automatically, discrepancy recorded", async () => {
    const { order, checkoutId } = await heldOrder([42]);
    await sweep(db(), { eventId: show.eventId, now: later() });
    const [other] = await makeFans(db(), 1);
    await placeOrder(db(), { eventId: show.eventId, fanId: other!, request: { kind: "seats", ordinals: [42] } });
    await psp.setCheckoutFaults(checkoutId, { captureAfterExpiry: true });
    await psp.approve(checkoutId);
    await deliverAll(checkoutId);
    expect(await statusOf(order.orderId)).toBe("expired");
    const [p] = await db().select().from(payments).where(eq(payments.orderId, order.orderId));
    expect(p!.status).toBe("refunded");
    expect((await psp.retrieve(checkoutId)).status).toBe("refunded");
    const [d] = await db().select().from(discrepancies).where(eq(discrepancies.orderId, order.orderId));
    expect([d!.kind, d!.action]).toEqual(["late_payment", "seats were taken: payment refunded in full"]);
    await expectInvariantsClean();
  });

  it("two captures for one order → the extra one is refunded (I3)", async () => {
    const { order, checkoutId } = await heldOrder([44]);
    // A second checkout for the same order (another tab), both approved.
    const second = await provider.createCheckoutSession({
      orderId: order.orderId,
      amountMinor: order.totalMinor,
      currency: order.currency,
      description: "second tab",
      expiresAt: order.holdExpiresAt,
      returnUrl: "http://localhost/return",
      idempotencyKey: `${order.orderId}:second-tab`,
    });
    await db().insert(payments).values({ id: newId("pay"), orderId: order.orderId, provider: "sandbox", checkoutSessionId: second.id, amountMinor: order.totalMinor, currency: order.currency });
    await psp.approve(checkoutId);
    await psp.approve(second.id);
    await deliverAll(checkoutId);
    await deliverAll(second.id);
    const ps = await db().select().from(payments).where(eq(payments.orderId, order.orderId));
    expect(ps.map((p) => p.status).sort()).toEqual(["captured", "refunded"]);
    expect(await statusOf(order.orderId)).toBe("ticketed");
    await expectInvariantsClean();
  });

  it("the app dies between the PSP's capture and the order update → the next sweep finishes the job", async () => {
    const { order, checkoutId } = await heldOrder([46]);
    await psp.setCheckoutFaults(checkoutId, { drop: true });
    await psp.approve(checkoutId);
    // The webhook was stored, then the process died before applying it (processed_at stays null).
    await db().insert(paymentEvents).values({ provider: "sandbox", providerEventId: `sbx_evt_crash_${order.orderId}`, type: "payment.captured", payload: {} });
    expect(await statusOf(order.orderId)).toBe("pending_payment");
    await sweep(db(), { eventId: show.eventId, paymentQueryAfterMs: 0 });
    expect(await statusOf(order.orderId)).toBe("ticketed");
    const sold = await db().select().from(eventSeats).where(and(eq(eventSeats.eventId, show.eventId), eq(eventSeats.status, "sold")));
    expect(sold).toHaveLength(1);
    await expectInvariantsClean();
  });
});

describe("attacks found by a tester", () => {
  it("20 concurrent pay clicks open one checkout", async () => {
    const [fan] = await makeFans(db(), 1);
    const placed = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [25] } });
    const urls = await Promise.all(Array.from({ length: 20 }, () => startCheckout(db(), provider, { orderId: placed.orderId, fanId: fan! })));
    expect(new Set(urls.map((u) => u.url)).size).toBe(1);
    expect(await db().select().from(payments).where(eq(payments.orderId, placed.orderId))).toHaveLength(1);
  });

  it("giving the seats back while on the pay page cancels the checkout first; a late approval cannot charge", async () => {
    const { order, checkoutId } = await heldOrder([26]);
    const { closePendingOrder } = await import("@/lib/payments/expiry");
    expect(await closePendingOrder(db(), order.orderId, "cancelled", { actor: "test", reason: "fan gave the seats back" })).toBe("closed");
    expect((await psp.retrieve(checkoutId)).status).toBe("cancelled");
    expect((await psp.approve(checkoutId)).outcome).toBe("unchanged");
    await expectInvariantsClean();
  });

  it("a signed capture message that shows no payment is not money", async () => {
    const { order, checkoutId } = await heldOrder([27]);
    const { applyPspAnswer } = await import("@/lib/payments/apply");
    const claim = { checkoutSessionId: checkoutId, orderId: order.orderId, paymentId: null, amountMinor: order.totalMinor, currency: "EUR", capturedAt: null };
    // "captured" without a payment id, and a capture event whose checkout is still open: neither is money.
    expect(await applyPspAnswer(db(), provider, { ...claim, status: "captured" }, { actor: "test", reason: "forged" }, "query")).toBe("not_captured");
    expect(await applyPspAnswer(db(), provider, { ...claim, status: "open" }, { actor: "test", reason: "forged" }, "query")).toBe("nothing");
    expect(await statusOf(order.orderId)).toBe("pending_payment");
  });
});

describe("invariant checker", () => {
  it("catches a rule broken on purpose", async () => {
    const { order } = await heldOrder([48]);
    // A ticket for an unpaid order (I4), written behind the app's back.
    const [li] = await db().select().from(lineItems).where(eq(lineItems.orderId, order.orderId));
    await db().insert(tickets).values({ id: newId("tkt"), orderId: order.orderId, lineItemId: li!.id, eventId: show.eventId, seatId: li!.seatId, code: `forged-${order.orderId}` });
    // And Redis saying a held seat is free.
    await redis().setbit(inventoryKeys(show.eventId).free, 48, 1);
    const report = await checkInvariants(db(), { eventId: show.eventId });
    expect(report.ticketsWithoutPayment).toBe(1);
    expect(report.redisMismatches).toBe(1);
    expect(totalViolations(report)).toBe(2);
    await db().execute(sql`delete from tickets where order_id = ${order.orderId}`);
  });
});
