/**
 * Money and seats when payments come late, twice, forged or never — the seven cases found
 * by a tester playing an attacker and a flaky PSP (docs/adr/0010, 0011, 0012), each against
 * the real Postgres, Redis and sandbox PSP, each ending with the invariant checker at zero
 * on the app's rows *and* on the PSP's own records.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeEach, describe, expect, it, vi } from "vitest";
import { discrepancies, lineItems, orders, payments, priceLevels, tickets } from "@/db/schema";
import { closeDb, db } from "@/lib/db";
import { FanLimitError } from "@/lib/inventory/errors";
import { holdKey, inventoryKeys } from "@/lib/inventory/keys";
import { rebuildInventory } from "@/lib/inventory/rebuild";
import { recordDiscrepancy } from "@/lib/audit/discrepancies";
import { askPsp } from "@/lib/payments/apply";
import { closePendingOrder } from "@/lib/payments/expiry";
import { holdForFan } from "@/lib/orders/hold-for-fan";
import { PendingOrderError, placeOrder } from "@/lib/orders/place-order";
import { startCheckout } from "@/lib/payments/checkout";
import { PaymentProviderError, WebhookSignatureError } from "@/lib/payments/provider";
import type { SandboxFaultOverrides } from "@/lib/payments/sandbox/faults";
import * as psp from "@/lib/payments/sandbox/psp";
import { refundPayment } from "@/lib/payments/refund";
import { syncOrderPayment } from "@/lib/payments/sync";
import { handleWebhook } from "@/lib/payments/webhooks";
import { checkInvariants, totalViolations, type InvariantReport } from "@/lib/reconciliation/invariants";
import { reconcile } from "@/lib/reconciliation/reconcile";
import { sweep } from "@/lib/reconciliation/sweep";
import { closeRedis, redis } from "@/lib/redis";
import { makeFans, makeStudioShow } from "@/lib/testing/fixtures";
import { CLEAN_INVARIANTS } from "@/lib/testing/invariants";
import { deliverAll, sandbox } from "@/lib/testing/psp";
import { statusWithToken } from "@/lib/waiting-room/admission";
import { extendSlot, freeSlot, joinQueue } from "@/lib/waiting-room/queue";

afterAll(async () => {
  await closeDb();
  await closeRedis();
});

const MIN = 60_000;
let show: Awaited<ReturnType<typeof makeStudioShow>>;
beforeEach(async () => {
  // 1-minute holds, at most 4 seats per fan (as in the reproductions).
  show = await makeStudioShow(db(), { onSaleAt: new Date(Date.now() - 86_400_000), holdMinutes: 1, perFanLimit: 4 });
  await rebuildInventory(db(), show.eventId);
});

const later = (ms = 2 * MIN) => new Date(Date.now() + ms);
const statusOf = async (orderId: string) => (await db().query.orders.findFirst({ where: eq(orders.id, orderId) }))!.status;
const paymentOf = async (orderId: string) => (await db().select().from(payments).where(eq(payments.orderId, orderId)))[0]!;
const validTicketsOf = async (fanId: string) =>
  (await db().select({ id: tickets.id }).from(tickets).innerJoin(orders, eq(tickets.orderId, orders.id)).where(and(eq(orders.fanId, fanId), eq(orders.eventId, show.eventId), eq(tickets.status, "valid")))).length;
const findings = async (orderId: string) =>
  (await db().select({ kind: discrepancies.kind, status: discrepancies.status, action: discrepancies.action }).from(discrepancies).where(eq(discrepancies.orderId, orderId))).sort((a, b) => a.kind.localeCompare(b.kind));

const CLEAN: InvariantReport = { ...CLEAN_INVARIANTS };
async function expectClean() {
  expect(await checkInvariants(db(), { eventId: show.eventId, graceMs: 0 })).toEqual(CLEAN);
}

/** A fan holds `ordinals` and opens the checkout (with these fault knobs at the PSP). */
async function heldWithCheckout(ordinals: number[], faults: SandboxFaultOverrides = {}, fanId?: string) {
  const fan = fanId ?? (await makeFans(db(), 1))[0]!;
  const order = await placeOrder(db(), { eventId: show.eventId, fanId: fan, request: { kind: "seats", ordinals } });
  const { url } = await startCheckout(db(), sandbox, { orderId: order.orderId, fanId: fan });
  const checkoutId = /sbx_cs_[0-9a-z]+/.exec(url)![0];
  if (Object.keys(faults).length) await psp.setCheckoutFaults(checkoutId, faults);
  return { fan, order, checkoutId };
}

/** The hold runs out and the sweep closes the order (cancelling the checkout at the PSP first). */
async function expire(orderId: string) {
  await sweep(db(), { eventId: show.eventId, now: later() });
  expect(await statusOf(orderId)).toBe("expired");
}

