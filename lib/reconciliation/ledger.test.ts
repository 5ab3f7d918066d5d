/**
 * The ledger pass (lib/reconciliation/ledger.ts) case by case, against the real Postgres,
 * Redis and the sandbox PSP's own records: each kind of mismatch between the PSP's ledger
 * and our payments, its repair, the discrepancy shown to the organizer, and the cursor.
 * Every pass here is scoped to the test's own show: test files share one database.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { discrepancies, lineItems, orders, payments, tickets } from "@/db/schema";
import { closeDb, db } from "@/lib/db";
import { readHold } from "@/lib/inventory/hold";
import { holdKey, inventoryKeys } from "@/lib/inventory/keys";
import { rebuildInventory } from "@/lib/inventory/rebuild";
import { transitionPayment } from "@/lib/orders/state-machine";
import { placeOrder } from "@/lib/orders/place-order";
import { startCheckout } from "@/lib/payments/checkout";
import type { LedgerEntry, LedgerWindow, PaymentProvider } from "@/lib/payments/provider";
import * as psp from "@/lib/payments/sandbox/psp";
import { checkInvariants, totalViolations } from "@/lib/reconciliation/invariants";
import { sweep } from "@/lib/reconciliation/sweep";
import { advanceLedgerCursor, LEDGER_OVERLAP_MS, ledgerWindow, reconcileLedger } from "@/lib/reconciliation/ledger";
import { closeRedis, redis } from "@/lib/redis";
import { makeFans, makeStudioShow } from "@/lib/testing/fixtures";
import { deliverAll, sandbox } from "@/lib/testing/psp";

afterAll(async () => {
  await closeDb();
  await closeRedis();
});

let show: Awaited<ReturnType<typeof makeStudioShow>>;
beforeEach(async () => {
  show = await makeStudioShow(db(), { onSaleAt: new Date(Date.now() - 86_400_000) });
  await rebuildInventory(db(), show.eventId);
});

const pass = async () => reconcileLedger(db(), sandbox, await ledgerWindow(db(), "sandbox", { eventId: show.eventId }), { eventId: show.eventId });
const statusOf = async (orderId: string) => (await db().query.orders.findFirst({ where: eq(orders.id, orderId) }))!.status;
const kindsOf = async (orderId: string) => (await db().select({ kind: discrepancies.kind, status: discrepancies.status }).from(discrepancies).where(eq(discrepancies.orderId, orderId))).map((d) => `${d.kind}:${d.status}`).sort();
const pspClean = async () => {
  const r = await checkInvariants(db(), { eventId: show.eventId, graceMs: 0 });
  return [r.pspCapturedWithoutTickets, r.pspDoubleCharged, r.pspTicketsWithoutCapture, r.paidWithoutTickets, r.refundedWithTickets, r.ticketsWithoutPayment];
};

/** A ticketed order paid through the sandbox PSP (webhook delivered). */
async function ticketedOrder(ordinals: number[]) {
  const [fan] = await makeFans(db(), 1);
  const order = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals } });
  const { url } = await startCheckout(db(), sandbox, { orderId: order.orderId, fanId: fan! });
  const checkoutId = /sbx_cs_[0-9a-z]+/.exec(url)![0];
  await psp.approve(checkoutId);
  await deliverAll(checkoutId);
  expect(await statusOf(order.orderId)).toBe("ticketed");
  const [payment] = await db().select().from(payments).where(eq(payments.orderId, order.orderId));
  return { fan: fan!, order, checkoutId, payment: payment! };
}

