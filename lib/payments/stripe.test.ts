/**
 * Unit tests for the Stripe PSP (lib/payments/stripe.ts). No network: webhooks are signed
 * with the SDK's own test-header helper and verified for real; API calls go to a fake of
 * Stripe's HTTP API (only the methods the provider uses) that records what was sent.
 */
import Stripe from "stripe";
import { afterEach, describe, expect, it, vi } from "vitest";

import { ForeignWebhookError, PaymentProviderError, WebhookSignatureError } from "@/lib/payments/provider";
import {
  STRIPE_MIN_SESSION_LIFETIME_MS,
  STRIPE_SESSION_EXPIRY_SLACK_MS,
  StripeProvider,
  stripeKeyMode,
  stripeSessionExpiresAt,
  stripeSessionExpiryCandidates,
  toPaymentProviderError,
} from "@/lib/payments/stripe";

const SECRET = "whsec_test_stararena_secret";
const MINUTE = 60_000;

/** A Checkout Session as Stripe would send it (only the fields the provider reads, plus a few). */
function session(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: "cs_test_123",
    object: "checkout.session",
    amount_total: 12_550,
    currency: "eur",
    currency_conversion: null,
    client_reference_id: "ord_abc",
    metadata: { orderId: "ord_abc" },
    mode: "payment",
    payment_intent: "pi_123",
    payment_status: "paid",
    status: "complete",
    url: null,
    created: 1_800_000_000,
    expires_at: 1_800_003_600,
    ...overrides,
  };
}

function eventPayload(type: string, object: Record<string, unknown>, id = "evt_1"): string {
  return JSON.stringify(
    {
      id,
      object: "event",
      api_version: "2026-10-28.endive",
      created: 1_800_000_100,
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
      data: { object },
    },
    null,
    2,
  );
}

function signedHeaders(payload: string, opts: { secret?: string; timestamp?: number } = {}): Headers {
  const header = Stripe.webhooks.generateTestHeaderString({
    payload,
    secret: opts.secret ?? SECRET,
    ...(opts.timestamp !== undefined ? { timestamp: opts.timestamp } : {}),
  });
  return new Headers({ "stripe-signature": header, "content-type": "application/json" });
}

type Call = { method: string; args: unknown[] };

/** A fake of the parts of Stripe's API the provider calls; each method answers from `answers` or throws. */
function fakeStripe(answers: Partial<Record<string, (...args: unknown[]) => unknown>>) {
  const calls: Call[] = [];
  const method =
    (name: string) =>
    async (...args: unknown[]) => {
      calls.push({ method: name, args });
      const answer = answers[name];
      if (!answer) throw new Error(`fake Stripe: unexpected call ${name}`);
      return answer(...args);
    };
  const client = {
    checkout: {
      sessions: {
        create: method("checkout.sessions.create"),
        retrieve: method("checkout.sessions.retrieve"),
        expire: method("checkout.sessions.expire"),
        list: method("checkout.sessions.list"),
      },
    },
    refunds: { create: method("refunds.create"), list: method("refunds.list") },
  };
  const provider = new StripeProvider({ secretKey: "", webhookSecret: SECRET, stripe: client as unknown as Stripe });
  return { provider, calls };
}

const invalidRequest = (message: string, code?: string) =>
  new Stripe.errors.StripeInvalidRequestError({ message, statusCode: 400, type: "invalid_request_error", ...(code ? { code } : {}) });

afterEach(() => {
  vi.useRealTimers();
});