describe("1. money kept, never found: a late capture whose webhook is lost", () => {
  it("the checker reports it from the PSP's ledger, and one reconciliation pass re-claims the seats", async () => {
    const { order, checkoutId } = await heldWithCheckout([5, 6], { captureAfterExpiry: true, drop: true });
    await expire(order.orderId);
    expect((await psp.approve(checkoutId)).outcome).toBe("captured");
    expect((await deliverAll(checkoutId)).attempts.filter((a) => a.type === "payment.captured")).toEqual([]); // dropped
    // The app's rows look fine: only the PSP's records show the money.
    const before = await checkInvariants(db(), { eventId: show.eventId, graceMs: 0 });
    expect(before).toEqual({ ...CLEAN, pspCapturedWithoutTickets: 1 });
    expect((await paymentOf(order.orderId)).status).toBe("cancelled");

    const r = await reconcile(db(), { eventId: show.eventId, redisRecheckMs: 50, checkBefore: true, graceMs: 0 });
    expect(r.before).toEqual({ ...CLEAN, pspCapturedWithoutTickets: 1 });
    expect(r.ledger).toEqual([expect.objectContaining({ provider: "sandbox", capturesApplied: 1, capturesVoided: 0, errors: [] })]);
    expect(r.invariants).toEqual(CLEAN);
    expect(await statusOf(order.orderId)).toBe("ticketed");
    expect(await db().select().from(tickets).where(eq(tickets.orderId, order.orderId))).toHaveLength(2);
    expect(await findings(order.orderId)).toEqual([
      { kind: "capture_found_in_ledger", status: "repaired", action: expect.stringMatching(/applied \(late payment\)/) },
      { kind: "late_payment", status: "repaired", action: "seats were still free: re-claimed and sold" },
    ]);
    // A second pass finds nothing new.
    const again = await reconcile(db(), { eventId: show.eventId, redisRecheckMs: 50 });
    expect(again.ledger[0]).toMatchObject({ capturesApplied: 0, capturesVoided: 0, refundsRecorded: 0 });
    await expectClean();
  });

  it("with its seats sold to someone else meanwhile, the same pass refunds the money", async () => {
    const { order, checkoutId } = await heldWithCheckout([7], { captureAfterExpiry: true, drop: true });
    await expire(order.orderId);
    const [other] = await makeFans(db(), 1);
    await placeOrder(db(), { eventId: show.eventId, fanId: other!, request: { kind: "seats", ordinals: [7] } });
    await psp.approve(checkoutId);
    const r = await reconcile(db(), { eventId: show.eventId, redisRecheckMs: 50, graceMs: 0 });
    expect(r.ledger[0]).toMatchObject({ capturesApplied: 1 });
    expect(await statusOf(order.orderId)).toBe("expired");
    expect((await psp.retrieve(checkoutId)).status).toBe("refunded");
    expect((await paymentOf(order.orderId)).status).toBe("refunded");
    expect((await findings(order.orderId)).find((f) => f.kind === "late_payment")).toEqual({ kind: "late_payment", status: "repaired", action: "seats were taken: payment refunded in full" });
    await expectClean();
  });
});