describe("PSP → app", () => {
  it("a capture its webhook made the app ask about is confirmed already; the ledger agrees and does nothing", async () => {
    const { payment } = await ticketedOrder([1]);
    expect(payment.ledgerConfirmedAt).not.toBeNull(); // the webhook asked the PSP: its own record
    const first = await pass();
    expect(first.report).toMatchObject({ entries: 1, capturesConfirmed: 0, capturesApplied: 0, capturesVoided: 0, errors: [] });
    // A later pass re-reads the entry (the window overlaps) and applies nothing: an agreeing
    // entry costs no transaction (each used to, and a busy on-sale's window holds thousands).
    let transactions = 0;
    const counting = new Proxy(db(), { get: (target, key) => (key === "transaction" && transactions++, Reflect.get(target, key)) });
    const again = await reconcileLedger(counting, sandbox, await ledgerWindow(db(), "sandbox", { eventId: show.eventId }), { eventId: show.eventId });
    expect(again.report).toMatchObject({ entries: 1, capturesConfirmed: 0, capturesApplied: 0, errors: [] });
    expect(transactions).toBe(0);
  });

  it("an agreeing capture whose seats Redis still shows as held (the capture's confirm failed) is confirmed as sold", async () => {
    const { order } = await ticketedOrder([6]);
    await pass(); // confirmed by the ledger: from now on its entry agrees
    // As if the capture's Redis confirm had failed: the hold is back to `held`, seat 6 owned by the hold.
    await redis().hset(holdKey(show.eventId, order.holdId), { status: "held" });
    await redis().hset(inventoryKeys(show.eventId).owner, { "6": `h:${order.holdId}` });
    expect((await readHold(show.eventId, order.holdId))!.status).toBe("held");
    expect((await pass()).report).toMatchObject({ entries: 1, capturesConfirmed: 0, errors: [] });
    expect((await readHold(show.eventId, order.holdId))!.status).toBe("sold");
    expect(await redis().hget(inventoryKeys(show.eventId).owner, "6")).toBe(`s:${order.holdId}`);
  });

  it("many agreeing captures whose confirms failed are all confirmed as sold in one pass (the confirms go out together)", async () => {
    const paid = [];
    for (const seat of [10, 11, 12, 13, 14]) paid.push(await ticketedOrder([seat]));
    await pass();
    for (const [i, { order }] of paid.entries()) {
      await redis().hset(holdKey(show.eventId, order.holdId), { status: "held" });
      await redis().hset(inventoryKeys(show.eventId).owner, { [String(10 + i)]: `h:${order.holdId}` });
    }
    expect((await pass()).report).toMatchObject({ entries: 5, capturesConfirmed: 0, errors: [] });
    for (const [i, { order }] of paid.entries()) {
      expect((await readHold(show.eventId, order.holdId))!.status).toBe("sold");
      expect(await redis().hget(inventoryKeys(show.eventId).owner, String(10 + i))).toBe(`s:${order.holdId}`);
    }
    expect(await pspClean()).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it("a refund made in the PSP's dashboard ends the order: tickets void, seats back on sale", async () => {
    const { order, payment } = await ticketedOrder([2, 3]);
    await psp.refund(payment.providerPaymentId!, "dashboard-refund"); // the app is never told (the app ignores payment.refunded webhooks)
    expect(await pspClean()).toEqual([0, 0, 1, 0, 0, 0]); // live tickets, no money at the PSP
    expect((await pass()).report).toMatchObject({ refundsRecorded: 1 });
    expect(await statusOf(order.orderId)).toBe("refunded");
    expect((await db().select().from(tickets).where(eq(tickets.orderId, order.orderId))).map((t) => t.status)).toEqual(["void", "void"]);
    expect((await db().select().from(lineItems).where(eq(lineItems.orderId, order.orderId))).map((l) => l.status)).toEqual(["refunded", "refunded"]);
    expect(await redis().getbit(inventoryKeys(show.eventId).free, 2)).toBe(1);
    expect(await kindsOf(order.orderId)).toEqual(["refunded_at_psp:repaired"]);
    expect(await pspClean()).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it("a refund we recorded but the PSP never made is sent again", async () => {
    const { order, checkoutId, payment } = await ticketedOrder([4]);
    // Our books say refunded (e.g. restored from a backup), the PSP still holds the money.
    await transitionPayment(db(), payment, "captured", "refunded", { actor: "test", reason: "bookkeeping only" });
    expect((await pass()).report).toMatchObject({ refundsResent: 1 });
    expect((await psp.retrieve(checkoutId)).status).toBe("refunded");
    expect(await kindsOf(order.orderId)).toEqual(["refund_missing_at_psp:repaired"]);
    expect((await pass()).report).toMatchObject({ refundsResent: 0 });
  });

  it("a checkout we have no payment for is adopted when it names our order with the same amount, and pays it", async () => {
    const [fan] = await makeFans(db(), 1);
    const order = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [5] } });
    // The PSP made the checkout, then our process died before recording it; the fan paid anyway.
    const c = await psp.createCheckout({ orderId: order.orderId, amountMinor: order.totalMinor, currency: "EUR", description: "orphan", expiresAt: order.holdExpiresAt, returnUrl: "http://localhost/r", idempotencyKey: `${order.orderId}:orphan`, faults: { drop: true } });
    await psp.approve(c.id);
    expect(await pspClean()).toEqual([1, 0, 0, 0, 0, 0]);
    expect((await pass()).report).toMatchObject({ capturesApplied: 1, unknown: 0 });
    expect(await statusOf(order.orderId)).toBe("ticketed");
    expect(await kindsOf(order.orderId)).toEqual(["capture_found_in_ledger:repaired"]);
    expect(await pspClean()).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it("a capture for a checkout that matches no order of ours is left for a person", async () => {
    const { order } = await ticketedOrder([6]);
    // Same order id, wrong amount: not ours to apply.
    const c = await psp.createCheckout({ orderId: order.orderId, amountMinor: 1, currency: "EUR", description: "stranger", expiresAt: new Date(Date.now() + 60_000), returnUrl: "http://localhost/r", idempotencyKey: `${order.orderId}:stranger` });
    await psp.approve(c.id);
    expect((await pass()).report).toMatchObject({ unknown: 1, capturesApplied: 0 });
    const [d] = await db().select().from(discrepancies).where(eq(discrepancies.kind, "unknown_checkout")).orderBy(discrepancies.detectedAt);
    expect(d).toBeTruthy();
    expect(await statusOf(order.orderId)).toBe("ticketed");
  });
});

describe("app → PSP", () => {
  it("a capture held without the PSP's confirmation that the PSP does not have is voided once it is older than the settle time (the safety net)", async () => {
    const { order, checkoutId, payment } = await ticketedOrder([7]);
    await db().update(payments).set({ ledgerConfirmedAt: null }).where(eq(payments.id, payment.id));
    // Make it look as if the PSP never captured: its record goes back to open (as a forged webhook would leave it).
    await db().execute(`update sandbox_psp.checkouts set status = 'open', payment_id = null, captured_at = null where id = '${checkoutId}'`);
    expect((await pass()).report).toMatchObject({ capturesVoided: 0 }); // too young: it may just have been captured
    await db().update(payments).set({ updatedAt: new Date(Date.now() - 60_000) }).where(eq(payments.id, payment.id));
    expect((await pass()).report).toMatchObject({ capturesVoided: 1 });
    expect(await statusOf(order.orderId)).toBe("cancelled");
    expect((await db().select().from(payments).where(eq(payments.id, payment.id)))[0]!.status).toBe("cancelled");
    expect(await kindsOf(order.orderId)).toEqual(["capture_missing_at_psp:needs_attention"]);
    expect(await pspClean()).toEqual([0, 0, 0, 0, 0, 0]);
  });
});

describe("money that cannot become tickets", () => {
  it("a short capture on an order whose hold expired (its webhook lost) is refunded in full within one pass, and nothing is left", async () => {
    const [fan] = await makeFans(db(), 1);
    const order = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [9] } });
    const { url } = await startCheckout(db(), sandbox, { orderId: order.orderId, fanId: fan! });
    const checkoutId = /sbx_cs_[0-9a-z]+/.exec(url)![0];
    // The hold ends unpaid (the checkout cancelled at the PSP), then the PSP captures 150 less than the order's total anyway, and loses the webhook.
    await sweep(db(), { eventId: show.eventId, now: new Date(Date.now() + 20 * 60_000) });
    expect(await statusOf(order.orderId)).toBe("expired");
    await psp.setCheckoutFaults(checkoutId, { shortCaptureMinor: 150, captureAfterExpiry: true, drop: true });
    expect((await psp.approve(checkoutId)).checkout).toMatchObject({ status: "captured", amountMinor: order.totalMinor - 150 });
    expect((await checkInvariants(db(), { eventId: show.eventId, graceMs: 0 })).pspCapturedWithoutTickets).toBe(1);

    expect((await pass()).report).toMatchObject({ entries: 1, capturesApplied: 1, errors: [] });
    expect(await psp.retrieve(checkoutId)).toMatchObject({ status: "refunded", refundedMinor: order.totalMinor - 150 });
    const [p] = await db().select().from(payments).where(eq(payments.orderId, order.orderId));
    expect(p).toMatchObject({ status: "refunded", amountMinor: order.totalMinor - 150 });
    expect(await statusOf(order.orderId)).toBe("expired");
    expect(await kindsOf(order.orderId)).toEqual(["amount_mismatch:repaired", "capture_found_in_ledger:repaired"]);
    const after = await checkInvariants(db(), { eventId: show.eventId, graceMs: 0 });
    expect(totalViolations(after)).toBe(0);
    // A second pass finds nothing new.
    expect((await pass()).report).toMatchObject({ capturesApplied: 0, capturesVoided: 0, refundsRecorded: 0, refundsResent: 0, errors: [] });
  });
});