describe("StripeProvider.verifyWebhook", () => {
  const provider = new StripeProvider({ secretKey: "sk_test_unused", webhookSecret: SECRET });

  it("parses a signed checkout.session.completed (paid) into payment.captured", async () => {
    const payload = eventPayload("checkout.session.completed", session(), "evt_completed_1");
    const event = await provider.verifyWebhook(payload, signedHeaders(payload));
    expect(event.type).toBe("payment.captured");
    expect(event.eventId).toBe("evt_completed_1");
    expect(event.rawType).toBe("checkout.session.completed");
    expect(event.payment).toEqual({
      checkoutSessionId: "cs_test_123",
      orderId: "ord_abc",
      status: "captured",
      paymentId: "pi_123",
      amountMinor: 12_550,
      currency: "EUR",
      capturedAt: new Date(1_800_000_100 * 1000),
    });
    expect((event.raw as { id: string }).id).toBe("evt_completed_1");
  });

  it("falls back to client_reference_id for the order id", async () => {
    const payload = eventPayload("checkout.session.completed", session({ metadata: {} }));
    const event = await provider.verifyWebhook(payload, signedHeaders(payload));
    expect(event.payment?.orderId).toBe("ord_abc");
  });

  it("maps a completed but still unpaid session (delayed payment method) to other/open", async () => {
    const payload = eventPayload("checkout.session.completed", session({ payment_status: "unpaid" }));
    const event = await provider.verifyWebhook(payload, signedHeaders(payload));
    expect(event.type).toBe("other");
    expect(event.payment?.status).toBe("open");
    expect(event.payment?.capturedAt).toBeNull();
  });

  it("maps async_payment_succeeded to payment.captured", async () => {
    const payload = eventPayload("checkout.session.async_payment_succeeded", session());
    const event = await provider.verifyWebhook(payload, signedHeaders(payload));
    expect(event.type).toBe("payment.captured");
    expect(event.payment?.status).toBe("captured");
  });

  it("maps async_payment_failed to payment.declined", async () => {
    const payload = eventPayload("checkout.session.async_payment_failed", session({ payment_status: "unpaid" }));
    const event = await provider.verifyWebhook(payload, signedHeaders(payload));
    expect(event.type).toBe("payment.declined");
    expect(event.payment).toMatchObject({ status: "declined", orderId: "ord_abc", checkoutSessionId: "cs_test_123", capturedAt: null });
  });

  it("maps checkout.session.expired to checkout.expired", async () => {
    const payload = eventPayload("checkout.session.expired", session({ status: "expired", payment_status: "unpaid", payment_intent: null }));
    const event = await provider.verifyWebhook(payload, signedHeaders(payload));
    expect(event.type).toBe("checkout.expired");
    expect(event.payment).toMatchObject({ status: "expired", orderId: "ord_abc", paymentId: null, currency: "EUR" });
  });

  it("maps a full charge.refunded to payment.refunded with a partial snapshot", async () => {
    const charge = {
      id: "ch_1",
      object: "charge",
      amount: 12_550,
      amount_refunded: 12_550,
      currency: "eur",
      captured: true,
      created: 1_800_000_050,
      metadata: { orderId: "ord_abc" },
      payment_intent: "pi_123",
      refunded: true,
    };
    const payload = eventPayload("charge.refunded", charge);
    const event = await provider.verifyWebhook(payload, signedHeaders(payload));
    expect(event.type).toBe("payment.refunded");
    expect(event.payment).toEqual({
      checkoutSessionId: "",
      orderId: "ord_abc",
      status: "refunded",
      paymentId: "pi_123",
      amountMinor: 12_550,
      currency: "EUR",
      capturedAt: new Date(1_800_000_050 * 1000),
    });

    const noMeta = eventPayload("charge.refunded", { ...charge, metadata: {} });
    expect((await provider.verifyWebhook(noMeta, signedHeaders(noMeta))).payment?.orderId).toBe("");

    const partial = eventPayload("charge.refunded", { ...charge, amount_refunded: 500, refunded: false });
    const partialEvent = await provider.verifyWebhook(partial, signedHeaders(partial));
    expect(partialEvent.type).toBe("other");
    expect(partialEvent.payment?.status).toBe("captured");
  });

  it("maps unknown event types to other with no payment", async () => {
    const payload = eventPayload("customer.created", { id: "cus_1", object: "customer" });
    const event = await provider.verifyWebhook(payload, signedHeaders(payload));
    expect(event).toMatchObject({ type: "other", rawType: "customer.created", payment: null, eventId: "evt_1" });
  });

  it("rejects a tampered body", async () => {
    const payload = eventPayload("checkout.session.completed", session());
    const headers = signedHeaders(payload);
    const tampered = payload.replace("12550", "1");
    expect(tampered).not.toBe(payload);
    await expect(provider.verifyWebhook(tampered, headers)).rejects.toBeInstanceOf(WebhookSignatureError);
  });

  it("rejects a body re-serialised after signing (raw body required)", async () => {
    const payload = eventPayload("checkout.session.completed", session());
    const headers = signedHeaders(payload);
    await expect(provider.verifyWebhook(JSON.stringify(JSON.parse(payload)), headers)).rejects.toBeInstanceOf(WebhookSignatureError);
  });

  it("rejects a signature made with another secret", async () => {
    const payload = eventPayload("checkout.session.completed", session());
    await expect(provider.verifyWebhook(payload, signedHeaders(payload, { secret: "whsec_other" }))).rejects.toBeInstanceOf(
      WebhookSignatureError,
    );
  });

  it("rejects a missing or malformed header", async () => {
    const payload = eventPayload("checkout.session.completed", session());
    await expect(provider.verifyWebhook(payload, new Headers())).rejects.toBeInstanceOf(WebhookSignatureError);
    await expect(provider.verifyWebhook(payload, new Headers({ "stripe-signature": "garbage" }))).rejects.toBeInstanceOf(
      WebhookSignatureError,
    );
  });

  it("rejects a timestamp older than the tolerance, accepts one inside it", async () => {
    const payload = eventPayload("checkout.session.completed", session());
    const now = Math.floor(Date.now() / 1000);
    await expect(provider.verifyWebhook(payload, signedHeaders(payload, { timestamp: now - 301 }))).rejects.toBeInstanceOf(
      WebhookSignatureError,
    );
    const ok = await provider.verifyWebhook(payload, signedHeaders(payload, { timestamp: now - 200 }));
    expect(ok.type).toBe("payment.captured");
  });

  it("rejects everything when the provider has no webhook secret", async () => {
    const noSecret = new StripeProvider({ secretKey: "sk_test_unused", webhookSecret: "" });
    const payload = eventPayload("checkout.session.completed", session());
    await expect(noSecret.verifyWebhook(payload, signedHeaders(payload))).rejects.toBeInstanceOf(WebhookSignatureError);
  });
});

