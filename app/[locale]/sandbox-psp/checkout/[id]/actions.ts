"use server";
/**
 * Server actions of the sandbox PSP's hosted pay page. Thin: validate the checkout id,
 * call the PSP (lib/payments/sandbox/psp.ts), then send the fan back to the merchant's
 * return URL with `?checkout=<id>`, as an outside PSP would. They obey the same switch as
 * the sandbox's APIs: with another payment provider they do not exist (404), so nobody can
 * approve their own checkout for free. Whatever goes wrong, the fan lands back on the pay
 * page, which says what the checkout's state is.
 */
import { notFound, redirect } from "next/navigation";
import { z } from "zod";
import { action } from "@/lib/http/action";
import { approve, decline, returnUrlFor, sandboxCheckoutIdSchema, type SandboxActionResult } from "@/lib/payments/sandbox/psp";
import { sandboxEnabled } from "@/lib/payments/sandbox/switch";

const form = z.tuple([z.instanceof(FormData)]);
const pageOf = (data: unknown) => {
  const id = sandboxCheckoutIdSchema.safeParse(data instanceof FormData ? data.get("checkoutId") : null);
  return `/sandbox-psp/checkout/${id.success ? id.data : "unknown"}`;
};

/** Runs one PSP action on the form's `checkoutId`, then redirects to the return URL (or back to the page). */
function payPageAction(run: (checkoutId: string) => Promise<SandboxActionResult>) {
  return action(
    { who: "anyone", args: form, onError: (_failure, args): never => redirect(pageOf(args[0])) },
    async (_call, data): Promise<never> => {
      if (!sandboxEnabled()) notFound();
      const id = sandboxCheckoutIdSchema.safeParse(data.get("checkoutId"));
      if (!id.success) redirect("/sandbox-psp/checkout/unknown");
      redirect(returnUrlFor((await run(id.data)).checkout));
    },
  );
}

/**
 * "Approve payment": captures (or declines / expires, per the fault knobs and the clock),
 * waiting `slowApprovalMs` first, then redirects to the return URL. Expects form field `checkoutId`.
 */
export const approveCheckout = payPageAction((checkoutId) => approve(checkoutId));

/** "Decline": declines the payment, then redirects to the return URL. Expects form field `checkoutId`. */
export const declineCheckout = payPageAction((checkoutId) => decline(checkoutId));
