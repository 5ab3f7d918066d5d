/**
 * Payments end to end against the real Postgres and Redis and the sandbox PSP (its own
 * tables, signed webhooks): duplicated webhooks, the browser's return racing the
 * webhook, a wrong amount, a bad signature, a decline, the PSP unreachable when a webhook
 * asks it; and Stripe webhooks (signed for real, the API a local stand-in): asked about,
 * never believed, and refused from another account or mode. Webhooks are delivered by the
 * PSP's own dispatcher into the app's handler (in-process instead of over HTTP).
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import Stripe from "stripe";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { discrepancies, lineItems, orders, orderTransitions, paymentEvents, payments, tickets } from "@/db/schema";
import { closeDb, db } from "@/lib/db";
import { newId } from "@/lib/ids";
import { readHold } from "@/lib/inventory/hold";
import { rebuildInventory } from "@/lib/inventory/rebuild";
import { placeOrder } from "@/lib/orders/place-order";
import { startCheckout } from "@/lib/payments/checkout";
import { ForeignWebhookError, PaymentProviderError, WebhookSignatureError, type PaymentProvider } from "@/lib/payments/provider";
import { StripeProvider } from "@/lib/payments/stripe";
import { sweep } from "@/lib/reconciliation/sweep";
import * as psp from "@/lib/payments/sandbox/psp";
import { syncOnReturn, syncOrderPayment } from "@/lib/payments/sync";
import { getFanOrder } from "@/lib/orders/queries";
import { handleWebhook } from "@/lib/payments/webhooks";
import { closeRedis } from "@/lib/redis";
import { deliverAll, sandbox } from "@/lib/testing/psp";
import { makeFans, makeStudioShow } from "@/lib/testing/fixtures";
import { verifyTicketCode, ticketKeys } from "@/lib/tickets/codes";
import { env } from "@/lib/env";

afterAll(async () => {
  await closeDb();
  await closeRedis();
});

const provider = sandbox;
let show: Awaited<ReturnType<typeof makeStudioShow>>;
beforeEach(async () => {
  show = await makeStudioShow(db());
  await rebuildInventory(db(), show.eventId);
});



/** A fan holds two seats and opens the sandbox checkout. */
async function orderWithCheckout(ordinals = [10, 11]) {
  const [fan] = await makeFans(db(), 1);
  const order = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals } });
  await startCheckout(db(), provider, { orderId: order.orderId, fanId: fan! });
  const payment = (await db().query.payments.findFirst({ where: eq(payments.orderId, order.orderId) }))!;
  return { fan: fan!, order, checkoutId: payment.checkoutSessionId };
}

async function transitions(orderId: string) {
  return db()
    .select({ entity: orderTransitions.entity, from: orderTransitions.fromStatus, to: orderTransitions.toStatus })
    .from(orderTransitions)
    .where(eq(orderTransitions.orderId, orderId))
    .orderBy(orderTransitions.id);
}