describe("events of another mode or account", () => {
  const completedWith = (fields: Record<string, unknown>) => {
    const payload = JSON.stringify({ ...(JSON.parse(eventPayload("checkout.session.completed", session(), "evt_foreign")) as Record<string, unknown>), ...fields });
    return { payload, headers: signedHeaders(payload) };
  };

  it("reads the mode from the key: sk_/rk_ test and live; anything else unknown", () => {
    expect([stripeKeyMode("sk_test_x"), stripeKeyMode("rk_test_x"), stripeKeyMode("sk_live_x"), stripeKeyMode("rk_live_x"), stripeKeyMode(""), stripeKeyMode("pk_test_x")]).toEqual([false, false, true, true, null, null]);
  });

  it("refuses a signed live event for a test key and a signed test event for a live key; accepts its own mode", async () => {
    const test = new StripeProvider({ secretKey: "sk_test_unused", webhookSecret: SECRET });
    const live = new StripeProvider({ secretKey: "rk_live_unused", webhookSecret: SECRET });
    const liveEvent = completedWith({ livemode: true });
    const testEvent = completedWith({ livemode: false });
    await expect(test.verifyWebhook(liveEvent.payload, liveEvent.headers)).rejects.toMatchObject({ code: "foreign_webhook", eventId: "evt_foreign", mismatch: { livemode: true, keyLivemode: false, account: null } });
    await expect(live.verifyWebhook(testEvent.payload, testEvent.headers)).rejects.toBeInstanceOf(ForeignWebhookError);
    await expect(test.verifyWebhook(testEvent.payload, testEvent.headers)).resolves.toMatchObject({ type: "payment.captured" });
    await expect(live.verifyWebhook(liveEvent.payload, liveEvent.headers)).resolves.toMatchObject({ type: "payment.captured" });
  });

  it("refuses any event naming a (Connect) account: this deployment has none", async () => {
    const test = new StripeProvider({ secretKey: "sk_test_unused", webhookSecret: SECRET });
    const other = completedWith({ account: "acct_other" });
    await expect(test.verifyWebhook(other.payload, other.headers)).rejects.toMatchObject({ code: "foreign_webhook", mismatch: { account: "acct_other" } });
  });

  it("checks the signature first: a foreign event with a bad signature is a signature error", async () => {
    const test = new StripeProvider({ secretKey: "sk_test_unused", webhookSecret: SECRET });
    const { payload } = completedWith({ livemode: true });
    await expect(test.verifyWebhook(payload, signedHeaders(payload, { secret: "whsec_other" }))).rejects.toBeInstanceOf(WebhookSignatureError);
  });
});

