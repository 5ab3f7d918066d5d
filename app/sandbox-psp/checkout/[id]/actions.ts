"use server";
/**
 * Server actions of the sandbox PSP's hosted pay page. Thin: validate the checkout id,
 * call the PSP (lib/payments/sandbox/psp.ts), then send the fan back to the merchant's
 * return URL with `?checkout=<id>`, as an outside PSP would.
 */
import { notFound, redirect } from "next/navigation";
import { approve, decline, returnUrlFor, sandboxCheckoutIdSchema, SandboxPspError, type SandboxActionResult } from "@/lib/payments/sandbox/psp";
import { sandboxEnabled } from "@/lib/payments/sandbox/switch";

/**
 * Runs one PSP action; null when the checkout does not exist (the page then says so).
 * The actions obey the same switch as the sandbox's APIs: with another payment provider
 * they do not exist (404), so nobody can approve their own checkout for free.
 */
async function run(formData: FormData, action: (id: string) => Promise<SandboxActionResult>): Promise<{ id: string; result: SandboxActionResult | null }> {
  if (!sandboxEnabled()) notFound();
  const parsed = sandboxCheckoutIdSchema.safeParse(formData.get("checkoutId"));
  if (!parsed.success) redirect("/sandbox-psp/checkout/unknown");
  const id = parsed.data;
  try {
    return { id, result: await action(id) };
  } catch (error) {
    if (error instanceof SandboxPspError && error.code === "not_found") return { id, result: null };
    throw error;
  }
}

/**
 * "Approve payment": captures (or declines / expires, per the fault knobs and the clock),
 * waiting `slowApprovalMs` first, then redirects to the return URL. Expects form field `checkoutId`.
 */
export async function approveCheckout(formData: FormData): Promise<void> {
  const { id, result } = await run(formData, (checkoutId) => approve(checkoutId));
  redirect(result ? returnUrlFor(result.checkout) : `/sandbox-psp/checkout/${id}`);
}

/** "Decline": declines the payment, then redirects to the return URL. Expects form field `checkoutId`. */
export async function declineCheckout(formData: FormData): Promise<void> {
  const { id, result } = await run(formData, (checkoutId) => decline(checkoutId));
  redirect(result ? returnUrlFor(result.checkout) : `/sandbox-psp/checkout/${id}`);
}
