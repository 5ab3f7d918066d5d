/**
 * The sweep (lib/reconciliation/sweep.ts) reads what each of its steps would find in one
 * statement, and only a step after one that did work looks again: an idle sweep — what the
 * local worker runs every 2 s most of the time — is one round trip, and a busy one still does
 * every repair it did before in the same sweep. Against the real Postgres, Redis and the sandbox PSP.
 */
import { eq } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { orders, payments, tickets } from "@/db/schema";
import { closeDb, db, type Db } from "@/lib/db";
import { env } from "@/lib/env";
import { newId } from "@/lib/ids";
import { rebuildInventory } from "@/lib/inventory/rebuild";
import { placeOrder } from "@/lib/orders/place-order";
import { startCheckout } from "@/lib/payments/checkout";
import * as psp from "@/lib/payments/sandbox/psp";
import { sweep } from "@/lib/reconciliation/sweep";
import { closeRedis } from "@/lib/redis";
import { makeFans, makeStudioShow } from "@/lib/testing/fixtures";
import { deliverAll, sandbox } from "@/lib/testing/psp";

afterAll(async () => {
  await closeDb();
  await closeRedis();
});

const MIN = 60_000;
let show: Awaited<ReturnType<typeof makeStudioShow>>;
beforeEach(async () => {
  show = await makeStudioShow(db(), { onSaleAt: new Date(Date.now() - 86_400_000) });
  await rebuildInventory(db(), show.eventId);
});

/** `db()` counting every call that sends a statement (execute, select, insert, update, delete, query, transaction). */
function counting(): { db: Db; calls: string[] } {
  const calls: string[] = [];
  const sends = new Set(["execute", "select", "insert", "update", "delete", "query", "transaction"]);
  const proxy = new Proxy(db(), {
    get(target, key, receiver) {
      if (typeof key === "string" && sends.has(key)) calls.push(key);
      return Reflect.get(target, key, receiver);
    },
  });
  return { db: proxy, calls };
}

/** A fan holds `ordinals`, the hold started `ageMs` ago (15-minute holds); younger than that, a checkout is open. */
async function heldOrder(ordinals: number[], ageMs = 0) {
  const [fan] = await makeFans(db(), 1);
  const order = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals }, now: new Date(Date.now() - ageMs) });
  if (ageMs < 15 * MIN) await startCheckout(db(), sandbox, { orderId: order.orderId, fanId: fan!, now: new Date(Date.now() - ageMs) });
  const [payment] = await db().select().from(payments).where(eq(payments.orderId, order.orderId));
  return { order, checkoutId: payment?.checkoutSessionId ?? "" };
}

/**
 * An order paid twice at the PSP (a second tab), the second capture recorded by us but never
 * refunded (as after a crash between recording it and the capture path's own I3 refund).
 */
async function doublyCaptured(ordinal: number) {
  const { order, checkoutId } = await heldOrder([ordinal]);
  const second = await sandbox.createCheckoutSession({
    orderId: order.orderId,
    amountMinor: order.totalMinor,
    currency: order.currency,
    description: "second tab",
    expiresAt: order.holdExpiresAt,
    returnUrl: "http://localhost/return",
    idempotencyKey: `${order.orderId}:second-tab`,
  });
  const secondPaymentId = newId("pay");
  await db().insert(payments).values({ id: secondPaymentId, orderId: order.orderId, provider: "sandbox", checkoutSessionId: second.id, amountMinor: order.totalMinor, currency: order.currency });
  await psp.approve(checkoutId);
  await deliverAll(checkoutId);
  await psp.approve(second.id); // its webhook is never delivered
  const { paymentId } = await psp.retrieve(second.id);
  await db().update(payments).set({ status: "captured", providerPaymentId: paymentId, capturedAt: new Date() }).where(eq(payments.id, secondPaymentId));
  return { order, secondPaymentId, secondCheckoutId: second.id };
}

const statusOf = async (orderId: string) => (await db().select({ status: orders.status }).from(orders).where(eq(orders.id, orderId)))[0]!.status;

describe("the sweep", () => {
  it("with nothing due, reads in one statement and does nothing", async () => {
    await heldOrder([2]); // a fresh hold with an open checkout: nothing due for a while
    const { db: counted, calls } = counting();
    const r = await sweep(counted, { eventId: show.eventId });
    expect(r).toEqual({ expired: 0, paidAtExpiry: 0, paymentsQueried: 0, ticketed: 0, latePayments: 0, extraCapturesRefunded: 0, mismatchesRefunded: 0, errors: [] });
    expect(calls).toEqual(["execute"]);
  });

  it("does the repairs its one read found (here a second capture, step 5) in the same sweep", async () => {
    const { order, secondPaymentId, secondCheckoutId } = await doublyCaptured(44);
    const r = await sweep(db(), { eventId: show.eventId });
    expect(r).toMatchObject({ expired: 0, ticketed: 0, latePayments: 0, extraCapturesRefunded: 1, errors: [] });
    expect((await db().select().from(payments).where(eq(payments.orderId, order.orderId))).map((p) => `${p.id === secondPaymentId ? "second" : "first"}:${p.status}`).sort()).toEqual([
      "first:captured",
      "second:refunded",
    ]);
    expect((await psp.retrieve(secondCheckoutId)).status).toBe("refunded");
    expect(await statusOf(order.orderId)).toBe("ticketed");
    expect(await sweep(db(), { eventId: show.eventId })).toMatchObject({ extraCapturesRefunded: 0, errors: [] });
  });

  it("after a step that did work, the later steps look again, and every kind due is repaired in one sweep", async () => {
    const expiring = await heldOrder([3], 16 * MIN); // step 1: a hold 16 minutes old, never paid
    const { order: twice } = await doublyCaptured(45); // step 5
    // Step 3: a paid order whose ticket issuance failed (a lock blocks ticket inserts past issuance's 2 s lock timeout).
    const { order: paid, checkoutId } = await heldOrder([20, 21]);
    const blocker = postgres(env().DATABASE_URL, { max: 1, onnotice: () => {} });
    const reserved = await blocker.reserve();
    await reserved`begin`;
    await reserved`lock table tickets in share row exclusive mode`;
    try {
      await psp.approve(checkoutId);
      await deliverAll(checkoutId);
    } finally {
      await reserved`rollback`;
      reserved.release();
      await blocker.end();
    }
    expect(await statusOf(paid.orderId)).toBe("paid");

    const { db: counted, calls } = counting();
    const r = await sweep(counted, { eventId: show.eventId });
    expect(r).toMatchObject({ expired: 1, paidAtExpiry: 0, ticketed: 1, extraCapturesRefunded: 1, errors: [] });
    expect(await statusOf(expiring.order.orderId)).toBe("expired");
    expect(await statusOf(paid.orderId)).toBe("ticketed");
    expect(await db().select().from(tickets).where(eq(tickets.orderId, paid.orderId))).toHaveLength(2);
    expect((await db().select().from(payments).where(eq(payments.orderId, twice.orderId))).map((p) => p.status).sort()).toEqual(["captured", "refunded"]);
    // The one read, then (step 1 had work) step 2's claim and steps 3–5's own look-ups, each first.
    expect(calls.filter((c) => c === "execute").length).toBeGreaterThanOrEqual(5);
  }, 30_000);
});
