/** The live view's figures, worked out from a purchase made through the real paths. */
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { payments, tickets } from "@/db/schema";
import { refundOrder, refundOrderTickets } from "@/lib/admin/orders";
import { liveStats } from "@/lib/dashboard/live";
import { closeDb, db } from "@/lib/db";
import { rebuildInventory } from "@/lib/inventory/rebuild";
import { quantile, recordHoldAttempt } from "@/lib/metrics/holds";
import { placeOrder } from "@/lib/orders/place-order";
import { startCheckout } from "@/lib/payments/checkout";
import { SandboxProvider } from "@/lib/payments/sandbox/provider";
import * as psp from "@/lib/payments/sandbox/psp";
import { syncOrderPayment } from "@/lib/payments/sync";
import { closeRedis } from "@/lib/redis";
import { makeFans, makeStudioShow } from "@/lib/testing/fixtures";

afterAll(async () => {
  await closeDb();
  await closeRedis();
});

describe("quantile", () => {
  it("is nearest-rank", () => {
    const xs = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(quantile(xs, 0.5)).toBe(50);
    expect(quantile(xs, 0.99)).toBe(99);
    expect(quantile([7], 0.99)).toBe(7);
    expect(quantile([], 0.5)).toBeNull();
  });
});

describe("liveStats", () => {
  it("counts sold seats, revenue, sales per minute, payment rates and hold-path health", async () => {
    const show = await makeStudioShow(db());
    await rebuildInventory(db(), show.eventId);
    const [a, b] = await makeFans(db(), 2);
    const provider = new SandboxProvider();
    // Fan a buys 2 front-row seats (2 × 45.00 EUR); fan b holds 1 back-row seat and is declined.
    const paid = await placeOrder(db(), { eventId: show.eventId, fanId: a!, request: { kind: "seats", ordinals: [0, 1] } });
    await startCheckout(db(), provider, { orderId: paid.orderId, fanId: a! });
    const pa = (await db().query.payments.findFirst({ where: eq(payments.orderId, paid.orderId) }))!;
    await psp.approve(pa.checkoutSessionId);
    await syncOrderPayment(db(), paid.orderId, { actor: "test", reason: "return" });
    const declined = await placeOrder(db(), { eventId: show.eventId, fanId: b!, request: { kind: "seats", ordinals: [30] } });
    await startCheckout(db(), provider, { orderId: declined.orderId, fanId: b! });
    const pb = (await db().query.payments.findFirst({ where: eq(payments.orderId, declined.orderId) }))!;
    await psp.decline(pb.checkoutSessionId);
    await syncOrderPayment(db(), declined.orderId, { actor: "test", reason: "return" });
    // Hold path: 99 holds taking 1..99 ms and one error taking 100 ms.
    const now = Date.now();
    for (let ms = 1; ms <= 99; ms++) await recordHoldAttempt(show.eventId, ms, "held", now);
    await recordHoldAttempt(show.eventId, 100, "error", now);

    const s = await liveStats(db(), show.eventId, { now: new Date(now) });
    expect([s.capacity, s.sold, s.held, s.liveHolds]).toEqual([50, 2, 1, 1]);
    expect([s.revenueMinor, s.currency]).toEqual([9_000, "EUR"]);
    expect(s.sales.reduce((n, p) => n + p.seats, 0)).toBe(2);
    expect(s.sales.slice(-2).reduce((n, p) => n + p.seats, 0)).toBe(2); // this minute (or the previous, at a boundary)
    expect(s.sales.reduce((n, p) => n + p.returned, 0)).toBe(0);
    expect([s.holdsStarted, s.holdsExpired, s.holdExpiryRate]).toEqual([2, 0, 0]);
    expect([s.paymentsCaptured, s.paymentsDeclined, s.paymentSuccessRate, s.paymentDeclineRate]).toEqual([1, 1, 0.5, 0.5]);
    expect(s.holdPath).toEqual({ attempts: 100, held: 99, refused: 0, errors: 1, errorRate: 0.01, p50: 50, p99: 99 });
  });

  it("says — (null) for rates with nothing to divide, and counts fans waiting apart from fans who ever joined", async () => {
    const show = await makeStudioShow(db());
    const s = await liveStats(db(), show.eventId);
    expect([s.holdsStarted, s.holdExpiryRate, s.paymentSuccessRate, s.paymentDeclineRate]).toEqual([0, null, null, null]);
    expect([s.queue.queueLength, s.queue.servingCounter, s.waiting]).toEqual([0, 0, 0]);
  });

  it("after a refund, the chart gives the seats back where Sold does", async () => {
    const show = await makeStudioShow(db());
    await rebuildInventory(db(), show.eventId);
    const [fan] = await makeFans(db(), 1);
    const provider = new SandboxProvider();
    const order = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [5, 6, 7] } });
    await startCheckout(db(), provider, { orderId: order.orderId, fanId: fan! });
    const p = (await db().query.payments.findFirst({ where: eq(payments.orderId, order.orderId) }))!;
    await psp.approve(p.checkoutSessionId);
    await syncOrderPayment(db(), order.orderId, { actor: "test", reason: "return" });
    await refundOrder(db(), show.organizerId, order.orderId, "the fan cannot come");
    const s = await liveStats(db(), show.eventId);
    // 3 seats sold, then the same 3 given back: Sold 0, the chart's net 0.
    expect(s.sold).toBe(0);
    expect(s.sales.reduce((n, pt) => n + pt.seats, 0)).toBe(3);
    expect(s.sales.reduce((n, pt) => n + pt.returned, 0)).toBe(3);
    expect(s.sales.reduce((n, pt) => n + pt.seats - pt.returned, 0)).toBe(s.sold);
  });

  it("a partial refund lowers Sold, the chart's net line and the revenue by exactly its tickets; the full refund after it by the rest", async () => {
    const show = await makeStudioShow(db());
    await rebuildInventory(db(), show.eventId);
    const [fan] = await makeFans(db(), 1);
    const provider = new SandboxProvider();
    // Seats 5 (Front 45.00), 25 and 26 (Back 29.00): 103.00.
    const order = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [5, 25, 26] } });
    await startCheckout(db(), provider, { orderId: order.orderId, fanId: fan! });
    const p = (await db().query.payments.findFirst({ where: eq(payments.orderId, order.orderId) }))!;
    await psp.approve(p.checkoutSessionId);
    await syncOrderPayment(db(), order.orderId, { actor: "test", reason: "return" });
    const tix = await db().select().from(tickets).where(eq(tickets.orderId, order.orderId));
    const back = tix.filter((t) => t.seatId !== tix.reduce((m, x) => Math.min(m, x.seatId), Infinity)).map((t) => t.id); // the two Back seats
    await refundOrderTickets(db(), show.organizerId, order.orderId, { ticketIds: back, reason: "blocked view", idempotencyKey: "live-test-1" });
    const net = (s: Awaited<ReturnType<typeof liveStats>>) => s.sales.reduce((n, pt) => n + pt.seats - pt.returned, 0);
    const s = await liveStats(db(), show.eventId);
    expect([s.sold, net(s), s.revenueMinor]).toEqual([1, 1, 4_500]);
    await refundOrder(db(), show.organizerId, order.orderId, "show moved");
    const after = await liveStats(db(), show.eventId);
    // 3 sold, 2 given back by the partial refund, 1 by the full one: never −1.
    expect([after.sold, net(after), after.sales.reduce((n, pt) => n + pt.returned, 0), after.revenueMinor]).toEqual([0, 0, 3, 0]);
  });
});