describe("2. tickets without money: a forged capture webhook", () => {
  const forgedBody = (checkoutId: string, orderId: string, amountMinor: number) =>
    JSON.stringify({
      id: `sbx_evt_forged_${checkoutId}`,
      object: "event",
      type: "payment.captured",
      created: Math.floor(Date.now() / 1000),
      data: { checkout: { id: checkoutId, object: "checkout", order_id: orderId, status: "captured", amount_minor: amountMinor, currency: "EUR", payment_id: "sbx_pay_madeup0000000000000", captured_at: new Date().toISOString() } },
    });

  it("signed with the sandbox's old built-in secret, it does not verify and issues nothing", async () => {
    const { order, checkoutId } = await heldWithCheckout([10]);
    const body = forgedBody(checkoutId, order.orderId, order.totalMinor);
    const headers = new Headers({ [psp.SANDBOX_SIGNATURE_HEADER]: psp.signWebhookBody(body, { secret: "sandbox-psp-local-webhook-secret" }) });
    await expect(handleWebhook(db(), sandbox, body, headers)).rejects.toBeInstanceOf(WebhookSignatureError);
    expect(await statusOf(order.orderId)).toBe("pending_payment");
    expect(await db().select().from(tickets).where(eq(tickets.orderId, order.orderId))).toHaveLength(0);
  });

  it("signed with the real secret (leaked), it only makes the app ask the PSP: the checkout is open, so nothing is paid, and the fan can still pay", async () => {
    const { order, checkoutId } = await heldWithCheckout([11, 12]);
    const body = forgedBody(checkoutId, order.orderId, order.totalMinor);
    const headers = new Headers({ [psp.SANDBOX_SIGNATURE_HEADER]: psp.signWebhookBody(body) });
    expect(await handleWebhook(db(), sandbox, body, headers)).toMatchObject({ duplicate: false, outcome: "nothing" });
    // The contradiction is recorded once, on the show, for a person: the secret may have leaked.
    const contradicted = () => db().select().from(discrepancies).where(and(eq(discrepancies.kind, "webhook_contradicted"), eq(discrepancies.orderId, order.orderId)));
    const eventId = `sbx_evt_forged_${checkoutId}`;
    expect(await contradicted()).toEqual([
      expect.objectContaining({
        eventId: show.eventId,
        status: "needs_attention",
        detail: {
          provider: "sandbox",
          eventId,
          type: "payment.captured",
          checkoutId,
          claimed: { status: "captured", paymentId: "sbx_pay_madeup0000000000000", amountMinor: order.totalMinor, currency: "EUR" },
          psp: { status: "open" },
        },
      }),
    ]);
    // A replay adds nothing.
    expect(await handleWebhook(db(), sandbox, body, headers)).toMatchObject({ duplicate: true });
    expect(await contradicted()).toHaveLength(1);
    expect(await statusOf(order.orderId)).toBe("pending_payment");
    expect(await db().select().from(tickets).where(eq(tickets.orderId, order.orderId))).toHaveLength(0);
    expect(await paymentOf(order.orderId)).toMatchObject({ status: "created", providerPaymentId: null });
    expect((await psp.retrieve(checkoutId)).status).toBe("open");
    expect(await checkInvariants(db(), { eventId: show.eventId, graceMs: 0 })).toEqual(CLEAN);
    // The fan pays for real: the PSP's own capture pays the order.
    await psp.approve(checkoutId);
    await deliverAll(checkoutId);
    expect(await statusOf(order.orderId)).toBe("ticketed");
    expect((await paymentOf(order.orderId)).providerPaymentId).toBe((await psp.retrieve(checkoutId)).paymentId);
    // The genuine capture's webhook, confirmed by the PSP, records no contradiction.
    expect((await contradicted()).map((d) => (d.detail as { eventId: string }).eventId)).toEqual([eventId]);
    await expectClean();
  });
});

describe("money that cannot become tickets: a short capture (issue 41)", () => {
  it("the capture path itself refunds the whole captured amount, records why, and leaves the order payable", async () => {
    const { order, checkoutId } = await heldWithCheckout([15], { shortCaptureMinor: 150 });
    expect((await psp.approve(checkoutId)).checkout.amountMinor).toBe(order.totalMinor - 150);
    await deliverAll(checkoutId);
    expect(await statusOf(order.orderId)).toBe("pending_payment");
    expect(await psp.retrieve(checkoutId)).toMatchObject({ status: "refunded", refundedMinor: order.totalMinor - 150 });
    expect(await paymentOf(order.orderId)).toMatchObject({ status: "refunded", amountMinor: order.totalMinor - 150 });
    expect(await findings(order.orderId)).toEqual([{ kind: "amount_mismatch", status: "repaired", action: "order not paid by it; the captured amount was refunded in full" }]);
    await expectClean();
    // The hold runs out unpaid: nothing kept, nothing ticketed.
    await expire(order.orderId);
    await expectClean();
  });

  it("a refund the PSP cannot make at once stays open, never re-claims the seats, and the sweep makes it", async () => {
    const { order, checkoutId } = await heldWithCheckout([16], { shortCaptureMinor: 150, drop: true });
    await psp.approve(checkoutId);
    const refund = vi.spyOn(sandbox.constructor.prototype as typeof sandbox, "refund").mockRejectedValue(new PaymentProviderError("Sandbox PSP unavailable: timeout", true));
    try {
      await expire(order.orderId); // the expiry asks the PSP first: it finds the short capture; its refund fails
    } finally {
      refund.mockRestore();
    }
    expect(await paymentOf(order.orderId)).toMatchObject({ status: "captured", amountMinor: order.totalMinor - 150 });
    expect((await findings(order.orderId)).map((f) => `${f.kind}:${f.status}`)).toEqual(["amount_mismatch:open"]);
    const r = await sweep(db(), { eventId: show.eventId });
    expect(r).toMatchObject({ mismatchesRefunded: 1, latePayments: 0, errors: [] });
    expect(await statusOf(order.orderId)).toBe("expired"); // not re-claimed by the late-payment rule
    expect(await paymentOf(order.orderId)).toMatchObject({ status: "refunded" });
    expect((await psp.retrieve(checkoutId)).status).toBe("refunded");
    expect((await findings(order.orderId)).map((f) => `${f.kind}:${f.status}`)).toEqual(["amount_mismatch:repaired"]);
    await expectClean();
  });
});

