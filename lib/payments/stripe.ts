/**
 * Stripe implementation of the PSP boundary (docs/design.md, "Payments"): hosted Checkout
 * Sessions, signed webhooks, active queries and refunds, through the official `stripe`
 * SDK (v23, API version pinned by the SDK).
 *
 * Sources: Stripe API reference — Checkout Sessions (create / retrieve / expire),
 * Refunds (create / list), Events and webhook signatures
 * (https://docs.stripe.com/api, https://docs.stripe.com/webhooks/signature) — and the
 * SDK's own type definitions (node_modules/stripe/esm/resources/…).
 *
 * Money: the app passes integer minor units and an upper-case ISO 4217 currency; Stripe
 * takes the same integer minor units (`unit_amount`, `amount`) but a lower-case currency.
 * Every snapshot returned here carries the currency in upper case again.
 */
import Stripe from "stripe";

import {
  ForeignWebhookError,
  PaymentProviderError,
  WebhookSignatureError,
  type CheckoutRequest,
  type CheckoutSession,
  type LedgerEntry,
  type LedgerWindow,
  type PaymentEvent,
  type PaymentProvider,
  type PaymentSnapshot,
} from "@/lib/payments/provider";

/** Stripe's lower bound for a Checkout Session's `expires_at`, measured from creation (30 min, in ms). */
export const STRIPE_MIN_SESSION_LIFETIME_MS = 30 * 60_000;

/** Stripe's upper bound for a Checkout Session's `expires_at`, measured from creation (24 h, in ms). */
const STRIPE_MAX_SESSION_LIFETIME_MS = 24 * 60 * 60_000;

/**
 * Slack added to Stripe's 30-minute minimum (ms), so clock skew between this machine and
 * Stripe plus request latency can never push `expires_at` under the limit (which Stripe
 * rejects with an invalid-request error).
 */
export const STRIPE_SESSION_EXPIRY_SLACK_MS = 2 * 60_000;

/**
 * Maximum accepted age of a webhook signature timestamp, in seconds (Stripe's default,
 * 300 s). Older deliveries are rejected as replays. Note: Stripe's verifier treats 0 as
 * "do not check the timestamp at all", so this must stay positive.
 */
const STRIPE_WEBHOOK_TOLERANCE_SECONDS = 300;

/** Per-request network timeout for the Stripe client this module builds (ms; the SDK's default is 80 s). */
const STRIPE_REQUEST_TIMEOUT_MS = 20_000;

/** Options for {@link StripeProvider}. */
export interface StripeProviderOptions {
  /** Stripe secret API key (`sk_live_…` / `sk_test_…` / restricted `rk_…`). Unused when `stripe` is given. */
  secretKey: string;
  /** Signing secret of the webhook endpoint (`whsec_…`), used to verify `stripe-signature`. */
  webhookSecret: string;
  /** A ready Stripe client; tests inject a fake with only the methods they exercise. */
  stripe?: Stripe;
  /**
   * Whether this account's events are live (true) or test (false); default: the secret key's
   * mode ({@link stripeKeyMode}). Unknown (no recognisable key, no value) checks nothing.
   */
  livemode?: boolean;
}

/**
 * The mode of a Stripe secret or restricted key: `sk_live_…`/`rk_live_…` → true (live),
 * `sk_test_…`/`rk_test_…` → false (test), anything else → null (unknown).
 */
export function stripeKeyMode(secretKey: string): boolean | null {
  const m = /^(?:sk|rk)_(live|test)_/.exec(secretKey);
  return m ? m[1] === "live" : null;
}

