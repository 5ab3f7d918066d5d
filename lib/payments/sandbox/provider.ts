/**
 * The app's side of the sandbox PSP: {@link SandboxProvider} implements the
 * {@link PaymentProvider} boundary on top of lib/payments/sandbox/psp.ts.
 *
 * It calls the PSP's functions in-process (same database server, the PSP's own
 * `sandbox_psp` tables), which stands in for the HTTPS API an outside PSP would offer.
 * Everything the PSP tells the app on its own initiative arrives as a signed webhook,
 * verified here:
 *   `x-sandbox-signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<rawBody>">`
 * with a 5-minute tolerance (either direction) and a constant-time comparison.
 */
import { timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { env } from "@/lib/env";
import {
  PaymentProviderError,
  WebhookSignatureError,
  type CheckoutRequest,
  type CheckoutSession,
  type LedgerEntry,
  type LedgerWindow,
  type PaymentEvent,
  type PaymentProvider,
  type PaymentSnapshot,
} from "../provider";
import * as psp from "./psp";

/** Default signature tolerance: 5 minutes, in seconds. */
const SANDBOX_SIGNATURE_TOLERANCE_SECONDS = 300;

/** Longest id the sandbox PSP issues or the app names (ours are ~30 characters): a longer one is refused before any lookup or storage. */
const MAX_ID = 100;
const id = z.string().min(1).max(MAX_ID);

const checkoutResourceSchema = z.object({
  id,
  order_id: id,
  status: z.enum(["open", "captured", "declined", "expired", "cancelled", "refunded"]),
  amount_minor: z.number().int(),
  currency: z.string().max(8),
  payment_id: id.nullable(),
  captured_at: z.string().max(40).nullable(),
});

const webhookPayloadSchema = z.object({
  id,
  type: z.string().min(1).max(MAX_ID),
  data: z.object({ checkout: checkoutResourceSchema }).optional(),
});

const KNOWN_TYPES = new Set<PaymentEvent["type"]>(["payment.captured", "payment.declined", "checkout.expired", "payment.refunded"]);

/** Maps the PSP's record to the app's {@link PaymentSnapshot}. */
function toPaymentSnapshot(c: psp.SandboxCheckout): PaymentSnapshot {
  return {
    checkoutSessionId: c.id,
    orderId: c.orderId,
    status: c.status,
    paymentId: c.paymentId,
    amountMinor: c.amountMinor,
    currency: c.currency,
    capturedAt: c.capturedAt,
  };
}

/** Turns PSP-side failures into {@link PaymentProviderError}: refusals are final (an unknown id is `notFound`), database trouble is retryable. */
function providerError(error: unknown): PaymentProviderError {
  if (error instanceof PaymentProviderError) return error;
  if (error instanceof psp.SandboxPspError) return new PaymentProviderError(`Sandbox PSP: ${error.message}`, false, { notFound: error.code === "not_found" });
  const message = error instanceof Error ? error.message : String(error);
  return new PaymentProviderError(`Sandbox PSP unavailable: ${message}`, true);
}

async function call<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw providerError(error);
  }
}

/** Options of {@link SandboxProvider}; all optional (tests use them). */
export interface SandboxProviderOptions {
  /** Webhook secret (default: {@link psp.SANDBOX_WEBHOOK_SECRET}, read at verification time). */
  secret?: string;
  /** Accepted clock skew / age of a signature, seconds (default 300). */
  toleranceSeconds?: number;
  /** Current time in ms (default `Date.now`). */
  now?: () => number;
}

/**
 * The sandbox PSP as seen by the app (name `"sandbox"`). Checkout URLs point at the hosted
 * pay page `${APP_URL}/sandbox-psp/checkout/<id>`.
 */
export class SandboxProvider implements PaymentProvider {
  readonly name = "sandbox";

  constructor(private readonly opts: SandboxProviderOptions = {}) {}

  /**
   * Opens (or, for a repeated idempotency key, returns) a sandbox checkout.
   * @throws {PaymentProviderError} not retryable for bad input or a reused key with different
   *   order/amount/currency; retryable when the PSP's database cannot be reached.
   */
  async createCheckoutSession(request: CheckoutRequest): Promise<CheckoutSession> {
    const checkout = await call(() => psp.createCheckout(request));
    return { id: checkout.id, url: `${env().APP_URL.replace(/\/+$/, "")}/sandbox-psp/checkout/${checkout.id}` };
  }

