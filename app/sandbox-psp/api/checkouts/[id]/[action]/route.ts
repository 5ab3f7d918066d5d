/**
 * The sandbox PSP's own API for what a fan does on its hosted pay page, for API clients
 * and the on-sale simulator: POST /sandbox-psp/api/checkouts/<sbx_cs_…>/approve | decline.
 * 200 `{ outcome, checkout: { id, status, returnUrl } }`; 404 for an unknown checkout or
 * action. Exists only while the sandbox is the payment provider
 * (PAYMENT_PROVIDER=sandbox, lib/payments/sandbox/switch.ts), like the pay page; otherwise 404.
 */
import { z } from "zod";
import { AppError } from "@/lib/errors";
import { route } from "@/lib/http/route";
import { approve, decline, returnUrlFor, sandboxCheckoutIdSchema } from "@/lib/payments/sandbox/psp";
import { sandboxEnabled } from "@/lib/payments/sandbox/switch";

export const dynamic = "force-dynamic";

const params = z.object({ id: sandboxCheckoutIdSchema, action: z.enum(["approve", "decline"], { error: 'Unknown action (use "approve" or "decline")' }) });

/** Approves (captures, or declines per the fault knobs) or declines the checkout. */
export const POST = route({ params }, async ({ params }) => {
  if (!sandboxEnabled()) throw new AppError("not_found", "not_found", "Not found");
  const result = params.action === "approve" ? await approve(params.id) : await decline(params.id);
  return { outcome: result.outcome, checkout: { id: result.checkout.id, status: result.checkout.status, returnUrl: returnUrlFor(result.checkout) } };
});