/**
 * Computes the `expires_at` (Unix seconds) to send for a Checkout Session whose app-side
 * hold expires at `holdExpiresAt`.
 *
 * Why not just send the hold's expiry: Stripe only accepts `expires_at` between 30 min and
 * 24 h after the session's creation, while holds are usually shorter than 30 min. The
 * hold's expiry is enforced by the app itself (the order job expires the order, releases
 * the seats and calls {@link StripeProvider.cancelCheckout}); Stripe's own expiry is only a
 * backstop, and a payment that lands after the hold expired is caught by the app's
 * guarded transitions and refunded.
 *
 * Rule:
 * - hold ends at least 30 min + slack from now → send the hold's expiry unchanged ("exact");
 * - otherwise → send `holdExpiresAt + 30 min + slack` ("padded"; never less than
 *   now + 30 min + slack).
 *
 * The padded value is deliberately derived from the hold's expiry rather than from "now":
 * a repeat of `createCheckoutSession` with the same idempotency key (the app repeats it on
 * every revisit of the pay page) must send identical parameters, or Stripe answers with an
 * idempotency error. `now + 30 min` would differ between calls; `holdExpiresAt + 30 min`
 * does not. Only a long hold whose repeat call falls on the other side of the 32-minute
 * threshold changes value; `createCheckoutSession` then retries with the other candidate
 * (see {@link stripeSessionExpiryCandidates}). Both values are capped at now + 24 h − slack.
 *
 * @param holdExpiresAt when the app's hold ends.
 * @param now the current time (defaults to the system clock).
 * @returns Unix time in seconds.
 */
export function stripeSessionExpiresAt(holdExpiresAt: Date, now: Date = new Date()): number {
  return stripeSessionExpiryCandidates(holdExpiresAt, now)[0];
}

/**
 * Both possible `expires_at` values for a hold (Unix seconds): `[chosen, alternative]`,
 * where `chosen` is what {@link stripeSessionExpiresAt} returns and `alternative` is the
 * value the other branch of its rule gives (the two can coincide only at the 24 h cap).
 * Note the alternative may be outside Stripe's window; it is only ever sent to replay an
 * earlier request with the same idempotency key.
 */
export function stripeSessionExpiryCandidates(holdExpiresAt: Date, now: Date = new Date()): [number, number] {
  const hold = holdExpiresAt.getTime();
  const nowMs = now.getTime();
  const floor = nowMs + STRIPE_MIN_SESSION_LIFETIME_MS + STRIPE_SESSION_EXPIRY_SLACK_MS;
  const cap = nowMs + STRIPE_MAX_SESSION_LIFETIME_MS - STRIPE_SESSION_EXPIRY_SLACK_MS;
  const toSeconds = (ms: number) => Math.ceil(Math.min(ms, cap) / 1000);
  const exact = toSeconds(hold);
  const padded = toSeconds(Math.max(hold + STRIPE_MIN_SESSION_LIFETIME_MS + STRIPE_SESSION_EXPIRY_SLACK_MS, floor));
  return hold >= floor ? [exact, padded] : [padded, exact];
}

/** A Checkout Session takes payment within its life, at most 24 h after its creation (seconds). */
const SESSION_LIFETIME_SECONDS = STRIPE_MAX_SESSION_LIFETIME_MS / 1000;

/** The fields of an SDK error this module reads (every `Stripe.errors.StripeError` has them). */
interface StripeErrorLike {
  type: string;
  message: string;
  code?: string;
  statusCode?: number;
  requestId?: string;
  headers?: Record<string, string>;
}

/**
 * True for errors raised by the Stripe SDK. Checked by the `type` field (the class name,
 * e.g. "StripeCardError") rather than `instanceof`, because the SDK's errors all report
 * `name === "Error"` and a second copy of the SDK (CJS next to ESM) breaks `instanceof`.
 */
function isStripeError(error: unknown): error is StripeErrorLike {
  if (error instanceof Stripe.errors.StripeError) return true;
  if (typeof error !== "object" || error === null) return false;
  const type = (error as { type?: unknown }).type;
  return typeof type === "string" && type.startsWith("Stripe");
}

/** Error types after which the same request may succeed later. */
const RETRYABLE_ERROR_TYPES = new Set(["StripeConnectionError", "StripeAPIError", "StripeRateLimitError"]);

