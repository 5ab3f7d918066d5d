/**
 * The sandbox PSP's hosted pay page (/sandbox-psp/checkout/<id>): what the fan sees after
 * the app hands them to the PSP. Shows the amount (from minor units), the description and
 * the expiry, with "Approve payment" / "Decline"; both return the fan to the merchant.
 * Unknown, expired, closed and already-paid checkouts get a clear message instead.
 * Thin: all rules live in lib/payments/sandbox/psp.ts.
 */
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getTranslations, setRequestLocale } from "next-intl/server";
import type { ReactNode } from "react";
import { Countdown } from "@/components/countdown";
import { databaseNow } from "@/lib/clock";
import { db } from "@/lib/db";
import { formatMoney } from "@/lib/format";
import { intlLocale, type Locale } from "@/lib/i18n/config";
import { effectiveFaults, findCheckout, isPastExpiry, returnUrlFor, sandboxCheckoutIdSchema, type SandboxCheckout } from "@/lib/payments/sandbox/psp";
import { sandboxEnabled } from "@/lib/payments/sandbox/switch";
import { approveCheckout, declineCheckout } from "./actions";

export const dynamic = "force-dynamic";

export async function generateMetadata({ params }: PageProps<"/[locale]/sandbox-psp/checkout/[id]">): Promise<Metadata> {
  const t = await getTranslations({ locale: (await params).locale as Locale, namespace: "Psp" });
  return { title: t("title"), robots: { index: false, follow: false } };
}

type PspWords = Awaited<ReturnType<typeof getTranslations<"Psp">>>;

function Shell({ t, children }: { t: PspWords; children: ReactNode }) {
  return (
    <div className="mx-auto max-w-md space-y-6" data-testid="sandbox-checkout">
      <p className="rounded-md border border-amber-400/60 bg-amber-400/10 px-3 py-2 text-sm font-semibold text-amber-200" data-testid="sandbox-banner">
        {t("banner")}
      </p>
      {children}
    </div>
  );
}

function Notice({ t, title, body, checkout, testId }: { t: PspWords; title: string; body: string; checkout?: SandboxCheckout; testId: string }) {
  return (
    <Shell t={t}>
      <section className="space-y-3 rounded-lg border border-white/10 bg-white/5 p-5" data-testid={testId}>
        <h1 className="text-2xl font-bold">{title}</h1>
        <p className="text-white/80">{body}</p>
        {checkout && (
          <a href={returnUrlFor(checkout)} className="inline-block underline">
            {t("returnToShop")}
          </a>
        )}
      </section>
    </Shell>
  );
}

/**
 * The pay page. Its times are relative (a live countdown to the checkout's expiry), the one
 * time rule of issue 16: the PSP does not know the venue's zone, and "expires in 4:12" needs none.
 */
export default async function SandboxCheckoutPage({ params }: PageProps<"/[locale]/sandbox-psp/checkout/[id]">) {
  // With another payment provider the sandbox PSP does not exist (lib/payments/sandbox/switch.ts).
  if (!sandboxEnabled()) notFound();
  const { id, locale } = (await params) as { id: string; locale: Locale };
  setRequestLocale(locale);
  const t = await getTranslations("Psp");
  const time = await getTranslations("Time");
  const parsed = sandboxCheckoutIdSchema.safeParse(id);
  const checkout = parsed.success ? await findCheckout(parsed.data) : null;
  if (!checkout) {
    return <Notice t={t} testId="checkout-unknown" title={t("unknownTitle")} body={t("unknownBody")} />;
  }

  // Past its expiry by the PSP's own clock (its database's, as approve decides), not this process's.
  const now = await databaseNow(db());
  const amount = formatMoney(checkout.amountMinor, checkout.currency, intlLocale(locale));
  switch (checkout.status) {
    case "captured":
      return <Notice t={t} testId="checkout-paid" checkout={checkout} title={t("paidTitle")} body={t("paidBody", { amount })} />;
    case "refunded":
      return <Notice t={t} testId="checkout-refunded" checkout={checkout} title={t("refundedTitle")} body={t("refundedBody", { amount })} />;
    case "declined":
      return <Notice t={t} testId="checkout-declined" checkout={checkout} title={t("declinedTitle")} body={t("declinedBody")} />;
    case "cancelled":
      return <Notice t={t} testId="checkout-cancelled" checkout={checkout} title={t("cancelledTitle")} body={t("cancelledBody")} />;
    case "expired":
      return <Notice t={t} testId="checkout-expired" checkout={checkout} title={t("expiredTitle")} body={t("expiredBody")} />;
    case "open":
      break;
  }

  const faults = await effectiveFaults(checkout.id);
  if (isPastExpiry(checkout, now) && !faults.captureAfterExpiry) {
    return <Notice t={t} testId="checkout-expired" checkout={checkout} title={t("expiredTitle")} body={t("expiredBody")} />;
  }
  const activeKnobs = [
    faults.decline && t("knobDecline"),
    faults.slowApprovalMs > 0 && t("knobSlow", { seconds: (faults.slowApprovalMs / 1000).toFixed(1) }),
    faults.drop && t("knobDrop"),
    faults.duplicate > 0 && t("knobDuplicate", { times: faults.duplicate + 1 }),
    faults.reorder && t("knobReorder"),
    faults.failWebhookTimes > 0 && t("knobFail", { n: faults.failWebhookTimes }),
    faults.captureAfterExpiry && t("knobLate"),
    faults.webhookDelayMs !== 200 && t("knobDelay", { ms: faults.webhookDelayMs }),
  ].filter((k): k is string => Boolean(k));

  return (
    <Shell t={t}>
      <section className="space-y-4 rounded-lg border border-white/10 bg-white/5 p-5">
        <h1 className="text-2xl font-bold">{t("pay")}</h1>
        <p className="text-4xl font-bold tabular-nums" data-testid="checkout-amount">
          {amount}
        </p>
        <p className="text-white/80" data-testid="checkout-description">
          {checkout.description}
        </p>
        <div className="text-sm text-white/60" data-testid="checkout-expiry">
          {isPastExpiry(checkout, now) ? (
            t("expiredLate")
          ) : (
            <Countdown until={checkout.expiresAt.getTime()} label={t("expiresIn")} warnBelowMs={60_000} warning={time("endingSoon", { n: 1 })} testId="checkout-countdown" />
          )}
        </div>
        <div className="flex gap-3 pt-2">
          <form action={approveCheckout}>
            <input type="hidden" name="checkoutId" value={checkout.id} />
            <button type="submit" className="button-go px-4 py-2" data-testid="approve-payment">
              {t("approve")}
            </button>
          </form>
          <form action={declineCheckout}>
            <input type="hidden" name="checkoutId" value={checkout.id} />
            <button type="submit" className="rounded-md border border-white/20 px-4 py-2 font-semibold hover:bg-white/10" data-testid="decline-payment">
              {t("decline")}
            </button>
          </form>
        </div>
      </section>
      {activeKnobs.length > 0 && (
        <p className="text-xs text-white/50" data-testid="checkout-knobs">
          {t("knobs", { knobs: activeKnobs.join(" · ") })}
        </p>
      )}
      <p className="text-xs text-white/60">{t("ids", { checkout: checkout.id, order: checkout.orderId })}</p>
    </Shell>
  );
}