describe("stripeSessionExpiresAt", () => {
  const now = new Date("2027-01-28T18:00:00Z");

  it("pushes a short hold to at least now + 30 min, deterministically from the hold's expiry", () => {
    const hold = new Date(now.getTime() + 15 * MINUTE);
    const sent = stripeSessionExpiresAt(hold, now);
    expect(sent * 1000).toBeGreaterThanOrEqual(now.getTime() + STRIPE_MIN_SESSION_LIFETIME_MS);
    expect(sent * 1000).toBe(hold.getTime() + STRIPE_MIN_SESSION_LIFETIME_MS + STRIPE_SESSION_EXPIRY_SLACK_MS);
    // A retry a little later sends the same value, so Stripe's idempotency check passes.
    expect(stripeSessionExpiresAt(hold, new Date(now.getTime() + 37_000))).toBe(sent);
  });

  it("keeps a long hold's expiry and caps at 24 h", () => {
    const hold = new Date(now.getTime() + 90 * MINUTE);
    expect(stripeSessionExpiresAt(hold, now)).toBe(hold.getTime() / 1000);
    const far = new Date(now.getTime() + 48 * 60 * MINUTE);
    expect(stripeSessionExpiresAt(far, now) * 1000).toBeLessThanOrEqual(now.getTime() + 24 * 60 * MINUTE);
  });

  it("offers the other branch's value as the alternative", () => {
    const long = new Date(now.getTime() + 40 * MINUTE);
    const [chosen, alternative] = stripeSessionExpiryCandidates(long, now);
    expect(chosen).toBe(long.getTime() / 1000);
    expect(alternative * 1000).toBe(long.getTime() + STRIPE_MIN_SESSION_LIFETIME_MS + STRIPE_SESSION_EXPIRY_SLACK_MS);
    // Ten minutes later the same hold is under the threshold: the two swap.
    expect(stripeSessionExpiryCandidates(long, new Date(now.getTime() + 10 * MINUTE))).toEqual([alternative, chosen]);
  });

  it("never goes under now + 30 min even for a hold already in the past", () => {
    const hold = new Date(now.getTime() - 5 * MINUTE);
    expect(stripeSessionExpiresAt(hold, now) * 1000).toBeGreaterThanOrEqual(now.getTime() + STRIPE_MIN_SESSION_LIFETIME_MS);
  });
});