/**
 * Wraps any error thrown while talking to Stripe into a {@link PaymentProviderError}.
 *
 * Retryable: connection errors, Stripe API (5xx) errors, rate limiting (429), 409
 * (another request with the same idempotency key is still in flight), any 5xx, and
 * anything Stripe flags with `Stripe-Should-Retry: true`. Not retryable: card errors,
 * invalid requests (4xx), idempotency-key misuse, authentication and permission errors.
 * `notFound` only for 404 `resource_missing` (no such object for this account and mode).
 * Errors that did not come from the SDK are treated as retryable (jobs bound their retries).
 *
 * @param operation short name of the call, for the message ("checkout.sessions.create").
 */
export function toPaymentProviderError(error: unknown, operation: string): PaymentProviderError {
  if (error instanceof PaymentProviderError) return error;
  if (isStripeError(error)) {
    const status = error.statusCode;
    const retryable =
      RETRYABLE_ERROR_TYPES.has(error.type) ||
      (status !== undefined && (status >= 500 || status === 429 || status === 409)) ||
      error.headers?.["stripe-should-retry"] === "true";
    const code = error.code ? ` (${error.code})` : "";
    const requestId = error.requestId ? ` [${error.requestId}]` : "";
    // "No such …": the object asked about does not exist for this key's account and mode.
    const notFound = status === 404 && error.code === "resource_missing";
    const wrapped = new PaymentProviderError(`Stripe ${operation} failed: ${error.type}${code}: ${error.message}${requestId}`, retryable, { notFound });
    wrapped.cause = error;
    return wrapped;
  }
  const message = error instanceof Error ? error.message : String(error);
  const wrapped = new PaymentProviderError(`Stripe ${operation} failed: ${message}`, true);
  wrapped.cause = error;
  return wrapped;
}

/** The id of an expandable Stripe field (`"pi_…"` or an expanded object), or null. */
function idOf(value: string | { id: string } | null | undefined): string | null {
  if (value == null) return null;
  return typeof value === "string" ? value : value.id;
}

/** Unix seconds → Date. */
function fromUnixSeconds(seconds: number): Date {
  return new Date(seconds * 1000);
}

/**
 * Amount (minor units) and upper-case currency of a Checkout Session. If Stripe localized
 * the price (Adaptive Pricing, which this module turns off at creation), the amounts in the
 * session's creation currency are used, so they compare with the order's own amount.
 */
function sessionMoney(session: Stripe.Checkout.Session): { amountMinor: number; currency: string } {
  const conversion = session.currency_conversion;
  if (conversion) return { amountMinor: conversion.amount_total, currency: conversion.source_currency.toUpperCase() };
  return { amountMinor: session.amount_total ?? 0, currency: (session.currency ?? "").toUpperCase() };
}

/** The order id stamped on a session at creation (`metadata.orderId`, else `client_reference_id`), or "". */
function sessionOrderId(session: Stripe.Checkout.Session): string {
  return session.metadata?.orderId || session.client_reference_id || "";
}

/** A snapshot of a Checkout Session as carried by a webhook (its payment intent is not expanded there). */
function snapshotFromSession(
  session: Stripe.Checkout.Session,
  status: PaymentSnapshot["status"],
  capturedAt: Date | null,
): PaymentSnapshot {
  return {
    checkoutSessionId: session.id,
    orderId: sessionOrderId(session),
    status,
    paymentId: idOf(session.payment_intent),
    ...sessionMoney(session),
    capturedAt,
  };
}