describe("webhooks", () => {
  it("the same webhook delivered 3 times → one transition, one set of tickets", async () => {
    const { order, checkoutId } = await orderWithCheckout();
    await psp.setCheckoutFaults(checkoutId, { duplicate: 2 });
    await psp.approve(checkoutId);
    const result = await deliverAll(checkoutId);
    expect(result.delivered).toBe(3);
    expect(new Set(result.attempts.map((a) => a.eventId)).size).toBe(1);

    expect((await db().query.orders.findFirst({ where: eq(orders.id, order.orderId) }))!.status).toBe("ticketed");
    expect(await transitions(order.orderId)).toEqual([
      { entity: "order", from: null, to: "pending_payment" },
      { entity: "payment", from: "created", to: "captured" },
      { entity: "order", from: "pending_payment", to: "paid" },
      { entity: "order", from: "paid", to: "ticketed" },
    ]);
    const issued = await db().select().from(tickets).where(eq(tickets.orderId, order.orderId));
    expect(issued).toHaveLength(2);
    const stored = await db().select().from(paymentEvents).where(eq(paymentEvents.providerEventId, result.attempts[0]!.eventId));
    expect(stored).toHaveLength(1);
    // Seats are sold in Postgres and in Redis; each ticket code verifies offline with the public key alone.
    const items = await db().select().from(lineItems).where(eq(lineItems.orderId, order.orderId));
    expect(items.map((i) => i.status)).toEqual(["sold", "sold"]);
    expect((await readHold(show.eventId, order.holdId))!.status).toBe("sold");
    const publicKey = ticketKeys(env().TICKET_SIGNING_SECRET).publicKeyPem;
    for (const t of issued) expect((await verifyTicketCode(t.code, publicKey)).ticketId).toBe(t.id);
  });

  it("the browser's return racing the webhook → one transition, one set of tickets", async () => {
    const { order, checkoutId } = await orderWithCheckout([20, 21]);
    await psp.setCheckoutFaults(checkoutId, { duplicate: 1 });
    await psp.approve(checkoutId);
    await Promise.all([
      deliverAll(checkoutId),
      syncOrderPayment(db(), order.orderId, { actor: "return:test", reason: "browser return" }),
      syncOrderPayment(db(), order.orderId, { actor: "return:test", reason: "second tab" }),
    ]);
    const log = await transitions(order.orderId);
    expect(log.filter((l) => l.to === "paid")).toHaveLength(1);
    expect(log.filter((l) => l.to === "ticketed")).toHaveLength(1);
    expect(log.filter((l) => l.entity === "payment")).toHaveLength(1);
    expect(await db().select().from(tickets).where(eq(tickets.orderId, order.orderId))).toHaveLength(2);
  });

  it("a capture reported again once recorded takes no row lock: it answers while another transaction holds the order, and the PSP's own answer still marks it confirmed", async () => {
    const { order, checkoutId } = await orderWithCheckout([26, 27]);
    await psp.setCheckoutFaults(checkoutId, { duplicate: 1 });
    await psp.approve(checkoutId);
    await syncOrderPayment(db(), order.orderId, { actor: "return:test", reason: "browser return" }); // pays the order (a PSP query: confirmed)
    await db().update(payments).set({ ledgerConfirmedAt: null }).where(eq(payments.orderId, order.orderId));
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    // Another caller holds the order's row lock (as a slow capture or refund would) until the re-reports are done.
    const holder = db().transaction(async (tx) => {
      await tx.select().from(orders).where(eq(orders.id, order.orderId)).for("update");
      locked();
      await held;
    });
    await isLocked;
    try {
      const answered = await Promise.race([
        Promise.all([deliverAll(checkoutId), syncOrderPayment(db(), order.orderId, { actor: "ledger:test", reason: "asked again" })]).then(() => "answered"),
        new Promise((r) => setTimeout(() => r("waited on the lock"), 3_000)),
      ]);
      expect(answered).toBe("answered");
    } finally {
      release();
      await holder;
    }
    const log = await transitions(order.orderId);
    expect(log.filter((l) => l.to === "paid")).toHaveLength(1);
    expect(log.filter((l) => l.entity === "payment")).toHaveLength(1);
    const [payment] = await db().select().from(payments).where(eq(payments.orderId, order.orderId));
    expect(payment!.ledgerConfirmedAt).not.toBeNull(); // the query's answer is the PSP's own record
    expect(await db().select().from(tickets).where(eq(tickets.orderId, order.orderId))).toHaveLength(2);
  });

  it("a dropped webhook: the fan's return from the PSP settles the order at once; a settled order is not asked again", async () => {
    const { fan, order, checkoutId } = await orderWithCheckout([24, 25]);
    await psp.setCheckoutFaults(checkoutId, { drop: true });
    await psp.approve(checkoutId);
    expect((await deliverAll(checkoutId)).delivered).toBe(0); // the webhook never comes
    const before = (await getFanOrder(db(), order.orderId, fan))!;
    expect(before.status).toBe("pending_payment");
    expect(await syncOnReturn(db(), before, fan)).toBe(true);
    const after = (await getFanOrder(db(), order.orderId, fan))!;
    expect(after.status).toBe("ticketed");
    expect(after.tickets).toHaveLength(2);
    expect(await syncOnReturn(db(), after, fan)).toBe(false);
  });

  it("a capture whose amount differs from the order → not paid, the captured amount refunded in full, the finding repaired", async () => {
    const [fan] = await makeFans(db(), 1);
    const order = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [30] } });
    // The PSP session charges 1 cent less than the order's total (2,900).
    const session = await provider.createCheckoutSession({
      orderId: order.orderId,
      amountMinor: order.totalMinor - 1,
      currency: order.currency,
      description: "tampered",
      expiresAt: order.holdExpiresAt,
      returnUrl: "http://localhost/return",
      idempotencyKey: `${order.orderId}:tampered`,
    });
    await db().insert(payments).values({ id: newId("pay"), orderId: order.orderId, provider: "sandbox", checkoutSessionId: session.id, amountMinor: order.totalMinor, currency: order.currency });
    await psp.approve(session.id);
    await deliverAll(session.id);
    expect((await db().query.orders.findFirst({ where: eq(orders.id, order.orderId) }))!.status).toBe("pending_payment");
    const found = await db().select().from(discrepancies).where(eq(discrepancies.orderId, order.orderId));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ kind: "amount_mismatch", status: "repaired" });
    expect(found[0]!.detail).toMatchObject({ expected: { amountMinor: 2_900 }, received: { amountMinor: 2_899 }, refundedMinor: 2_899 });
    expect(await db().select().from(tickets).where(eq(tickets.orderId, order.orderId))).toEqual([]);
    // The money went back, all of it: the PSP's record and ours agree.
    expect(await psp.retrieve(session.id)).toMatchObject({ status: "refunded", amountMinor: 2_899 });
    const [p] = await db().select().from(payments).where(eq(payments.orderId, order.orderId));
    expect(p).toMatchObject({ status: "refunded", amountMinor: 2_899, currency: "EUR" });
    // The seats stay held: the fan may still pay the right amount.
    expect((await readHold(show.eventId, order.holdId))!.status).toBe("held");
  });

  it("the PSP unreachable when the webhook asks: nothing is ticketed, the delivery is answered 503 and stays unprocessed; the sweep confirms the order once the PSP answers", async () => {
    const { order, checkoutId } = await orderWithCheckout([32, 33]);
    await psp.approve(checkoutId);
    // The same sandbox provider whose API cannot be reached.
    const down: PaymentProvider = Object.assign(Object.create(provider) as PaymentProvider, {
      retrievePayment: () => Promise.reject(new PaymentProviderError("Sandbox PSP unavailable: connection refused", true)),
    });
    const result = await psp.dispatchDueWebhooks({
      checkoutIds: [checkoutId],
      now: new Date(Date.now() + 3_600_000),
      deliver: async (_url, body, headers) => {
        try {
          await handleWebhook(db(), down, body, new Headers(headers));
          return { status: 200 };
        } catch (error) {
          return { status: error instanceof PaymentProviderError ? 503 : 500 };
        }
      },
    });
    expect(result.attempts.map((a) => a.status)).toEqual([503]);
    expect((await db().query.orders.findFirst({ where: eq(orders.id, order.orderId) }))!.status).toBe("pending_payment");
    expect(await db().select().from(tickets).where(eq(tickets.orderId, order.orderId))).toEqual([]);
    const [stored] = await db().select().from(paymentEvents).where(eq(paymentEvents.providerEventId, result.attempts[0]!.eventId));
    expect(stored!.processedAt).toBeNull();
    // The PSP answers again: the sweep's active query (no webhook settled it) confirms the order.
    const r = await sweep(db(), { eventId: show.eventId, paymentQueryAfterMs: 0 });
    expect(r).toMatchObject({ paymentsQueried: 1, errors: [] });
    expect((await db().query.orders.findFirst({ where: eq(orders.id, order.orderId) }))!.status).toBe("ticketed");
    expect(await db().select().from(tickets).where(eq(tickets.orderId, order.orderId))).toHaveLength(2);
    // The PSP's retry of the delivery (after its backoff) finds the order settled and finishes the event.
    expect((await deliverAll(checkoutId, 2 * 3_600_000)).attempts.map((a) => a.status)).toEqual([200]);
    const [done] = await db().select().from(paymentEvents).where(eq(paymentEvents.providerEventId, result.attempts[0]!.eventId));
    expect(done!.processedAt).not.toBeNull();
    expect((await transitions(order.orderId)).filter((l) => l.to === "paid")).toHaveLength(1);
  });

  it("a signed capture for a checkout the sandbox PSP does not know ends the delivery with nothing applied", async () => {
    const body = JSON.stringify({ id: `sbx_evt_nosuch${Date.now()}`, object: "event", type: "payment.captured", created: Math.floor(Date.now() / 1000), data: { checkout: { id: "sbx_cs_nosuchcheckout", object: "checkout", order_id: "ord_x", status: "captured", amount_minor: 100, currency: "EUR", payment_id: "sbx_pay_x", captured_at: new Date().toISOString() } } });
    expect(await handleWebhook(db(), provider, body, new Headers({ [psp.SANDBOX_SIGNATURE_HEADER]: psp.signWebhookBody(body) }))).toMatchObject({ outcome: "not_at_psp" });
  });

  it("rejects a bad signature without storing anything", async () => {
    const body = JSON.stringify({ id: "sbx_evt_forged", type: "payment.captured" });
    const headers = new Headers({ [psp.SANDBOX_SIGNATURE_HEADER]: `t=${Math.floor(Date.now() / 1000)},v1=${"0".repeat(64)}` });
    await expect(handleWebhook(db(), provider, body, headers)).rejects.toBeInstanceOf(WebhookSignatureError);
    await expect(handleWebhook(db(), provider, body, new Headers())).rejects.toBeInstanceOf(WebhookSignatureError);
    const [n] = await db().select({ n: sql<number>`count(*)::int` }).from(paymentEvents).where(eq(paymentEvents.providerEventId, "sbx_evt_forged"));
    expect(n!.n).toBe(0);
  });

  it("a declined payment leaves the order payable and the seats held", async () => {
    const { order, checkoutId } = await orderWithCheckout([40]);
    await psp.decline(checkoutId);
    await deliverAll(checkoutId);
    const o = (await db().query.orders.findFirst({ where: eq(orders.id, order.orderId) }))!;
    expect(o.status).toBe("pending_payment");
    const p = await db().select().from(payments).where(and(eq(payments.orderId, order.orderId), inArray(payments.status, ["declined"])));
    expect(p).toHaveLength(1);
    expect((await readHold(show.eventId, order.holdId))!.status).toBe("held");
  });
});

