/**
 * The simulator's verdict catches a rule broken on purpose: a show with a real sold order
 * and a real unpaid one passes; after each injected violation the invariant checker counts
 * it and the verdict (lib/simulator/report.ts `violations` + `passed`, what `npm run onsale`
 * exits on) fails. Real Postgres and Redis.
 */
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { orders } from "@/db/schema";
import { closeDb, db } from "@/lib/db";
import { rebuildInventory } from "@/lib/inventory/rebuild";
import { placeOrder } from "@/lib/orders/place-order";
import { startCheckout } from "@/lib/payments/checkout";
import { checkInvariants } from "@/lib/reconciliation/invariants";
import { closeRedis } from "@/lib/redis";
import { injectViolation, NothingToBreakError } from "@/lib/simulator/inject";
import { passed, violations, type FairnessReport } from "@/lib/simulator/report";
import { makeFans, makeStudioShow } from "@/lib/testing/fixtures";
import { deliverAll, sandbox } from "@/lib/testing/psp";
import * as psp from "@/lib/payments/sandbox/psp";

afterAll(async () => {
  await closeDb();
  await closeRedis();
});

const fair: FairnessReport = { preQueueFans: 10, preQueuePermutation: true, preQueueRho: 0, preQueueRhoBound: 1, laterFans: 0, fifoViolations: 0, laterRho: 0, duplicatePositions: 0 };

async function showWithASaleAndAHold() {
  const show = await makeStudioShow(db(), { onSaleAt: new Date(Date.now() - 86_400_000) });
  await rebuildInventory(db(), show.eventId);
  const [buyer, holder] = await makeFans(db(), 2);
  const sold = await placeOrder(db(), { eventId: show.eventId, fanId: buyer!, request: { kind: "seats", ordinals: [3, 4] } });
  const { url } = await startCheckout(db(), sandbox, { orderId: sold.orderId, fanId: buyer! });
  const checkoutId = /sbx_cs_[0-9a-z]+/.exec(url)![0];
  await psp.approve(checkoutId);
  await deliverAll(checkoutId);
  expect((await db().query.orders.findFirst({ where: eq(orders.id, sold.orderId) }))?.status).toBe("ticketed");
  await placeOrder(db(), { eventId: show.eventId, fanId: holder!, request: { kind: "seats", ordinals: [10] } });
  return show.eventId;
}

describe("a violation injected on purpose fails the simulation", () => {
  // What each broken rule must show as: the app's rows and the PSP's ledger each see a
  // ticket without money; only the PSP's ledger sees money the app never heard of.
  const expected = {
    "ticket-without-payment": { ticketsWithoutPayment: 1, pspTicketsWithoutCapture: 1 },
    "redis-mismatch": { redisMismatches: 1 },
    "psp-capture-without-tickets": { pspCapturedWithoutTickets: 1 },
  } as const;
  it.each(["ticket-without-payment", "redis-mismatch", "psp-capture-without-tickets"] as const)("%s", async (kind) => {
    const eventId = await showWithASaleAndAHold();
    const clean = await checkInvariants(db(), { eventId, graceMs: 0 });
    expect(passed(violations(clean, fair))).toBe(true);

    await injectViolation(db(), eventId, kind);
    await new Promise((r) => setTimeout(r, 5)); // the checker counts what is older than its cutoff
    const broken = await checkInvariants(db(), { eventId, graceMs: 0 });
    const v = violations(broken, fair);
    expect(Object.fromEntries(Object.entries(v).filter(([, n]) => n > 0))).toEqual(expected[kind]);
    expect(passed(v)).toBe(false);
  });

  it("says so when there is nothing to break", async () => {
    const show = await makeStudioShow(db());
    await expect(injectViolation(db(), show.eventId, "redis-mismatch")).rejects.toBeInstanceOf(NothingToBreakError);
  });
});