/**
 * Normalises a verified Stripe event into a {@link PaymentEvent}.
 *
 * - `checkout.session.completed` with `payment_status: "paid"` and
 *   `checkout.session.async_payment_succeeded` → `payment.captured` (capturedAt: the
 *   event's creation time, since the session carries no capture timestamp);
 *   `checkout.session.completed` while still unpaid (a delayed payment method such as a
 *   bank debit is processing) → `other`, with an `open` snapshot;
 * - `checkout.session.async_payment_failed` → `payment.declined`;
 * - `checkout.session.expired` → `checkout.expired`;
 * - `charge.refunded` for a fully refunded charge → `payment.refunded`, with a partial
 *   snapshot (no checkout session id: `""`; orderId from the charge's metadata, which
 *   Stripe copies from the PaymentIntent, else `""`); a partial refund (charge not fully
 *   refunded) → `other` with a `captured` snapshot, because the app only refunds in full;
 * - anything else → `other` with `payment: null`.
 *
 * Amounts are minor units; currencies upper case. The event must already be verified.
 */
function mapStripeEvent(event: Stripe.Event): PaymentEvent {
  const base = { eventId: event.id, rawType: event.type, raw: event as unknown };
  const eventTime = fromUnixSeconds(event.created);
  switch (event.type) {
    case "checkout.session.completed": {
      const session = event.data.object;
      if (session.payment_status === "paid") {
        return { ...base, type: "payment.captured", payment: snapshotFromSession(session, "captured", eventTime) };
      }
      return { ...base, type: "other", payment: snapshotFromSession(session, "open", null) };
    }
    case "checkout.session.async_payment_succeeded":
      return { ...base, type: "payment.captured", payment: snapshotFromSession(event.data.object, "captured", eventTime) };
    case "checkout.session.async_payment_failed":
      return { ...base, type: "payment.declined", payment: snapshotFromSession(event.data.object, "declined", null) };
    case "checkout.session.expired":
      return { ...base, type: "checkout.expired", payment: snapshotFromSession(event.data.object, "expired", null) };
    case "charge.refunded": {
      const charge = event.data.object;
      const payment: PaymentSnapshot = {
        checkoutSessionId: "",
        orderId: charge.metadata?.orderId ?? "",
        status: charge.refunded ? "refunded" : "captured",
        paymentId: idOf(charge.payment_intent),
        amountMinor: charge.amount,
        currency: charge.currency.toUpperCase(),
        capturedAt: charge.captured ? fromUnixSeconds(charge.created) : null,
      };
      return { ...base, type: charge.refunded ? "payment.refunded" : "other", payment };
    }
    default:
      return { ...base, type: "other", payment: null };
  }
}

/**
 * Maps a Checkout Session retrieved with `payment_intent.latest_charge` expanded to the
 * interface's status, in this order of precedence:
 * 1. the latest charge is fully refunded (`refunded: true`) → "refunded";
 * 2. session "complete" and `payment_status` "paid" → "captured";
 * 3. session "expired" → "expired";
 * 4. payment intent "canceled" → "cancelled";
 * 5. session "complete" but unpaid and the payment intent needs a new payment method
 *    (a delayed payment failed) → "declined";
 * 6. anything else (session open, or a delayed payment still processing) → "open".
 * A partially refunded charge stays "captured".
 */
function retrievedStatus(session: Stripe.Checkout.Session): { status: PaymentSnapshot["status"]; charge: Stripe.Charge | null } {
  const intent = typeof session.payment_intent === "object" ? session.payment_intent : null;
  const charge = intent && typeof intent.latest_charge === "object" ? intent.latest_charge : null;
  if (charge?.refunded) return { status: "refunded", charge };
  if (session.status === "complete" && session.payment_status === "paid") return { status: "captured", charge };
  if (session.status === "expired") return { status: "expired", charge };
  if (intent?.status === "canceled") return { status: "cancelled", charge };
  if (session.status === "complete" && intent?.status === "requires_payment_method") return { status: "declined", charge };
  return { status: "open", charge };
}

/**
 * The production PSP: Stripe Checkout (hosted payment page), signed webhooks, active
 * queries, refunds. All methods that call Stripe throw {@link PaymentProviderError}
 * (with `retryable` set as described in {@link toPaymentProviderError});
 * `verifyWebhook` throws {@link WebhookSignatureError}.
 */