describe("3. the sandbox is never the production PSP by accident", () => {
  it("with another provider, the sandbox's pay-page actions and APIs do not exist", async () => {
    const { checkoutId } = await heldWithCheckout([14]);
    const saved = { ...process.env };
    Object.assign(process.env, { PAYMENT_PROVIDER: "stripe", STRIPE_SECRET_KEY: "sk_test_notreal", STRIPE_WEBHOOK_SECRET: "whsec_notreal" });
    vi.resetModules();
    try {
      const { approveCheckout } = await import("@/app/[locale]/sandbox-psp/checkout/[id]/actions");
      const form = new FormData();
      form.set("checkoutId", checkoutId);
      await expect(approveCheckout(form)).rejects.toThrow(/NEXT_HTTP_ERROR_FALLBACK;404/);
      const route = await import("@/app/sandbox-psp/api/checkouts/[id]/[action]/route");
      const res = await route.POST(new Request("http://localhost/x", { method: "POST" }), { params: Promise.resolve({ id: checkoutId, action: "approve" }) });
      expect(res.status).toBe(404);
      const { paymentProvider } = await import("@/lib/payments");
      expect(paymentProvider("sandbox")).toBeNull();
      await (await import("@/lib/db")).closeDb();
    } finally {
      process.env = saved;
      vi.resetModules();
    }
    expect((await psp.retrieve(checkoutId)).status).toBe("open"); // nobody paid for free
  });
});

describe("4. the per-fan limit holds on a late payment", () => {
  it("a late capture that would give the fan 8 of 4 seats is refunded; the fan ends with 4 tickets", async () => {
    const first = await heldWithCheckout([20, 21, 22, 23], { captureAfterExpiry: true });
    await expire(first.order.orderId);
    const second = await heldWithCheckout([30, 31, 32, 33], {}, first.fan);
    await psp.approve(first.checkoutId);
    await deliverAll(first.checkoutId);
    expect(await statusOf(first.order.orderId)).toBe("expired");
    expect((await psp.retrieve(first.checkoutId)).status).toBe("refunded");
    expect((await findings(first.order.orderId)).find((f) => f.kind === "late_payment")?.action).toBe("the fan already has 4 of the 4 seats allowed per fan: payment refunded in full");
    // The late attempt left nothing behind in Redis: seats 20–23 free, the fan counted for 4.
    expect(await redis().getbit(inventoryKeys(show.eventId).free, 20)).toBe(1);
    expect(Number(await redis().hget(inventoryKeys(show.eventId).fan, first.fan))).toBe(4);
    await psp.approve(second.checkoutId);
    await deliverAll(second.checkoutId);
    expect(await statusOf(second.order.orderId)).toBe("ticketed");
    expect(await validTicketsOf(first.fan)).toBe(4);
    await expectClean();
  });

  it("Postgres recounts even when Redis's count has drifted low", async () => {
    const first = await heldWithCheckout([24, 25], { captureAfterExpiry: true });
    await expire(first.order.orderId);
    const second = await heldWithCheckout([34, 35, 36], {}, first.fan);
    await redis().hset(inventoryKeys(show.eventId).fan, { [first.fan]: 0 }); // Redis forgot the fan's 3 seats
    await psp.approve(first.checkoutId);
    await deliverAll(first.checkoutId);
    expect(await statusOf(first.order.orderId)).toBe("expired");
    expect((await findings(first.order.orderId)).find((f) => f.kind === "late_payment")?.action).toBe("the fan already has 3 of the 4 seats allowed per fan: payment refunded in full");
    // The Redis claim the recount refused was released: seat 24 free, no hold record left.
    expect(await redis().getbit(inventoryKeys(show.eventId).free, 24)).toBe(1);
    expect(await redis().hget(inventoryKeys(show.eventId).owner, "24")).toBeNull();
    await rebuildInventory(db(), show.eventId, { keepInFlightMs: 0 }); // put Redis's count right again
    expect(await statusOf(second.order.orderId)).toBe("pending_payment");
    await expectClean();
  });
});

