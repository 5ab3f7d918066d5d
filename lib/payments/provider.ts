/**
 * The payment service provider (PSP) boundary (docs/design.md, "Payments"). The app talks to
 * a PSP only through this interface; implementations: the built-in sandbox PSP
 * (development, tests, simulator) and Stripe (production).
 *
 * Money is always an integer amount of minor units (cents) plus an ISO 4217 currency
 * in upper case.
 */
import { AppError } from "@/lib/errors";

/** What the app asks the PSP to charge for one order. */
export interface CheckoutRequest {
  orderId: string;
  amountMinor: number;
  currency: string;
  /** Shown on the PSP's page, e.g. "2 tickets — Nova Lights, 28 Jan 2027". */
  description: string;
  /** The PSP's session must stop accepting payment at this instant (the hold's expiry). */
  expiresAt: Date;
  /** Where the PSP sends the fan back after paying or cancelling. */
  returnUrl: string;
  /** Idempotency key: the same key returns the same session instead of a second one. */
  idempotencyKey: string;
}

/** A checkout session created at the PSP. */
export interface CheckoutSession {
  /** The PSP's session id (Stripe: cs_…, sandbox: sbx_cs_…). */
  id: string;
  /** The hosted payment page to send the fan to. */
  url: string;
}

/** The PSP's view of one checkout: from an active query, its ledger, or (as a hint only) a verified webhook. */
export interface PaymentSnapshot {
  checkoutSessionId: string;
  orderId: string;
  /** "open": not paid yet; "captured": money taken; "declined"/"expired"/"cancelled": no money; "refunded": given back. */
  status: "open" | "captured" | "declined" | "expired" | "cancelled" | "refunded";
  /** The PSP's payment id once a payment exists (Stripe PaymentIntent pi_…, sandbox sbx_pay_…). */
  paymentId: string | null;
  amountMinor: number;
  currency: string;
  /** When the capture happened, if it did. */
  capturedAt: Date | null;
}

/** A verified webhook event, normalised. */
export interface PaymentEvent {
  /** The PSP's own event id: stored under a unique constraint so replays have no effect. */
  eventId: string;
  type: "payment.captured" | "payment.declined" | "checkout.expired" | "payment.refunded" | "other";
  /** The PSP's raw type string, e.g. "checkout.session.completed". */
  rawType: string;
  payment: PaymentSnapshot | null;
  /** The payload as received (stored for audit). */
  raw: unknown;
}

/**
 * One payment as the PSP's own ledger records it: money it captured for a checkout, and
 * whether it gave the money back. Reconciliation compares these with the app's payments,
 * orders and tickets in both directions (lib/reconciliation/ledger.ts, docs/adr/0010).
 * Amounts in minor units, currency ISO 4217 upper case.
 */
export interface LedgerEntry {
  checkoutSessionId: string;
  /** The app's order id as the PSP recorded it when the checkout was created ("" if it does not say). */
  orderId: string;
  /** The PSP's payment id (Stripe PaymentIntent pi_…, sandbox sbx_pay_…). */
  paymentId: string;
  amountMinor: number;
  currency: string;
  capturedAt: Date;
  /** When the PSP refunded it in full; null while it keeps (some of) the money. */
  refundedAt: Date | null;
  refundId: string | null;
  /**
   * Minor units given back so far, partial refunds included (equal to `amountMinor` once
   * refunded in full). The money the PSP keeps is `amountMinor − refundedMinor`.
   */
  refundedMinor: number;
}

/** A ledger window: captures or refunds at or after `from` and before `to`. */
export interface LedgerWindow {
  from: Date;
  to: Date;
}

/** Raised when a webhook's signature does not verify: 401 `bad_signature`. */
export class WebhookSignatureError extends AppError {
  constructor(message = "Webhook signature did not verify") {
    super("unauthorized", "bad_signature", message);
  }
}

/**
 * Raised for a correctly signed webhook that is not for this deployment's PSP account: another
 * mode (a live event for a test key, or the reverse) or another account (Stripe Connect). It is
 * refused with 422 `foreign_webhook`; the shared webhook handling records it as a discrepancy.
 * `detail` says what did not match (no personal data).
 */
export class ForeignWebhookError extends AppError {
  constructor(
    readonly eventId: string,
    readonly eventType: string,
    readonly mismatch: Record<string, string | boolean | null>,
    reason: string,
  ) {
    super("unprocessable", "foreign_webhook", `This webhook is not for this payment account: ${reason}.`);
  }
}

/**
 * Raised when the PSP refuses or cannot be reached; `retryable` tells jobs whether to try
 * again. A person reads that the provider is not answering (503 `psp_unavailable`) or
 * refused (502 `psp_refused`); the PSP's own words are in `detail`, for the log.
 * `notFound` is set only when the PSP answered that the object asked about does not exist
 * there (Stripe: 404 `resource_missing`; the sandbox: `not_found`) — the one refusal that
 * says a webhook named nothing real. Any other refusal (a rotated or revoked key, a missing
 * permission) says nothing about the checkout.
 */
export class PaymentProviderError extends AppError {
  readonly notFound: boolean;
  constructor(
    detail: string,
    readonly retryable: boolean,
    opts: { notFound?: boolean } = {},
  ) {
    super(
      retryable ? "unavailable" : "bad_gateway",
      retryable ? "psp_unavailable" : "psp_refused",
      retryable ? "The payment provider is not answering right now. Please try again in a moment." : "The payment provider refused this request.",
      { detail, retryAfter: retryable ? 5 : undefined },
    );
    this.notFound = !retryable && opts.notFound === true;
  }
}

/** One PSP. */
export interface PaymentProvider {
  /** "sandbox" or "stripe"; stored on every payment row. */
  readonly name: string;
  /** Creates (or, for a repeated idempotency key, returns) a hosted checkout session. @throws {PaymentProviderError} */
  createCheckoutSession(request: CheckoutRequest): Promise<CheckoutSession>;
  /**
   * Verifies a webhook over its exact raw body and parses it. The event is a hint: the app
   * applies only what {@link retrievePayment} then says (lib/payments/webhooks.ts).
   * @throws {WebhookSignatureError} when the signature is missing, wrong or too old.
   * @throws {ForeignWebhookError} when it is signed but for another account or mode.
   */
  verifyWebhook(rawBody: string, headers: Headers): Promise<PaymentEvent>;
  /** Active query: the PSP's current view of a checkout session. @throws {PaymentProviderError} */
  retrievePayment(checkoutSessionId: string): Promise<PaymentSnapshot>;
  /** Expires / cancels an open checkout so it can no longer be paid. Harmless if already closed. */
  cancelCheckout(checkoutSessionId: string): Promise<void>;
  /**
   * Refunds `amountMinor` of a captured payment: all that remains (a full refund) or less (a
   * partial refund, e.g. some tickets of an order; docs/adr/0020). Idempotent per
   * `idempotencyKey`: the same key never refunds twice.
   * @returns the PSP's refund id.
   * @throws {PaymentProviderError}
   */
  refund(paymentId: string, opts: { amountMinor: number; currency: string; reason: string; idempotencyKey: string }): Promise<{ refundId: string }>;
  /**
   * The PSP's ledger for a window: every payment captured or refunded in it, from the PSP's
   * own records (all pages). An entry whose capture is older than the window appears when
   * its refund falls inside it.
   * @throws {PaymentProviderError}
   */
  listLedger(window: LedgerWindow): Promise<LedgerEntry[]>;
}
