/**
 * The PSP's request budget under real concurrency: with a budget of 5 checkouts a second,
 * 12 fans paying at once get 5 checkout pages and 7 clear 429 `psp_busy` refusals that keep
 * their holds and write no payment row; the next second the refused fans get through.
 */
process.env.PSP_CHECKOUTS_PER_SECOND = "5";

import { inArray } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { orders, payments } from "@/db/schema";
import { closeDb, db } from "@/lib/db";
import { rebuildInventory } from "@/lib/inventory/rebuild";
import { placeOrder } from "@/lib/orders/place-order";
import { startCheckout } from "@/lib/payments/checkout";
import { checkoutsPerSecond, PspBusyError, STRIPE_DEFAULT_CHECKOUTS_PER_SECOND } from "@/lib/payments/psp-budget";
import { closeRedis } from "@/lib/redis";
import { makeFans, makeStudioShow } from "@/lib/testing/fixtures";
import { sandbox } from "@/lib/testing/psp";

afterAll(async () => {
  await closeDb();
  await closeRedis();
});

/** Waits until early in a fresh second, so one burst falls into one budget window. */
async function startOfSecond() {
  await new Promise((r) => setTimeout(r, 1_000 - (Date.now() % 1_000) + 20));
}

describe("the PSP's checkout budget", () => {
  it("12 fans paying at once with a budget of 5 a second: 5 pages, 7 psp_busy with their holds kept, the rest next second", async () => {
    expect(checkoutsPerSecond("sandbox")).toBe(5);
    const show = await makeStudioShow(db());
    await rebuildInventory(db(), show.eventId);
    const fans = await makeFans(db(), 12);
    const placed = await Promise.all(fans.map((fanId, i) => placeOrder(db(), { eventId: show.eventId, fanId, request: { kind: "seats", ordinals: [i] } })));
    await startOfSecond();
    const first = await Promise.allSettled(placed.map((o, i) => startCheckout(db(), sandbox, { orderId: o.orderId, fanId: fans[i]! })));
    const paged = first.filter((r) => r.status === "fulfilled").length;
    const busy = first.filter((r) => r.status === "rejected" && r.reason instanceof PspBusyError);
    expect(paged).toBe(5);
    expect(busy).toHaveLength(7);
    expect((busy[0] as PromiseRejectedResult).reason).toMatchObject({ kind: "rate_limited", code: "psp_busy", retryAfter: 1 });
    const ids = placed.map((o) => o.orderId);
    expect(await db().select({ id: payments.id }).from(payments).where(inArray(payments.orderId, ids))).toHaveLength(5);
    const held = await db().select({ status: orders.status }).from(orders).where(inArray(orders.id, ids));
    expect(held.every((o) => o.status === "pending_payment")).toBe(true);
    // The next second, the refused fans retry: 5 more get through.
    const refusedIdx = first.map((r, i) => (r.status === "rejected" ? i : -1)).filter((i) => i >= 0);
    await startOfSecond();
    const second = await Promise.allSettled(refusedIdx.map((i) => startCheckout(db(), sandbox, { orderId: placed[i]!.orderId, fanId: fans[i]! })));
    expect(second.filter((r) => r.status === "fulfilled")).toHaveLength(5);
    // 5 + 5 checkouts opened in all, one payment row each; which 5 of the 7 got through the second time is chance.
    expect(await db().select({ id: payments.id }).from(payments).where(inArray(payments.orderId, ids))).toHaveLength(10);
  });

  it("defaults: 50 a second with Stripe (half its 100-operation live limit), none with the sandbox", async () => {
    expect(STRIPE_DEFAULT_CHECKOUTS_PER_SECOND).toBe(50);
    const { parseEnv } = await import("@/lib/env");
    expect(parseEnv({}).PSP_CHECKOUTS_PER_SECOND).toBeUndefined();
    expect(() => parseEnv({ PSP_CHECKOUTS_PER_SECOND: "1.5" })).toThrow(/whole number/);
  });
});
