/**
 * The app's payment providers by name. "sandbox" is the built-in test PSP (the default
 * outside production; lib/payments/sandbox/switch.ts);
 * "stripe" needs STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET. Webhooks arrive at
 * /api/payments/webhooks/<name>.
 */
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import type { PaymentProvider } from "@/lib/payments/provider";
import { SandboxProvider } from "@/lib/payments/sandbox/provider";
import { sandboxEnabled } from "@/lib/payments/sandbox/switch";
import { StripeProvider } from "@/lib/payments/stripe";

const cache = new Map<string, PaymentProvider>();

/** Names a webhook URL may carry. */
export const PROVIDER_NAMES = ["sandbox", "stripe"] as const;

/**
 * The provider with that name, or the configured default (PAYMENT_PROVIDER).
 * @returns null for an unknown name, or for "stripe" when it is not configured.
 */
export function paymentProvider(name?: string): PaymentProvider | null {
  const e = env();
  const wanted = name ?? e.PAYMENT_PROVIDER;
  const hit = cache.get(wanted);
  if (hit) return hit;
  let created: PaymentProvider | null = null;
  // The sandbox PSP exists only where it is the configured provider: in production with
  // Stripe, nobody can pay (or sign webhooks) through it.
  if (wanted === "sandbox" && sandboxEnabled()) created = new SandboxProvider();
  if (wanted === "stripe" && e.STRIPE_SECRET_KEY && e.STRIPE_WEBHOOK_SECRET) {
    created = new StripeProvider({ secretKey: e.STRIPE_SECRET_KEY, webhookSecret: e.STRIPE_WEBHOOK_SECRET });
  }
  if (created) cache.set(wanted, created);
  return created;
}

/**
 * The configured provider (PAYMENT_PROVIDER), for taking a payment.
 * @throws {AppError} 503 `payments_not_configured` when it cannot be built here.
 */
export function defaultProvider(): PaymentProvider {
  const provider = paymentProvider();
  if (!provider) throw new AppError("unavailable", "payments_not_configured", "Payments are not configured.");
  return provider;
}