export class StripeProvider implements PaymentProvider {
  /** Stored on every payment row. */
  readonly name = "stripe";
  private readonly stripe: Stripe;
  private readonly webhookSecret: string;
  private readonly livemode: boolean | null;

  /**
   * @param options.secretKey Stripe secret key; required unless `options.stripe` is given.
   * @param options.webhookSecret the endpoint's `whsec_…` signing secret.
   * @param options.stripe an existing client (tests inject a fake of Stripe's API here).
   * @throws {Error} when neither a secret key nor a client is given.
   */
  constructor(options: StripeProviderOptions) {
    this.webhookSecret = options.webhookSecret;
    this.livemode = options.livemode ?? stripeKeyMode(options.secretKey);
    if (options.stripe) {
      this.stripe = options.stripe;
    } else {
      if (!options.secretKey) throw new Error("StripeProvider: secretKey is required");
      this.stripe = new Stripe(options.secretKey, {
        maxNetworkRetries: 2,
        timeout: STRIPE_REQUEST_TIMEOUT_MS,
        appInfo: { name: "StarArena" },
      });
    }
  }

  /**
   * Creates a hosted Checkout Session (`mode: "payment"`) for one order: a single line
   * item priced at `amountMinor` (minor units) in the lower-cased currency, the order id in
   * `client_reference_id`, `metadata.orderId` and the PaymentIntent's metadata (so charges
   * and refunds carry it too), `expires_at` per {@link stripeSessionExpiresAt} (replayed
   * once with the other candidate if Stripe reports that the idempotency key was first used
   * with other parameters), success and cancel URLs both set to `returnUrl` (the app reads
   * the outcome from its own order state), Adaptive Pricing off (the fan pays in the
   * order's currency), and the idempotency key as a request option (Stripe keeps keys for
   * 24 h and answers a repeat with the same session).
   *
   * @throws {PaymentProviderError} non-retryable for an invalid amount/currency or a
   *   session without a URL; otherwise as classified by {@link toPaymentProviderError}.
   */
  async createCheckoutSession(request: CheckoutRequest): Promise<CheckoutSession> {
    if (!Number.isSafeInteger(request.amountMinor) || request.amountMinor <= 0) {
      throw new PaymentProviderError(`Invalid amount for Stripe checkout: ${request.amountMinor} (positive integer minor units expected)`, false);
    }
    if (!/^[A-Za-z]{3}$/.test(request.currency)) {
      throw new PaymentProviderError(`Invalid currency for Stripe checkout: ${JSON.stringify(request.currency)}`, false);
    }
    const [expiresAt, alternativeExpiresAt] = stripeSessionExpiryCandidates(request.expiresAt);
    const params: Stripe.Checkout.SessionCreateParams = {
      mode: "payment",
      line_items: [
        {
          quantity: 1,
          price_data: {
            currency: request.currency.toLowerCase(),
            unit_amount: request.amountMinor,
            product_data: { name: request.description || `Order ${request.orderId}` },
          },
        },
      ],
      client_reference_id: request.orderId,
      metadata: { orderId: request.orderId },
      payment_intent_data: { metadata: { orderId: request.orderId } },
      expires_at: expiresAt,
      success_url: request.returnUrl,
      cancel_url: request.returnUrl,
      adaptive_pricing: { enabled: false },
    };
    const options: Stripe.RequestOptions = { idempotencyKey: request.idempotencyKey };
    let session: Stripe.Checkout.Session;
    try {
      session = await this.stripe.checkout.sessions.create(params, options);
    } catch (error) {
      // A repeat whose expires_at crossed the exact/padded threshold since the first call:
      // replay with the other candidate, which is what the first call sent.
      if (!isStripeError(error) || error.type !== "StripeIdempotencyError" || alternativeExpiresAt === expiresAt) {
        throw toPaymentProviderError(error, "checkout.sessions.create");
      }
      try {
        session = await this.stripe.checkout.sessions.create({ ...params, expires_at: alternativeExpiresAt }, options);
      } catch {
        throw toPaymentProviderError(error, "checkout.sessions.create");
      }
    }
    if (!session.url) {
      throw new PaymentProviderError(`Stripe checkout session ${session.id} has no hosted URL (status ${session.status})`, false);
    }
    return { id: session.id, url: session.url };
  }