describe("window and cursor", () => {
  it("the global window starts at the cursor minus the overlap, and the cursor never moves back", async () => {
    const provider = `test-${Date.now()}`;
    const first = await ledgerWindow(db(), provider);
    expect(first.to.getTime() - first.from.getTime()).toBeGreaterThanOrEqual(24 * 3_600_000);
    const through = new Date(Date.now() - 5 * 60_000);
    await advanceLedgerCursor(db(), provider, through);
    await advanceLedgerCursor(db(), provider, new Date(through.getTime() - 3_600_000));
    const next = await ledgerWindow(db(), provider);
    expect(next.from.getTime()).toBe(through.getTime() - LEDGER_OVERLAP_MS);
  });

  it("a capture that shows in the PSP's records only after a pass covered its time is found by the next pass, inside the overlap", async () => {
    // The global pass's window and cursor (reconcileLedgers), on a cursor of this test's own;
    // findings scoped to this show (other test files' payments are in the same window).
    const cursor = `test-late-${Date.now()}`;
    const globalPass = async () => {
      const window = await ledgerWindow(db(), cursor);
      const { report } = await reconcileLedger(db(), sandbox, window, { eventId: show.eventId });
      if (report.errors.length === 0) await advanceLedgerCursor(db(), cursor, window.to);
      return { window, report };
    };
    const [fan] = await makeFans(db(), 1);
    const order = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [8] } });
    const { url } = await startCheckout(db(), sandbox, { orderId: order.orderId, fanId: fan! });
    const checkoutId = /sbx_cs_[0-9a-z]+/.exec(url)![0];

    const first = await globalPass();
    expect(first.report).toMatchObject({ entries: 0, capturesApplied: 0, errors: [] });
    // The PSP's record of the capture appears only now, dated 5 minutes before the time the
    // first pass reconciled through (e.g. its list lagged); its webhook never comes.
    const capturedAt = new Date(first.window.to.getTime() - 5 * 60_000);
    await psp.approve(checkoutId, { now: capturedAt });
    const second = await globalPass();
    expect(second.window.from.getTime()).toBe(first.window.to.getTime() - 10 * 60_000);
    expect(second.report).toMatchObject({ entries: 1, capturesApplied: 1, errors: [] });
    expect(await statusOf(order.orderId)).toBe("ticketed");
    expect(await kindsOf(order.orderId)).toEqual(["capture_found_in_ledger:repaired"]);
    // Read again by the next pass (still inside its overlap), it changes nothing.
    expect((await globalPass()).report).toMatchObject({ entries: 1, capturesApplied: 0, capturesConfirmed: 0, errors: [] });
  });

  it("a pass over a provider that lists nothing changes nothing, and a listing failure throws before any change", async () => {
    const windows: LedgerWindow[] = [];
    const quiet = { name: "sandbox", listLedger: async (w: LedgerWindow): Promise<LedgerEntry[]> => (windows.push(w), []) } as unknown as PaymentProvider;
    const { report } = await reconcileLedger(db(), quiet, { from: new Date(0), to: new Date() }, { eventId: show.eventId });
    expect(report).toMatchObject({ entries: 0, capturesApplied: 0, capturesVoided: 0, errors: [] });
    const broken = { name: "sandbox", listLedger: async () => Promise.reject(new Error("PSP down")) } as unknown as PaymentProvider;
    await expect(reconcileLedger(db(), broken, { from: new Date(0), to: new Date() }, { eventId: show.eventId })).rejects.toThrow(/PSP down/);
  });
});
