/**
 * The sandbox PSP's own API for what a fan does on its hosted pay page, for API clients
 * and the on-sale simulator: POST /sandbox-psp/api/checkouts/<sbx_cs_…>/approve | decline.
 * 200 `{ outcome, checkout: { id, status, returnUrl } }`; 404 for an unknown checkout or
 * action. Exists only while the sandbox is the payment provider
 * (PAYMENT_PROVIDER=sandbox, lib/payments/sandbox/switch.ts), like the pay page; otherwise 404.
 */
import { NextResponse } from "next/server";
import { jsonError } from "@/lib/http";
import { sandboxEnabled } from "@/lib/payments/sandbox/switch";
import { approve, decline, returnUrlFor, sandboxCheckoutIdSchema, SandboxPspError } from "@/lib/payments/sandbox/psp";

export const dynamic = "force-dynamic";

/** Approves (captures, or declines per the fault knobs) or declines the checkout. */
export async function POST(_req: Request, ctx: RouteContext<"/sandbox-psp/api/checkouts/[id]/[action]">) {
  if (!sandboxEnabled()) return jsonError(404, "Not found");
  const { id, action } = await ctx.params;
  const parsed = sandboxCheckoutIdSchema.safeParse(id);
  if (!parsed.success) return jsonError(404, "No such checkout");
  if (action !== "approve" && action !== "decline") return jsonError(404, 'Unknown action (use "approve" or "decline")');
  try {
    const result = action === "approve" ? await approve(parsed.data) : await decline(parsed.data);
    return NextResponse.json(
      { outcome: result.outcome, checkout: { id: result.checkout.id, status: result.checkout.status, returnUrl: returnUrlFor(result.checkout) } },
      { headers: { "Cache-Control": "no-store" } },
    );
  } catch (error) {
    if (error instanceof SandboxPspError && error.code === "not_found") return jsonError(404, error.message);
    throw error;
  }
}