  /**
   * Verifies a webhook's `stripe-signature` header (HMAC-SHA256 over `${timestamp}.${rawBody}`
   * with the endpoint secret, timestamp at most {@link STRIPE_WEBHOOK_TOLERANCE_SECONDS}
   * old) over the exact raw body, then normalises it with {@link mapStripeEvent}.
   * Uses the SDK's async verifier, which works in Node and edge runtimes alike.
   *
   * @param rawBody the request body exactly as received (`await request.text()`); a
   *   re-serialised JSON body will not verify.
   * A verified event must also be ours: its `livemode` the key's mode, and no `account` (this
   * deployment uses no Stripe Connect, so an event naming a connected account is another
   * account's, e.g. a shared endpoint or a misrouted proxy).
   * @throws {WebhookSignatureError} when the header is missing, malformed, signed with
   *   another secret, too old, or the signed body is not a Stripe event.
   * @throws {ForeignWebhookError} when a verified event is of the other mode or another account.
   */
  async verifyWebhook(rawBody: string, headers: Headers): Promise<PaymentEvent> {
    const signature = headers.get("stripe-signature");
    if (!signature) throw new WebhookSignatureError("Missing stripe-signature header");
    let event: Stripe.Event;
    try {
      event = await Stripe.webhooks.constructEventAsync(rawBody, signature, this.webhookSecret, STRIPE_WEBHOOK_TOLERANCE_SECONDS);
    } catch (error) {
      const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
      throw new WebhookSignatureError(`Stripe webhook signature did not verify: ${reason}`);
    }
    const account = typeof event.account === "string" && event.account ? event.account : null;
    if (this.livemode !== null && event.livemode !== this.livemode) {
      const [got, want] = event.livemode ? ["live", "test"] : ["test", "live"];
      throw new ForeignWebhookError(event.id, event.type, { livemode: event.livemode, keyLivemode: this.livemode, account }, `a ${got}-mode event for a ${want}-mode key`);
    }
    if (account) {
      throw new ForeignWebhookError(event.id, event.type, { livemode: event.livemode, keyLivemode: this.livemode, account }, `an event of account ${account}, and this deployment has no connected accounts`);
    }
    return mapStripeEvent(event);
  }

  /**
   * Active query: retrieves the Checkout Session with `payment_intent` and its
   * `latest_charge` expanded and maps it (see the precedence list on `retrievedStatus`).
   * `paymentId` is the PaymentIntent id (`pi_…`) once one exists; `capturedAt` is the
   * latest charge's creation time when the charge is captured (null otherwise).
   *
   * @throws {PaymentProviderError} e.g. non-retryable for an unknown session id (404).
   */
  async retrievePayment(checkoutSessionId: string): Promise<PaymentSnapshot> {
    let session: Stripe.Checkout.Session;
    try {
      session = await this.stripe.checkout.sessions.retrieve(checkoutSessionId, {
        expand: ["payment_intent", "payment_intent.latest_charge"],
      });
    } catch (error) {
      throw toPaymentProviderError(error, "checkout.sessions.retrieve");
    }
    const { status, charge } = retrievedStatus(session);
    const capturedAt = charge?.captured && (status === "captured" || status === "refunded") ? fromUnixSeconds(charge.created) : null;
    return {
      checkoutSessionId: session.id,
      orderId: sessionOrderId(session),
      status,
      paymentId: idOf(session.payment_intent),
      ...sessionMoney(session),
      capturedAt,
    };
  }