describe("StripeProvider.createCheckoutSession", () => {
  const request = {
    orderId: "ord_abc",
    amountMinor: 12_550,
    currency: "EUR",
    description: "2 tickets — Nova Lights, 28 Jan 2027",
    expiresAt: new Date(Date.now() + 10 * MINUTE),
    returnUrl: "https://stararena.test/orders/ord_abc",
    idempotencyKey: "checkout:ord_abc",
  };

  it("sends minor units, lower-case currency, the order id, the clamped expiry and the idempotency key", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const now = new Date("2027-01-28T18:00:00Z");
    vi.setSystemTime(now);
    const { provider, calls } = fakeStripe({
      "checkout.sessions.create": () => ({ id: "cs_test_new", url: "https://checkout.stripe.com/c/pay/cs_test_new", status: "open" }),
    });
    const hold = new Date(now.getTime() + 10 * MINUTE);
    const result = await provider.createCheckoutSession({ ...request, expiresAt: hold });
    expect(result).toEqual({ id: "cs_test_new", url: "https://checkout.stripe.com/c/pay/cs_test_new" });

    expect(calls).toHaveLength(1);
    const [params, options] = calls[0]!.args as [Stripe.Checkout.SessionCreateParams, Stripe.RequestOptions];
    expect(params).toMatchObject({
      mode: "payment",
      line_items: [{ quantity: 1, price_data: { currency: "eur", unit_amount: 12_550, product_data: { name: request.description } } }],
      client_reference_id: "ord_abc",
      metadata: { orderId: "ord_abc" },
      payment_intent_data: { metadata: { orderId: "ord_abc" } },
      success_url: request.returnUrl,
      cancel_url: request.returnUrl,
      adaptive_pricing: { enabled: false },
    });
    expect(Number.isInteger(params.expires_at)).toBe(true);
    expect(params.expires_at! * 1000).toBeGreaterThanOrEqual(now.getTime() + 30 * MINUTE);
    expect(params.expires_at! * 1000).toBeLessThanOrEqual(now.getTime() + 24 * 60 * MINUTE);
    expect(options).toEqual({ idempotencyKey: "checkout:ord_abc" });

    // The same request retried later sends identical parameters.
    vi.setSystemTime(new Date(now.getTime() + 45_000));
    await provider.createCheckoutSession({ ...request, expiresAt: hold });
    expect(calls[1]!.args).toEqual(calls[0]!.args);
  });

  it("replays with the other expires_at when a long hold crossed the threshold between two calls", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const now = new Date("2027-01-28T18:00:00Z");
    vi.setSystemTime(now);
    const hold = new Date(now.getTime() + 40 * MINUTE);
    const firstSent: number[] = [];
    const { provider, calls } = fakeStripe({
      // Stripe's idempotency check: the key's first parameters win; others are refused.
      "checkout.sessions.create": (params) => {
        const expiresAt = (params as { expires_at: number }).expires_at;
        if (firstSent.length === 0) firstSent.push(expiresAt);
        if (expiresAt !== firstSent[0]) {
          throw new Stripe.errors.StripeIdempotencyError({
            message: "Keys for idempotent requests can only be used with the same parameters they were first used with.",
            statusCode: 400,
            type: "idempotency_error",
          });
        }
        return { id: "cs_long", url: "https://checkout.stripe.com/c/pay/cs_long", status: "open" };
      },
    });
    await provider.createCheckoutSession({ ...request, expiresAt: hold });
    vi.setSystemTime(new Date(now.getTime() + 12 * MINUTE));
    await expect(provider.createCheckoutSession({ ...request, expiresAt: hold })).resolves.toEqual({
      id: "cs_long",
      url: "https://checkout.stripe.com/c/pay/cs_long",
    });
    expect(calls.map((c) => (c.args[0] as { expires_at: number }).expires_at)).toEqual([
      hold.getTime() / 1000,
      hold.getTime() / 1000 + (STRIPE_MIN_SESSION_LIFETIME_MS + STRIPE_SESSION_EXPIRY_SLACK_MS) / 1000,
      hold.getTime() / 1000,
    ]);
  });

  it("refuses a non-integer or non-positive amount without calling Stripe", async () => {
    const { provider, calls } = fakeStripe({});
    for (const amountMinor of [0, -100, 12.5, Number.NaN]) {
      const error = await provider.createCheckoutSession({ ...request, amountMinor }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PaymentProviderError);
      expect((error as PaymentProviderError).retryable).toBe(false);
    }
    expect(calls).toHaveLength(0);
  });

  it("wraps card / invalid-request errors as non-retryable and connection / API / rate-limit errors as retryable", async () => {
    const cases: [Error, boolean][] = [
      [new Stripe.errors.StripeCardError({ message: "declined", statusCode: 402, type: "card_error" }), false],
      [invalidRequest("Invalid currency: xyz"), false],
      [new Stripe.errors.StripeIdempotencyError({ message: "Keys for idempotent requests…", statusCode: 400, type: "idempotency_error" }), false],
      [new Stripe.errors.StripeAuthenticationError({ message: "Invalid API Key", statusCode: 401 }), false],
      [new Stripe.errors.StripeConnectionError({ message: "An error occurred with our connection to Stripe." }), true],
      [new Stripe.errors.StripeAPIError({ message: "Internal error", statusCode: 500, type: "api_error" }), true],
      [new Stripe.errors.StripeRateLimitError({ message: "Too many requests", statusCode: 429 }), true],
    ];
    for (const [thrown, retryable] of cases) {
      const { provider } = fakeStripe({
        "checkout.sessions.create": () => {
          throw thrown;
        },
      });
      const error = await provider.createCheckoutSession(request).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PaymentProviderError);
      expect((error as PaymentProviderError).retryable, (thrown as { type?: string }).type).toBe(retryable);
      expect((error as PaymentProviderError).cause).toBe(thrown);
    }
  });

  it("treats a session without a hosted URL as a non-retryable error", async () => {
    const { provider } = fakeStripe({ "checkout.sessions.create": () => ({ id: "cs_x", url: null, status: "open" }) });
    await expect(provider.createCheckoutSession(request)).rejects.toMatchObject({ name: "PaymentProviderError", retryable: false });
  });
});