describe("5. a late capture on an order the fan cancelled (or that was refunded)", () => {
  it("is refunded with the true reason, leaks no Redis hold, and the webhook is answered 2xx", async () => {
    const { order, checkoutId } = await heldWithCheckout([40, 41], { captureAfterExpiry: true });
    expect(await closePendingOrder(db(), order.orderId, "cancelled", { actor: "fan:test", reason: "the fan gave the seats back" })).toBe("closed");
    expect((await psp.approve(checkoutId)).outcome).toBe("captured");
    const d = await deliverAll(checkoutId);
    expect(d.attempts.filter((a) => a.type === "payment.captured").every((a) => a.ok)).toBe(true);
    expect(await statusOf(order.orderId)).toBe("cancelled");
    expect((await psp.retrieve(checkoutId)).status).toBe("refunded");
    expect((await findings(order.orderId)).find((f) => f.kind === "late_payment")?.action).toBe(
      "the order had been cancelled before the payment landed (the fan gave the seats back): payment refunded in full",
    );
    // No hold was made in Redis for it: the seats are free and nobody owns them.
    const k = inventoryKeys(show.eventId);
    expect([await redis().getbit(k.free, 40), await redis().getbit(k.free, 41)]).toEqual([1, 1]);
    expect(await redis().hget(k.owner, "40")).toBeNull();
    expect(await redis().zcard(k.holds)).toBe(0);
    await expectClean();
  });

  it("a second capture landing on a refunded order is refunded too, never kept", async () => {
    const { fan, order, checkoutId } = await heldWithCheckout([44]);
    // Another tab opened a second checkout for the same order before it was paid.
    const second = await sandbox.createCheckoutSession({ orderId: order.orderId, amountMinor: order.totalMinor, currency: "EUR", description: "second tab", expiresAt: order.holdExpiresAt, returnUrl: "http://localhost/r", idempotencyKey: `${order.orderId}:tab2` });
    await psp.setCheckoutFaults(second.id, { captureAfterExpiry: true });
    await db().insert(payments).values({ id: `pay_tab2${order.orderId.slice(4, 16)}`, orderId: order.orderId, provider: "sandbox", checkoutSessionId: second.id, amountMinor: order.totalMinor, currency: "EUR" });
    await psp.approve(checkoutId);
    await deliverAll(checkoutId);
    const { refundOrder } = await import("@/lib/admin/orders");
    await refundOrder(db(), show.organizerId, order.orderId, "test refund");
    expect(await statusOf(order.orderId)).toBe("refunded");
    await psp.approve(second.id);
    await deliverAll(second.id);
    expect((await psp.retrieve(second.id)).status).toBe("refunded");
    expect(await validTicketsOf(fan)).toBe(0);
    await expectClean();
  });
});

describe("6. a double submit makes one order", () => {
  const frontLevel = async () => (await db().select().from(priceLevels).where(and(eq(priceLevels.eventId, show.eventId), eq(priceLevels.name, "Front"))))[0]!.id;
  it("the same best-available request twice in parallel with one idempotency key → the same order", async () => {
    const [fan] = await makeFans(db(), 1);
    const level = await frontLevel();
    const request = { kind: "best" as const, priceLevelId: level, quantity: 2 };
    const results = await Promise.all(Array.from({ length: 2 }, () => placeOrder(db(), { eventId: show.eventId, fanId: fan!, request, idempotencyKey: "double-submit-key-1" })));
    expect(results[0]!.orderId).toBe(results[1]!.orderId);
    expect(results.filter((r) => r.replayed)).toHaveLength(1);
    expect(await db().select().from(orders).where(eq(orders.fanId, fan!))).toHaveLength(1);
    // A later retry with the key, after the seats are its own, answers the same order too.
    expect((await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request, idempotencyKey: "double-submit-key-1" })).orderId).toBe(results[0]!.orderId);
    expect(Number(await redis().hget(inventoryKeys(show.eventId).fan, fan!))).toBe(2);
    await expectClean();
  });

  it("without a key, ten parallel submits leave one pending order and say where it is", async () => {
    const [fan] = await makeFans(db(), 1);
    const level = await frontLevel();
    const settled = await Promise.allSettled(Array.from({ length: 10 }, () => placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "best", priceLevelId: level, quantity: 1 } })));
    const won = settled.filter((r) => r.status === "fulfilled");
    expect(won).toHaveLength(1);
    const refused = settled.flatMap((r) => (r.status === "rejected" ? [r.reason as unknown] : []));
    // Refused in Postgres (one pending order per fan: the refusal names it), or already in Redis
    // while the nine claims were in flight (the fan's seats counted up to the limit for a moment).
    const wonId = (won[0] as PromiseFulfilledResult<{ orderId: string }>).value.orderId;
    expect(refused.every((e) => (e instanceof PendingOrderError && e.orderId === wonId) || e instanceof FanLimitError)).toBe(true);
    expect(refused.some((e) => e instanceof PendingOrderError)).toBe(true);
    expect(await db().select().from(orders).where(eq(orders.fanId, fan!))).toHaveLength(1);
    const live = await db().select().from(lineItems).where(and(eq(lineItems.eventId, show.eventId), inArray(lineItems.status, ["held", "sold"])));
    expect(live).toHaveLength(1);
    expect(Number(await redis().hget(inventoryKeys(show.eventId).fan, fan!))).toBe(1);
    await expectClean();
  });
});