  /**
   * Expires an open Checkout Session (`checkout.sessions.expire`) so it can no longer be
   * paid. Stripe refuses to expire a session that is not open ("Only Checkout Sessions with
   * a status in ["open"] can be expired…", an invalid-request error); in that case this
   * re-reads the session and returns quietly if it is indeed complete or expired.
   * Returning does NOT mean no money was taken: a session that completed first stays
   * paid — call {@link retrievePayment} to find out.
   *
   * @throws {PaymentProviderError} when Stripe cannot be reached, the session does not
   *   exist, or the expire failed while the session is still open.
   */
  async cancelCheckout(checkoutSessionId: string): Promise<void> {
    try {
      await this.stripe.checkout.sessions.expire(checkoutSessionId);
      return;
    } catch (error) {
      if (!isStripeError(error) || error.type !== "StripeInvalidRequestError") {
        throw toPaymentProviderError(error, "checkout.sessions.expire");
      }
      let session: Stripe.Checkout.Session;
      try {
        session = await this.stripe.checkout.sessions.retrieve(checkoutSessionId);
      } catch {
        throw toPaymentProviderError(error, "checkout.sessions.expire");
      }
      if (session.status !== "open") return;
      throw toPaymentProviderError(error, "checkout.sessions.expire");
    }
  }

  /**
   * Refunds a PaymentIntent: `refunds.create({ payment_intent, amount, reason:
   * "requested_by_customer", metadata: { reason } })` with the idempotency key as a request
   * option. `amount` is in minor units; Stripe refunds in the charge's own currency (the
   * `currency` argument is not sent — Stripe only accepts it for customer-balance refunds).
   * If Stripe answers `charge_already_refunded` (a full refund made under another key, or
   * from the Dashboard), the existing succeeded/pending refund's id is returned instead.
   *
   * @returns the Stripe refund id (`re_…`); the refund may still be `pending`.
   * @throws {PaymentProviderError} non-retryable for an invalid amount or a refund Stripe
   *   reports as failed/canceled; otherwise as classified by {@link toPaymentProviderError}.
   */
  async refund(
    paymentId: string,
    opts: { amountMinor: number; currency: string; reason: string; idempotencyKey: string },
  ): Promise<{ refundId: string }> {
    if (!Number.isSafeInteger(opts.amountMinor) || opts.amountMinor <= 0) {
      throw new PaymentProviderError(`Invalid refund amount: ${opts.amountMinor} (positive integer minor units expected)`, false);
    }
    let refund: Stripe.Refund;
    try {
      refund = await this.stripe.refunds.create(
        {
          payment_intent: paymentId,
          amount: opts.amountMinor,
          reason: "requested_by_customer",
          metadata: { reason: opts.reason.slice(0, 500) },
        },
        { idempotencyKey: opts.idempotencyKey },
      );
    } catch (error) {
      if (isStripeError(error) && error.code === "charge_already_refunded") {
        const existing = await this.existingRefund(paymentId);
        if (existing) return { refundId: existing };
      }
      throw toPaymentProviderError(error, "refunds.create");
    }
    if (refund.status === "failed" || refund.status === "canceled") {
      throw new PaymentProviderError(`Stripe refund ${refund.id} for ${paymentId} is ${refund.status}`, false);
    }
    return { refundId: refund.id };
  }