describe("StripeProvider.retrievePayment", () => {
  const charge = (overrides: Record<string, unknown> = {}) => ({
    id: "ch_1",
    object: "charge",
    amount: 12_550,
    amount_refunded: 0,
    captured: true,
    created: 1_800_000_050,
    refunded: false,
    ...overrides,
  });
  const intent = (overrides: Record<string, unknown> = {}) => ({
    id: "pi_123",
    object: "payment_intent",
    status: "succeeded",
    latest_charge: charge(),
    ...overrides,
  });

  async function retrieve(answer: Record<string, unknown>) {
    const { provider, calls } = fakeStripe({ "checkout.sessions.retrieve": () => answer });
    const snapshot = await provider.retrievePayment("cs_test_123");
    return { snapshot, calls };
  }

  it("expands the payment intent and its latest charge and maps a paid session to captured", async () => {
    const { snapshot, calls } = await retrieve(session({ payment_intent: intent() }));
    expect(calls[0]!.args[0]).toBe("cs_test_123");
    const expand = (calls[0]!.args[1] as { expand: string[] }).expand;
    expect(expand).toContain("payment_intent");
    expect(expand).toContain("payment_intent.latest_charge");
    expect(snapshot).toEqual({
      checkoutSessionId: "cs_test_123",
      orderId: "ord_abc",
      status: "captured",
      paymentId: "pi_123",
      amountMinor: 12_550,
      currency: "EUR",
      capturedAt: new Date(1_800_000_050 * 1000),
    });
  });

  it("maps open, expired, cancelled, declined and processing sessions", async () => {
    const open = await retrieve(session({ status: "open", payment_status: "unpaid", payment_intent: null }));
    expect(open.snapshot).toMatchObject({ status: "open", paymentId: null, capturedAt: null });

    const expired = await retrieve(
      session({ status: "expired", payment_status: "unpaid", payment_intent: intent({ status: "canceled", latest_charge: null }) }),
    );
    expect(expired.snapshot.status).toBe("expired");

    const cancelled = await retrieve(
      session({ status: "open", payment_status: "unpaid", payment_intent: intent({ status: "canceled", latest_charge: null }) }),
    );
    expect(cancelled.snapshot.status).toBe("cancelled");

    const declined = await retrieve(
      session({ status: "complete", payment_status: "unpaid", payment_intent: intent({ status: "requires_payment_method", latest_charge: null }) }),
    );
    expect(declined.snapshot.status).toBe("declined");

    const processing = await retrieve(
      session({ status: "complete", payment_status: "unpaid", payment_intent: intent({ status: "processing", latest_charge: null }) }),
    );
    expect(processing.snapshot.status).toBe("open");
  });

  it("reports refunded only when the charge is fully refunded", async () => {
    const full = await retrieve(session({ payment_intent: intent({ latest_charge: charge({ refunded: true, amount_refunded: 12_550 }) }) }));
    expect(full.snapshot).toMatchObject({ status: "refunded", paymentId: "pi_123" });

    const partial = await retrieve(session({ payment_intent: intent({ latest_charge: charge({ refunded: false, amount_refunded: 500 }) }) }));
    expect(partial.snapshot.status).toBe("captured");
  });

  it("reports the creation-currency amount when Stripe localized the price", async () => {
    const { snapshot } = await retrieve(
      session({
        currency: "usd",
        amount_total: 13_800,
        currency_conversion: { amount_subtotal: 12_550, amount_total: 12_550, fx_rate: "1.1", source_currency: "eur" },
        payment_intent: intent(),
      }),
    );
    expect(snapshot).toMatchObject({ amountMinor: 12_550, currency: "EUR" });
  });

  it("wraps a missing session as a non-retryable error", async () => {
    const { provider } = fakeStripe({
      "checkout.sessions.retrieve": () => {
        throw new Stripe.errors.StripeInvalidRequestError({ message: "No such checkout.session", statusCode: 404, code: "resource_missing" });
      },
    });
    await expect(provider.retrievePayment("cs_nope")).rejects.toMatchObject({ name: "PaymentProviderError", retryable: false });
  });
});

