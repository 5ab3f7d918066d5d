/**
 * The sandbox PSP's hosted pay page (/sandbox-psp/checkout/<id>): what the fan sees after
 * the app hands them to the PSP. Shows the amount (from minor units), the description and
 * the expiry, with "Approve payment" / "Decline"; both return the fan to the merchant.
 * Unknown, expired, closed and already-paid checkouts get a clear message instead.
 * Thin: all rules live in lib/payments/sandbox/psp.ts.
 */
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { formatMoney } from "@/lib/format";
import { effectiveFaults, findCheckout, isPastExpiry, returnUrlFor, sandboxCheckoutIdSchema, type SandboxCheckout } from "@/lib/payments/sandbox/psp";
import { sandboxEnabled } from "@/lib/payments/sandbox/switch";
import { approveCheckout, declineCheckout } from "./actions";

export const dynamic = "force-dynamic";

export const metadata: Metadata = {
  title: "Sandbox PSP checkout",
  robots: { index: false, follow: false },
};

const utc = new Intl.DateTimeFormat("en-GB", {
  day: "numeric",
  month: "short",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  timeZone: "UTC",
  timeZoneName: "short",
});

function Banner() {
  return (
    <p className="rounded-md border border-amber-400/60 bg-amber-400/10 px-3 py-2 text-sm font-semibold text-amber-200" data-testid="sandbox-banner">
      StarArena Sandbox PSP — test payments only. No real money moves.
    </p>
  );
}

function Shell({ children }: { children: ReactNode }) {
  return (
    <div className="mx-auto max-w-md space-y-6" data-testid="sandbox-checkout">
      <Banner />
      {children}
    </div>
  );
}

function Notice({ title, body, checkout, testId }: { title: string; body: string; checkout?: SandboxCheckout; testId: string }) {
  return (
    <Shell>
      <section className="space-y-3 rounded-lg border border-white/10 bg-white/5 p-5" data-testid={testId}>
        <h1 className="text-2xl font-bold">{title}</h1>
        <p className="text-white/80">{body}</p>
        {checkout && (
          <a href={returnUrlFor(checkout)} className="inline-block underline">
            Return to the shop
          </a>
        )}
      </section>
    </Shell>
  );
}

function minutesLeft(expiresAt: Date, now: Date): string {
  const minutes = Math.max(0, Math.floor((expiresAt.getTime() - now.getTime()) / 60_000));
  return minutes < 1 ? "less than a minute" : minutes === 1 ? "1 minute" : `${minutes} minutes`;
}

export default async function SandboxCheckoutPage({ params }: PageProps<"/sandbox-psp/checkout/[id]">) {
  // With another payment provider the sandbox PSP does not exist (lib/payments/sandbox/switch.ts).
  if (!sandboxEnabled()) notFound();
  const { id } = await params;
  const parsed = sandboxCheckoutIdSchema.safeParse(id);
  const checkout = parsed.success ? await findCheckout(parsed.data) : null;
  if (!checkout) {
    return <Notice testId="checkout-unknown" title="Unknown checkout" body="The sandbox PSP has no checkout at this address. Start again from the shop." />;
  }

  const now = new Date();
  const amount = formatMoney(checkout.amountMinor, checkout.currency);
  switch (checkout.status) {
    case "captured":
      return <Notice testId="checkout-paid" checkout={checkout} title="Already paid" body={`This checkout was paid (${amount}). You will not be charged again.`} />;
    case "refunded":
      return <Notice testId="checkout-refunded" checkout={checkout} title="Paid and refunded" body={`This payment of ${amount} was refunded.`} />;
    case "declined":
      return <Notice testId="checkout-declined" checkout={checkout} title="Payment declined" body="This payment was declined. Return to the shop to try again." />;
    case "cancelled":
      return <Notice testId="checkout-cancelled" checkout={checkout} title="Checkout cancelled" body="The shop cancelled this checkout; it can no longer be paid." />;
    case "expired":
      return <Notice testId="checkout-expired" checkout={checkout} title="Checkout expired" body={`This checkout expired at ${utc.format(checkout.expiresAt)}; it can no longer be paid.`} />;
    case "open":
      break;
  }

  const faults = await effectiveFaults(checkout.id);
  if (isPastExpiry(checkout, now) && !faults.captureAfterExpiry) {
    return <Notice testId="checkout-expired" checkout={checkout} title="Checkout expired" body={`This checkout expired at ${utc.format(checkout.expiresAt)}; it can no longer be paid.`} />;
  }
  const activeKnobs = [
    faults.decline && "approve declines",
    faults.slowApprovalMs > 0 && `approval takes ${(faults.slowApprovalMs / 1000).toFixed(1)} s (simulated 3-D Secure)`,
    faults.drop && "capture webhook dropped",
    faults.duplicate > 0 && `webhooks sent ${faults.duplicate + 1}×`,
    faults.reorder && "webhooks reordered",
    faults.failWebhookTimes > 0 && `first ${faults.failWebhookTimes} webhook attempts fail`,
    faults.captureAfterExpiry && "captures after expiry",
    faults.webhookDelayMs !== 200 && `webhooks delayed ${faults.webhookDelayMs} ms`,
  ].filter((k): k is string => Boolean(k));

  return (
    <Shell>
      <section className="space-y-4 rounded-lg border border-white/10 bg-white/5 p-5">
        <h1 className="text-2xl font-bold">Pay</h1>
        <p className="text-4xl font-bold tabular-nums" data-testid="checkout-amount">
          {amount}
        </p>
        <p className="text-white/80" data-testid="checkout-description">
          {checkout.description}
        </p>
        <p className="text-sm text-white/60" data-testid="checkout-expiry">
          {isPastExpiry(checkout, now)
            ? `Expired at ${utc.format(checkout.expiresAt)} (late capture allowed by a sandbox knob)`
            : `Expires in ${minutesLeft(checkout.expiresAt, now)} (${utc.format(checkout.expiresAt)})`}
        </p>
        <div className="flex gap-3 pt-2">
          <form action={approveCheckout}>
            <input type="hidden" name="checkoutId" value={checkout.id} />
            <button type="submit" className="rounded-md bg-emerald-600 px-4 py-2 font-semibold hover:bg-emerald-500" data-testid="approve-payment">
              Approve payment
            </button>
          </form>
          <form action={declineCheckout}>
            <input type="hidden" name="checkoutId" value={checkout.id} />
            <button type="submit" className="rounded-md border border-white/20 px-4 py-2 font-semibold hover:bg-white/10" data-testid="decline-payment">
              Decline
            </button>
          </form>
        </div>
      </section>
      {activeKnobs.length > 0 && (
        <p className="text-xs text-white/50" data-testid="checkout-knobs">
          Sandbox knobs in effect: {activeKnobs.join(" · ")}
        </p>
      )}
      <p className="text-xs text-white/40">Checkout {checkout.id} · order {checkout.orderId}</p>
    </Shell>
  );
}