describe("7. an admission token is bound to a live slot", () => {
  async function admittedFan() {
    const [fan] = await makeFans(db(), 1);
    await joinQueue(db(), show.eventId, fan!);
    await new Promise((r) => setTimeout(r, 150)); // admission is lazy, at the show's rate (600/min: one fan per 100 ms)
    const status = await statusWithToken(db(), show.eventId, fan!);
    expect(status.state).toBe("admitted");
    return { fan: fan!, token: status.admissionToken! };
  }
  const hold = (fan: string, token: string, ordinals: number[]) =>
    holdForFan(db(), { eventId: show.eventId, fanId: fan, request: { kind: "seats", ordinals }, admissionToken: token });

  it("after the fan leaves the queue, the old token holds nothing (403, back to the queue)", async () => {
    const { fan, token } = await admittedFan();
    expect(await freeSlot(db(), show.eventId, fan)).toBe(true);
    await expect(hold(fan, token, [46])).rejects.toMatchObject({ status: 403, code: "admission_slot_ended" });
    expect(await redis().getbit(inventoryKeys(show.eventId).free, 46)).toBe(1);
    expect(await db().select().from(orders).where(eq(orders.fanId, fan))).toHaveLength(0);
  });

  it("after the fan bought, the old token holds nothing more", async () => {
    const { fan, token } = await admittedFan();
    const order = await hold(fan, token, [47]);
    const { url } = await startCheckout(db(), sandbox, { orderId: order.orderId, fanId: fan });
    const checkoutId = /sbx_cs_[0-9a-z]+/.exec(url)![0];
    await psp.approve(checkoutId);
    await deliverAll(checkoutId);
    expect(await statusOf(order.orderId)).toBe("ticketed");
    await expect(hold(fan, token, [48])).rejects.toMatchObject({ status: 403, code: "admission_slot_ended" });
    const k = inventoryKeys(show.eventId);
    expect(await redis().getbit(k.free, 48)).toBe(1);
    expect((await redis().keys(holdKey(show.eventId, "*").replace(/[{}]/g, (c) => `\\${c}`))).length).toBe(1); // only the bought hold
    await expectClean();
  });

  it("while the slot runs, the token holds (and a ticketed seat count stays within the limit)", async () => {
    const { fan, token } = await admittedFan();
    await expect(hold(fan, token, [49])).resolves.toMatchObject({ seats: [{ ordinal: 49 }] });
    expect(totalViolations(await checkInvariants(db(), { eventId: show.eventId, graceMs: 0 }))).toBe(0);
    await db().execute(sql`select 1`);
  });
});