describe("StripeProvider.cancelCheckout", () => {
  it("expires an open session", async () => {
    const { provider, calls } = fakeStripe({ "checkout.sessions.expire": () => session({ status: "expired" }) });
    await provider.cancelCheckout("cs_test_123");
    expect(calls.map((c) => c.method)).toEqual(["checkout.sessions.expire"]);
    expect(calls[0]!.args[0]).toBe("cs_test_123");
  });

  it("is harmless when Stripe says the session is no longer open", async () => {
    for (const status of ["expired", "complete"]) {
      const { provider, calls } = fakeStripe({
        "checkout.sessions.expire": () => {
          throw invalidRequest(`Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of \`${status}\`.`);
        },
        "checkout.sessions.retrieve": () => session({ status }),
      });
      await expect(provider.cancelCheckout("cs_test_123")).resolves.toBeUndefined();
      expect(calls.map((c) => c.method)).toEqual(["checkout.sessions.expire", "checkout.sessions.retrieve"]);
    }
  });

  it("throws when the session is still open after a refused expire, or Stripe is unreachable", async () => {
    const stillOpen = fakeStripe({
      "checkout.sessions.expire": () => {
        throw invalidRequest("Something else went wrong");
      },
      "checkout.sessions.retrieve": () => session({ status: "open" }),
    });
    await expect(stillOpen.provider.cancelCheckout("cs_test_123")).rejects.toMatchObject({ retryable: false });

    const down = fakeStripe({
      "checkout.sessions.expire": () => {
        throw new Stripe.errors.StripeConnectionError({ message: "ECONNRESET" });
      },
    });
    await expect(down.provider.cancelCheckout("cs_test_123")).rejects.toMatchObject({ name: "PaymentProviderError", retryable: true });
  });
});

describe("StripeProvider.refund", () => {
  const opts = { amountMinor: 12_550, currency: "EUR", reason: "hold expired before payment", idempotencyKey: "refund:ord_abc" };

  it("refunds the payment intent in minor units with the idempotency key", async () => {
    const { provider, calls } = fakeStripe({ "refunds.create": () => ({ id: "re_1", object: "refund", status: "succeeded" }) });
    await expect(provider.refund("pi_123", opts)).resolves.toEqual({ refundId: "re_1" });
    expect(calls[0]!.args).toEqual([
      { payment_intent: "pi_123", amount: 12_550, reason: "requested_by_customer", metadata: { reason: "hold expired before payment" } },
      { idempotencyKey: "refund:ord_abc" },
    ]);
  });

  it("accepts a pending refund and rejects a failed one", async () => {
    const pending = fakeStripe({ "refunds.create": () => ({ id: "re_2", status: "pending" }) });
    await expect(pending.provider.refund("pi_123", opts)).resolves.toEqual({ refundId: "re_2" });
    const failed = fakeStripe({ "refunds.create": () => ({ id: "re_3", status: "failed" }) });
    await expect(failed.provider.refund("pi_123", opts)).rejects.toMatchObject({ retryable: false });
  });

  it("returns the existing refund when the charge was already refunded", async () => {
    const { provider, calls } = fakeStripe({
      "refunds.create": () => {
        throw invalidRequest("Charge ch_1 has already been refunded.", "charge_already_refunded");
      },
      "refunds.list": () => ({ object: "list", data: [{ id: "re_old", status: "succeeded" }], has_more: false }),
    });
    await expect(provider.refund("pi_123", opts)).resolves.toEqual({ refundId: "re_old" });
    expect(calls[1]).toEqual({ method: "refunds.list", args: [{ payment_intent: "pi_123", limit: 100 }] });
  });

  it("wraps other refusals and refuses bad amounts locally", async () => {
    const { provider } = fakeStripe({
      "refunds.create": () => {
        throw invalidRequest("Refund amount (€200.00) is greater than charge amount (€125.50)", "amount_too_large");
      },
    });
    await expect(provider.refund("pi_123", { ...opts, amountMinor: 20_000 })).rejects.toMatchObject({ retryable: false });
    const local = fakeStripe({});
    await expect(local.provider.refund("pi_123", { ...opts, amountMinor: 1.5 })).rejects.toBeInstanceOf(PaymentProviderError);
    expect(local.calls).toHaveLength(0);
  });
});

describe("toPaymentProviderError", () => {
  it("honours Stripe-Should-Retry and 409 in-flight idempotency conflicts", () => {
    const flagged = new Stripe.errors.StripeInvalidRequestError({
      message: "lock timeout",
      statusCode: 400,
      headers: { "stripe-should-retry": "true" },
    });
    expect(toPaymentProviderError(flagged, "x").retryable).toBe(true);
    const conflict = Stripe.errors.StripeError.generate({ message: "in progress", statusCode: 409, type: "idempotency_error" });
    expect(toPaymentProviderError(conflict, "x").retryable).toBe(true);
  });
});