describe("Stripe webhooks (signed for real; Stripe's API a local stand-in)", () => {
  const SECRET = "whsec_test_webhooks_suite";
  /** What the stand-in says the session is: open (not paid) or paid. */
  let stripeSays: "open" | "paid" = "open";
  let retrieved = 0;
  const sessionAt = (id: string, orderId: string, amountMinor: number) =>
    stripeSays === "paid"
      ? { id, object: "checkout.session", status: "complete", payment_status: "paid", amount_total: amountMinor, currency: "eur", currency_conversion: null, metadata: { orderId }, client_reference_id: orderId, payment_intent: { id: "pi_real_1", status: "succeeded", latest_charge: { id: "ch_1", refunded: false, captured: true, created: Math.floor(Date.now() / 1000) } } }
      : { id, object: "checkout.session", status: "open", payment_status: "unpaid", amount_total: amountMinor, currency: "eur", currency_conversion: null, metadata: { orderId }, client_reference_id: orderId, payment_intent: null };

  /** A pending order with a Stripe checkout, and a provider (test-mode key) whose API is the stand-in. */
  async function stripeOrder(ordinals: number[]) {
    const [fan] = await makeFans(db(), 1);
    const order = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals } });
    const sessionId = `cs_test_${order.orderId}`;
    await db().insert(payments).values({ id: newId("pay"), orderId: order.orderId, provider: "stripe", checkoutSessionId: sessionId, amountMinor: order.totalMinor, currency: order.currency });
    const fake = { checkout: { sessions: { retrieve: async (id: string) => (retrieved++, sessionAt(id, order.orderId, order.totalMinor)) } } };
    const stripe = new StripeProvider({ secretKey: "sk_test_standin", webhookSecret: SECRET, stripe: fake as unknown as Stripe });
    return { order, sessionId, stripe };
  }

  /** A signed `checkout.session.completed` (paid) for the session, with the event's own fields. */
  function completed(sessionId: string, orderId: string, amountMinor: number, event: Record<string, unknown>) {
    const body = JSON.stringify({
      id: `evt_${Math.random().toString(36).slice(2)}`,
      object: "event",
      api_version: "2026-10-28.endive",
      created: Math.floor(Date.now() / 1000),
      livemode: false,
      type: "checkout.session.completed",
      data: { object: { id: sessionId, object: "checkout.session", status: "complete", payment_status: "paid", amount_total: amountMinor, currency: "eur", metadata: { orderId }, client_reference_id: orderId, payment_intent: "pi_made_up" } },
      ...event,
    });
    return { body, headers: new Headers({ "stripe-signature": Stripe.webhooks.generateTestHeaderString({ payload: body, secret: SECRET }) }) };
  }

  it("a signed completion is only a hint: Stripe is asked, and only Stripe's own 'paid' pays the order", async () => {
    const { order, sessionId, stripe } = await stripeOrder([34]);
    stripeSays = "open";
    retrieved = 0;
    const forged = completed(sessionId, order.orderId, order.totalMinor, {});
    expect(await handleWebhook(db(), stripe, forged.body, forged.headers)).toMatchObject({ outcome: "nothing" });
    expect(retrieved).toBe(1);
    expect((await db().query.orders.findFirst({ where: eq(orders.id, order.orderId) }))!.status).toBe("pending_payment");
    stripeSays = "paid";
    const real = completed(sessionId, order.orderId, order.totalMinor, {});
    expect(await handleWebhook(db(), stripe, real.body, real.headers)).toMatchObject({ outcome: "paid" });
    expect((await db().query.orders.findFirst({ where: eq(orders.id, order.orderId) }))!.status).toBe("ticketed");
    // Stripe's payment id, not the message's.
    const [p] = await db().select().from(payments).where(eq(payments.orderId, order.orderId));
    expect(p).toMatchObject({ status: "captured", providerPaymentId: "pi_real_1" });
    expect(p!.ledgerConfirmedAt).not.toBeNull();
  });

  it("Stripe refusing our key (rotated) leaves the delivery for its retry; only 'no such session' (404 resource_missing) ends it with nothing applied", async () => {
    const { order, sessionId } = await stripeOrder([36]);
    let failWith: unknown;
    const fake = { checkout: { sessions: { retrieve: () => Promise.reject(failWith) } } };
    const stripe = new StripeProvider({ secretKey: "sk_test_standin", webhookSecret: SECRET, stripe: fake as unknown as Stripe });
    const event = completed(sessionId, order.orderId, order.totalMinor, {});
    const eventId = (JSON.parse(event.body) as { id: string }).id;
    const processedAt = async () => (await db().select().from(paymentEvents).where(eq(paymentEvents.providerEventId, eventId)))[0]!.processedAt;
    for (const refusal of [
      new Stripe.errors.StripeAuthenticationError({ message: "Invalid API Key provided: sk_test_****old", type: "invalid_request_error", statusCode: 401 }),
      new Stripe.errors.StripePermissionError({ message: "The provided key does not have access to checkout sessions", type: "invalid_request_error", statusCode: 403 }),
    ]) {
      failWith = refusal;
      const error = await handleWebhook(db(), stripe, event.body, event.headers).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PaymentProviderError);
      expect(await processedAt()).toBeNull(); // Stripe retries it; the sweep's query settles the order meanwhile
    }
    failWith = new Stripe.errors.StripeInvalidRequestError({ message: `No such checkout.session: '${sessionId}'`, type: "invalid_request_error", code: "resource_missing", statusCode: 404 });
    expect(await handleWebhook(db(), stripe, event.body, event.headers)).toMatchObject({ duplicate: false, outcome: "not_at_psp" });
    expect(await processedAt()).not.toBeNull();
    expect((await db().query.orders.findFirst({ where: eq(orders.id, order.orderId) }))!.status).toBe("pending_payment");
  });

  it.each([
    ["a live-mode event for a test-mode key", { livemode: true }, { livemode: true, keyLivemode: false, account: null }],
    ["an event of another (Connect) account", { account: "acct_other" }, { livemode: false, keyLivemode: false, account: "acct_other" }],
  ])("%s is refused (422), applies nothing, and is recorded once however often it is replayed", async (_name, fields, mismatch) => {
    const { order, sessionId, stripe } = await stripeOrder([35]);
    stripeSays = "paid";
    retrieved = 0;
    const foreign = completed(sessionId, order.orderId, order.totalMinor, fields);
    const eventId = (JSON.parse(foreign.body) as { id: string }).id;
    for (let k = 0; k < 2; k++) {
      const refused = await handleWebhook(db(), stripe, foreign.body, foreign.headers).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ForeignWebhookError);
      expect([(refused as ForeignWebhookError).status, (refused as ForeignWebhookError).code]).toEqual([422, "foreign_webhook"]);
    }
    expect(retrieved).toBe(0);
    expect((await db().query.orders.findFirst({ where: eq(orders.id, order.orderId) }))!.status).toBe("pending_payment");
    expect(await db().select().from(paymentEvents).where(eq(paymentEvents.providerEventId, eventId))).toEqual([]);
    const found = await db().select().from(discrepancies).where(and(eq(discrepancies.kind, "foreign_webhook"), sql`${discrepancies.detail}->>'eventId' = ${eventId}`));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ status: "needs_attention", detail: { provider: "stripe", eventId, type: "checkout.session.completed", ...mismatch } });
  });
});