describe("found when the fixes were attacked", () => {
  it("a capture webhook that arrives after the PSP refunded (and the ledger recorded it) pays nothing", async () => {
    const { order, checkoutId } = await heldWithCheckout([2, 3], { webhookDelayMs: 60_000 });
    await psp.approve(checkoutId);
    const captured = await psp.retrieve(checkoutId);
    await psp.refund(captured.paymentId!, "psp-dashboard-refund");
    // One reconciliation pass records the refund (its sweep's active query or its ledger pass, whichever looks first).
    await reconcile(db(), { eventId: show.eventId, redisRecheckMs: 50 });
    expect((await paymentOf(order.orderId)).status).toBe("refunded");
    // The capture webhook, queued before the refund, arrives a minute later.
    const d = await deliverAll(checkoutId);
    expect(d.attempts.some((a) => a.type === "payment.captured" && a.ok)).toBe(true);
    expect(await statusOf(order.orderId)).toBe("pending_payment");
    expect(await db().select().from(tickets).where(eq(tickets.orderId, order.orderId))).toHaveLength(0);
    await expectClean();
  });

  it("two captures for one order reported in the other order than they happened, with the sweep running: exactly one kept", async () => {
    const { fan, order, checkoutId: first } = await heldWithCheckout([4], { webhookDelayMs: 1_500 });
    const second = await sandbox.createCheckoutSession({ orderId: order.orderId, amountMinor: order.totalMinor, currency: "EUR", description: "tab 2", expiresAt: order.holdExpiresAt, returnUrl: "http://localhost/r", idempotencyKey: `${order.orderId}:tab2` });
    await db().insert(payments).values({ id: `pay_t2${order.orderId.slice(4, 18)}`, orderId: order.orderId, provider: "sandbox", checkoutSessionId: second.id, amountMinor: order.totalMinor, currency: "EUR" });
    await psp.approve(first); // captured first…
    await psp.approve(second.id);
    await deliverAll(second.id); // …but reported second: the second capture pays the order
    expect(await statusOf(order.orderId)).toBe("ticketed");
    await Promise.all([deliverAll(first), sweep(db(), { eventId: show.eventId }), sweep(db(), { eventId: show.eventId })]);
    await sweep(db(), { eventId: show.eventId });
    const kept = (await db().select().from(payments).where(eq(payments.orderId, order.orderId))).filter((p) => p.status === "captured");
    expect(kept).toHaveLength(1);
    const atPsp = [await psp.retrieve(first), await psp.retrieve(second.id)].map((c) => c.status).sort();
    expect(atPsp).toEqual(["captured", "refunded"]);
    expect(await validTicketsOf(fan)).toBe(1);
    await expectClean();
  });

  it("a checkout started while the seats are being given back is cancelled at the PSP too", async () => {
    const [fan] = await makeFans(db(), 1);
    const order = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [6] } });
    // The checkout's request lands between the give-back's first look at the payments and its release.
    let started: string | null = null;
    const racing = new Proxy(db(), {
      get(target, prop, receiver) {
        if (prop !== "transaction" || started !== null) return Reflect.get(target, prop, receiver);
        return async (...args: Parameters<typeof target.transaction>) => {
          started = (await startCheckout(db(), sandbox, { orderId: order.orderId, fanId: fan! })).url;
          return target.transaction(...args);
        };
      },
    });
    expect(await closePendingOrder(racing, order.orderId, "cancelled", { actor: "test", reason: "given back" })).toBe("closed");
    const checkoutId = /sbx_cs_[0-9a-z]+/.exec(started!)![0];
    expect((await psp.retrieve(checkoutId)).status).toBe("cancelled");
    expect((await paymentOf(order.orderId)).status).toBe("cancelled");
    await expectClean();
  });

  it("hold, give back, hold again…: only the turn's first three holds extend the admission slot", async () => {
    const [fan] = await makeFans(db(), 1);
    await joinQueue(db(), show.eventId, fan!);
    await new Promise((r) => setTimeout(r, 150));
    const { admittedUntil } = await statusWithToken(db(), show.eventId, fan!);
    const results = [];
    for (let k = 1; k <= 5; k++) results.push(await extendSlot(db(), show.eventId, fan!, admittedUntil! + k * 60_000));
    expect(results).toEqual([true, true, true, false, false]);
    expect((await statusWithToken(db(), show.eventId, fan!)).admittedUntil).toBe(admittedUntil! + 3 * 60_000);
  });

  it("one idempotency key sent twice at once with different bodies: one order, the other request refused (422, docs/adr/0025)", async () => {
    const [fan] = await makeFans(db(), 1);
    const settled = await Promise.allSettled([
      placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [8, 9, 10, 11] }, idempotencyKey: "same-key-other-body" }),
      placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [12, 13] }, idempotencyKey: "same-key-other-body" }),
    ]);
    expect(settled.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(settled.flatMap((r) => (r.status === "rejected" ? [(r.reason as { code?: string }).code] : []))).toEqual(["idempotency_key_mismatch"]);
    expect(await db().select().from(orders).where(eq(orders.fanId, fan!))).toHaveLength(1);
    await expectClean();
  });
});