  /**
   * The ledger for a window, from Stripe's list APIs (every page, 100 at a time):
   * 1. Checkout Sessions created from 24 h before the window (a session takes payment
   *    within its life) until its end, `status: complete`, with the payment intent and its
   *    latest charge expanded; a paid one whose charge was captured in the window is an entry;
   * 2. Refunds created in the window (succeeded or pending): their payment is an entry
   *    with `refundedAt`, looked up by payment intent when its capture is older.
   * A charge Stripe reports fully refunded is never listed as kept money, even when its
   * refund is outside the window (its `refundedAt` is then the capture time); a partly
   * refunded one keeps `refundedAt` null with `refundedMinor` from the charge's `amount_refunded`.
   * @throws {PaymentProviderError}
   */
  async listLedger(window: LedgerWindow): Promise<LedgerEntry[]> {
    const from = Math.floor(window.from.getTime() / 1000);
    const to = Math.ceil(window.to.getTime() / 1000);
    const byIntent = new Map<string, LedgerEntry>();
    const entryOf = (session: Stripe.Checkout.Session): LedgerEntry | null => {
      if (session.payment_status !== "paid") return null;
      const intent = typeof session.payment_intent === "object" ? session.payment_intent : null;
      const paymentId = idOf(session.payment_intent);
      const charge = intent && typeof intent.latest_charge === "object" ? intent.latest_charge : null;
      if (!paymentId) return null;
      const capturedAt = fromUnixSeconds(charge?.created ?? session.created);
      return {
        checkoutSessionId: session.id,
        orderId: sessionOrderId(session),
        paymentId,
        ...sessionMoney(session),
        capturedAt,
        refundedAt: charge?.refunded ? capturedAt : null,
        refundId: null,
        refundedMinor: charge?.refunded ? sessionMoney(session).amountMinor : (charge?.amount_refunded ?? 0),
      };
    };
    const expand = ["data.payment_intent", "data.payment_intent.latest_charge"];
    try {
      let startingAfter: string | undefined;
      do {
        const page = await this.stripe.checkout.sessions.list({
          created: { gte: from - SESSION_LIFETIME_SECONDS, lt: to },
          status: "complete",
          limit: 100,
          expand,
          ...(startingAfter ? { starting_after: startingAfter } : {}),
        });
        for (const session of page.data) {
          const entry = entryOf(session);
          const at = entry ? entry.capturedAt.getTime() / 1000 : NaN;
          if (entry && at >= from && at < to) byIntent.set(entry.paymentId, entry);
        }
        startingAfter = page.has_more ? page.data.at(-1)?.id : undefined;
      } while (startingAfter);

      startingAfter = undefined;
      do {
        const page = await this.stripe.refunds.list({ created: { gte: from, lt: to }, limit: 100, ...(startingAfter ? { starting_after: startingAfter } : {}) });
        for (const refund of page.data) {
          const paymentId = idOf(refund.payment_intent);
          if (!paymentId || (refund.status !== "succeeded" && refund.status !== "pending")) continue;
          let entry = byIntent.get(paymentId);
          if (!entry) {
            const found = await this.stripe.checkout.sessions.list({ payment_intent: paymentId, limit: 1, expand });
            const e = found.data[0] ? entryOf(found.data[0]) : null;
            if (!e) continue;
            entry = e;
            byIntent.set(paymentId, entry);
          }
          // A partial refund (the charge not fully refunded) leaves the rest as kept money: only
          // its amount counts (docs/adr/0020); the charge's own amount_refunded is the total.
          if (entry.refundedMinor < entry.amountMinor) continue;
          entry.refundedAt = fromUnixSeconds(refund.created);
          entry.refundId = refund.id;
        }
        startingAfter = page.has_more ? page.data.at(-1)?.id : undefined;
      } while (startingAfter);
    } catch (error) {
      throw toPaymentProviderError(error, "ledger list");
    }
    return [...byIntent.values()];
  }

  /** The id of a succeeded (preferred) or pending refund of `paymentId`, or null. */
  private async existingRefund(paymentId: string): Promise<string | null> {
    let refunds: Stripe.Refund[];
    try {
      refunds = (await this.stripe.refunds.list({ payment_intent: paymentId, limit: 100 })).data;
    } catch (error) {
      throw toPaymentProviderError(error, "refunds.list");
    }
    const found = refunds.find((r) => r.status === "succeeded") ?? refunds.find((r) => r.status === "pending");
    return found?.id ?? null;
  }
}