describe("StripeProvider.listLedger", () => {
  const T = 1_800_000_000; // the window: [T, T + 3600)
  const window = { from: new Date(T * 1000), to: new Date((T + 3_600) * 1000) };
  const paid = (id: string, pi: string, capturedAt: number, extra: Record<string, unknown> = {}) =>
    session({ id, payment_intent: { id: pi, object: "payment_intent", status: "succeeded", latest_charge: { id: `ch_${pi}`, object: "charge", created: capturedAt, captured: true, refunded: false, ...extra } }, metadata: { orderId: `ord_${id}` } });

  it("lists paid sessions captured in the window (all pages) and refunds made in it, in minor units", async () => {
    const { provider, calls } = fakeStripe({
      "checkout.sessions.list": (params) => {
        const p = params as { starting_after?: string; payment_intent?: string };
        if (p.payment_intent === "pi_old") return { data: [paid("cs_old", "pi_old", T - 86_000, { refunded: true })], has_more: false };
        if (!p.starting_after) return { data: [paid("cs_a", "pi_a", T + 10), session({ id: "cs_unpaid", payment_status: "unpaid", payment_intent: null })], has_more: true };
        return {
          data: [paid("cs_b", "pi_b", T + 20, { refunded: true, amount_refunded: 12_550 }), paid("cs_c", "pi_c", T + 25, { amount_refunded: 4_500 }), paid("cs_before", "pi_before", T - 100)],
          has_more: false,
        };
      },
      "refunds.list": () => ({
        data: [
          { id: "re_1", object: "refund", payment_intent: "pi_b", status: "succeeded", created: T + 30 },
          { id: "re_2", object: "refund", payment_intent: "pi_old", status: "succeeded", created: T + 40 },
          { id: "re_3", object: "refund", payment_intent: "pi_a", status: "failed", created: T + 50 },
          { id: "re_4", object: "refund", payment_intent: "pi_c", status: "succeeded", created: T + 60, amount: 4_500 },
        ],
        has_more: false,
      }),
    });
    const entries = await provider.listLedger(window);
    expect(entries.map((e) => [e.checkoutSessionId, e.orderId, e.paymentId, e.amountMinor, e.currency, e.capturedAt.getTime() / 1000, e.refundedAt ? e.refundedAt.getTime() / 1000 : null, e.refundId, e.refundedMinor])).toEqual([
      ["cs_a", "ord_cs_a", "pi_a", 12_550, "EUR", T + 10, null, null, 0],
      ["cs_b", "ord_cs_b", "pi_b", 12_550, "EUR", T + 20, T + 30, "re_1", 12_550],
      // Partly refunded (45.00 of 125.50): the rest is still kept money, not a refund of the whole.
      ["cs_c", "ord_cs_c", "pi_c", 12_550, "EUR", T + 25, null, null, 4_500],
      ["cs_old", "ord_cs_old", "pi_old", 12_550, "EUR", T - 86_000, T + 40, "re_2", 12_550],
    ]);
    // Sessions from 24 h before the window (a session pays within its life), completed, expanded, paged.
    const lists = calls.filter((c) => c.method === "checkout.sessions.list").map((c) => c.args[0] as Record<string, unknown>);
    expect(lists[0]).toMatchObject({ created: { gte: T - 86_400, lt: T + 3_600 }, status: "complete", limit: 100, expand: ["data.payment_intent", "data.payment_intent.latest_charge"] });
    expect(lists[1]).toMatchObject({ starting_after: "cs_unpaid" });
    expect(calls.find((c) => c.method === "refunds.list")!.args[0]).toMatchObject({ created: { gte: T, lt: T + 3_600 }, limit: 100 });
  });

  it("wraps a listing failure as a retryable provider error", async () => {
    const { provider } = fakeStripe({ "checkout.sessions.list": () => Promise.reject(new Stripe.errors.StripeConnectionError({ message: "down", type: "api_connection_error" } as never)) });
    await expect(provider.listLedger(window)).rejects.toMatchObject({ name: "PaymentProviderError", retryable: true });
  });
});