describe("which captures keep an order: mismatched ones never do (issue 41, review)", () => {
  const pspDown = () => vi.spyOn(sandbox.constructor.prototype as typeof sandbox, "refund").mockRejectedValue(new PaymentProviderError("Sandbox PSP unavailable: timeout", true));
  const cause = { actor: "test", reason: "review case" };

  it("an old forged webhook's amount_mismatch finding does not mark a later real capture: the late payment re-claims the seats", async () => {
    const { order, checkoutId } = await heldWithCheckout([1], { captureAfterExpiry: true, drop: true });
    const pay = await paymentOf(order.orderId);
    // What a forged webhook with a wrong amount left behind before captures were confirmed with the PSP.
    await recordDiscrepancy(db(), {
      key: `amount_mismatch_${pay.id}`,
      kind: "amount_mismatch",
      eventId: show.eventId,
      orderId: order.orderId,
      detail: { expected: { amountMinor: order.totalMinor, currency: "EUR", orderId: order.orderId }, received: { amountMinor: 1, currency: "EUR", orderId: order.orderId } },
      action: "order not marked paid",
      status: "needs_attention",
    });
    await expire(order.orderId);
    expect((await psp.approve(checkoutId)).outcome).toBe("captured"); // the right amount, after the hold ended
    const r = await reconcile(db(), { eventId: show.eventId, redisRecheckMs: 50, graceMs: 0 });
    expect(r.invariants).toEqual(CLEAN);
    expect(await statusOf(order.orderId)).toBe("ticketed");
    expect((await findings(order.orderId)).find((f) => f.kind === "late_payment")).toEqual({ kind: "late_payment", status: "repaired", action: "seats were still free: re-claimed and sold" });
  });

  it("a short second capture whose refund is pending does not keep the order once the PSP refunds the real one", async () => {
    const { fan, order, checkoutId } = await heldWithCheckout([2]);
    const second = await sandbox.createCheckoutSession({ orderId: order.orderId, amountMinor: order.totalMinor, currency: "EUR", description: "tab 2", expiresAt: order.holdExpiresAt, returnUrl: "http://localhost/r", idempotencyKey: `${order.orderId}:tab2` });
    await psp.setCheckoutFaults(second.id, { shortCaptureMinor: 150 });
    await db().insert(payments).values({ id: `pay_s2${order.orderId.slice(4, 18)}`, orderId: order.orderId, provider: "sandbox", checkoutSessionId: second.id, amountMinor: order.totalMinor, currency: "EUR" });
    await psp.approve(checkoutId);
    await deliverAll(checkoutId);
    expect(await statusOf(order.orderId)).toBe("ticketed");
    const refund = pspDown();
    try {
      await psp.approve(second.id);
      await deliverAll(second.id); // short: recorded as taken, its refund cannot be made now
      const short = (await db().select().from(payments).where(eq(payments.checkoutSessionId, second.id)))[0]!;
      expect(short).toMatchObject({ status: "captured", amountMinor: order.totalMinor - 150 });
      // The operator refunds the real payment at the PSP's dashboard; the app learns it from the PSP.
      await psp.refund((await psp.retrieve(checkoutId)).paymentId!, "psp-dashboard-refund");
      const real = (await db().select().from(payments).where(eq(payments.checkoutSessionId, checkoutId)))[0]!;
      expect((await askPsp(db(), real, cause, "ledger")).applied).toBe("refund_recorded");
      // Nothing pays the order any more: it ends, its tickets void (the short capture is not kept money).
      expect(await statusOf(order.orderId)).toBe("refunded");
      expect(await validTicketsOf(fan)).toBe(0);
    } finally {
      refund.mockRestore();
    }
    expect(await sweep(db(), { eventId: show.eventId })).toMatchObject({ mismatchesRefunded: 1, errors: [] });
    expect((await psp.retrieve(second.id)).status).toBe("refunded");
    await expectClean();
  });

  it("a kept capture the PSP shows short (a row believed from a webhook) ends its order as the money goes back: no valid tickets without money", async () => {
    const { fan, order, checkoutId } = await heldWithCheckout([3]);
    await psp.approve(checkoutId);
    await deliverAll(checkoutId);
    expect(await statusOf(order.orderId)).toBe("ticketed");
    // Our row says the order's amount (as a webhook's snapshot said); the PSP took 150 less.
    await db().execute(sql`update sandbox_psp.checkouts set amount_minor = amount_minor - 150 where id = ${checkoutId}`);
    await db().update(payments).set({ ledgerConfirmedAt: null }).where(eq(payments.orderId, order.orderId));
    const r = await reconcile(db(), { eventId: show.eventId, redisRecheckMs: 50, graceMs: 0 });
    expect(await statusOf(order.orderId)).toBe("refunded");
    expect(await validTicketsOf(fan)).toBe(0);
    expect(await psp.retrieve(checkoutId)).toMatchObject({ status: "refunded", refundedMinor: order.totalMinor - 150 });
    expect(await paymentOf(order.orderId)).toMatchObject({ status: "refunded", amountMinor: order.totalMinor - 150 });
    expect(r.invariants).toEqual(CLEAN);
  });

  it("the sweep settles a mismatched capture by its payment, whatever its finding says: refunded but still open, or marked repaired while the money is kept", async () => {
    const a = await heldWithCheckout([4], { shortCaptureMinor: 150, drop: true });
    const b = await heldWithCheckout([5], { shortCaptureMinor: 150, drop: true });
    const refund = pspDown();
    try {
      for (const x of [a, b]) {
        await psp.approve(x.checkoutId);
        await syncOrderPayment(db(), x.order.orderId, cause);
      }
    } finally {
      refund.mockRestore();
    }
    for (const x of [a, b]) expect((await findings(x.order.orderId)).map((f) => `${f.kind}:${f.status}`)).toEqual(["amount_mismatch:open"]);
    // a: the refund was made, and the process died before the finding was brought up to date.
    expect(await refundPayment(db(), (await paymentOf(a.order.orderId)).id, cause)).toBe(true);
    // b: the finding says repaired (a racing writer), the money is still kept.
    await db().update(discrepancies).set({ status: "repaired" }).where(eq(discrepancies.orderId, b.order.orderId));
    const r = await sweep(db(), { eventId: show.eventId });
    expect(r.errors).toEqual([]);
    expect((await findings(a.order.orderId)).map((f) => `${f.kind}:${f.status}`)).toEqual(["amount_mismatch:repaired"]);
    expect((await psp.retrieve(b.checkoutId)).status).toBe("refunded");
    expect(await paymentOf(b.order.orderId)).toMatchObject({ status: "refunded", amountMinor: b.order.totalMinor - 150 });
    expect((await findings(b.order.orderId)).map((f) => `${f.kind}:${f.status}`)).toEqual(["amount_mismatch:repaired"]);
    await expectClean();
  });
});