  /**
   * Verifies `x-sandbox-signature` over the exact raw body and parses the event.
   * Types `payment.captured`, `payment.declined`, `checkout.expired`, `payment.refunded` map
   * one to one; anything else is `"other"`. `payment` is the checkout as it was when the
   * event happened (a snapshot, not the current state).
   * @throws {WebhookSignatureError} when the header is missing or malformed, the timestamp is
   *   more than the tolerance away from now, no `v1` matches, or the body is not a sandbox event.
   */
  async verifyWebhook(rawBody: string, headers: Headers): Promise<PaymentEvent> {
    const header = headers.get(psp.SANDBOX_SIGNATURE_HEADER);
    if (!header) throw new WebhookSignatureError(`Missing ${psp.SANDBOX_SIGNATURE_HEADER} header`);

    let timestamp: number | undefined;
    const signatures: string[] = [];
    for (const part of header.split(",")) {
      const eq = part.indexOf("=");
      if (eq < 0) continue;
      const key = part.slice(0, eq).trim();
      const value = part.slice(eq + 1).trim();
      if (key === "t" && /^\d{1,12}$/.test(value)) timestamp = Number(value);
      else if (key === "v1") signatures.push(value);
    }
    if (timestamp === undefined) throw new WebhookSignatureError("Signature header has no valid timestamp (t=)");
    if (signatures.length === 0) throw new WebhookSignatureError("Signature header has no v1 signature");

    const nowSeconds = Math.floor((this.opts.now ?? Date.now)() / 1000);
    const tolerance = this.opts.toleranceSeconds ?? SANDBOX_SIGNATURE_TOLERANCE_SECONDS;
    if (Math.abs(nowSeconds - timestamp) > tolerance) {
      throw new WebhookSignatureError(`Signature timestamp is outside the ${tolerance} s tolerance`);
    }

    const expected = Buffer.from(psp.computeSandboxSignature(rawBody, timestamp, this.opts.secret ?? psp.SANDBOX_WEBHOOK_SECRET()), "hex");
    const matches = signatures.some((sig) => {
      if (!/^[0-9a-f]+$/i.test(sig)) return false;
      const given = Buffer.from(sig, "hex");
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
    if (!matches) throw new WebhookSignatureError("Webhook signature did not verify");

    let raw: unknown;
    try {
      raw = JSON.parse(rawBody);
    } catch {
      throw new WebhookSignatureError("Signed webhook body is not JSON");
    }
    const parsed = webhookPayloadSchema.safeParse(raw);
    if (!parsed.success) throw new WebhookSignatureError("Signed webhook body is not a sandbox PSP event");

    const { id, type, data } = parsed.data;
    const c = data?.checkout;
    const capturedAt = c?.captured_at ? new Date(c.captured_at) : null;
    return {
      eventId: id,
      type: KNOWN_TYPES.has(type as PaymentEvent["type"]) ? (type as PaymentEvent["type"]) : "other",
      rawType: type,
      payment: c
        ? {
            checkoutSessionId: c.id,
            orderId: c.order_id,
            status: c.status,
            paymentId: c.payment_id,
            amountMinor: c.amount_minor,
            currency: c.currency,
            capturedAt: capturedAt && !Number.isNaN(capturedAt.getTime()) ? capturedAt : null,
          }
        : null,
      raw,
    };
  }

  /**
   * Active query: the PSP's current record of the checkout.
   * @throws {PaymentProviderError} not retryable for an unknown id; retryable on database trouble.
   */
  async retrievePayment(checkoutSessionId: string): Promise<PaymentSnapshot> {
    return toPaymentSnapshot(await call(() => psp.retrieve(checkoutSessionId)));
  }

  /**
   * Cancels an open checkout (→ `cancelled`, a `checkout.expired` webhook follows). Harmless
   * when it is already closed or paid.
   * @throws {PaymentProviderError} not retryable for an unknown id; retryable on database trouble.
   */
  async cancelCheckout(checkoutSessionId: string): Promise<void> {
    await call(() => psp.cancel(checkoutSessionId));
  }

  /**
   * Refunds `amountMinor` of a captured payment (all that remains, or part of it); idempotent per key (a second call returns the same refund id).
   * @throws {PaymentProviderError} not retryable for an unknown payment, one never captured,
   *   or an amount/currency that is not the full payment; retryable on database trouble.
   */
  async refund(
    paymentId: string,
    opts: { amountMinor: number; currency: string; reason: string; idempotencyKey: string },
  ): Promise<{ refundId: string }> {
    const { refundId } = await call(() =>
      psp.refund(paymentId, opts.idempotencyKey, { amountMinor: opts.amountMinor, currency: opts.currency, reason: opts.reason }),
    );
    return { refundId };
  }

  /**
   * The sandbox's ledger for a window, through its list API ({@link psp.listLedgerRecords}),
   * page after page of the largest size it serves (1,000). A payment refunded again while the
   * pages are read may be listed twice; it is returned once, as last listed.
   * @throws {PaymentProviderError} retryable on database trouble.
   */
  async listLedger(window: LedgerWindow): Promise<LedgerEntry[]> {
    const entries = new Map<string, LedgerEntry>();
    let after: string | null = null;
    do {
      const page: psp.SandboxPaymentPage<psp.SandboxLedgerRecord> = await call(() => psp.listLedgerRecords({ ...window, limit: 1_000, after }));
      for (const c of page.data) {
        if (!c.paymentId || !c.capturedAt) continue;
        entries.delete(c.id); // a record listed again goes where its latest state was listed
        entries.set(c.id, {
          checkoutSessionId: c.id,
          orderId: c.orderId,
          paymentId: c.paymentId,
          amountMinor: c.amountMinor,
          currency: c.currency,
          capturedAt: c.capturedAt,
          refundedAt: c.status === "refunded" ? c.refundedAt : null,
          refundId: c.status === "refunded" ? c.refundId : null,
          refundedMinor: c.status === "refunded" ? c.amountMinor : c.refundedMinor,
        });
      }
      after = page.nextAfter;
    } while (after);
    return [...entries.values()];
  }
}
