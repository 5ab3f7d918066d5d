/**
 * POST: start (or resume) paying for the signed-in fan's order — the JSON twin of the
 * order page's pay action. 200 `{ url }` (the PSP's hosted pay page); 4xx `{ error }`
 * with the action's messages; 502 when the PSP does not answer.
 */
import { NextResponse } from "next/server";
import { getSessionUser } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { errorResponse, jsonError, orderIdSchema } from "@/lib/http";
import { paymentProvider } from "@/lib/payments";
import { CheckoutRefusedError, startCheckout } from "@/lib/payments/checkout";
import { PaymentProviderError } from "@/lib/payments/provider";

/** Creates (or reuses) the order's checkout session and returns its URL. */
export async function POST(req: Request, ctx: RouteContext<"/api/orders/[orderId]/checkout">) {
  const user = await getSessionUser(req.headers);
  if (!user) return jsonError(401, "Sign in to pay.");
  const parsed = orderIdSchema.safeParse((await ctx.params).orderId);
  if (!parsed.success) return jsonError(404, "No such order.");
  const provider = paymentProvider();
  if (!provider) return jsonError(503, "Payments are not configured.");
  try {
    const { url } = await startCheckout(db(), provider, { orderId: parsed.data, fanId: user.id });
    return NextResponse.json({ url }, { headers: { "Cache-Control": "private, no-store" } });
  } catch (error) {
    if (error instanceof CheckoutRefusedError) return jsonError(error.status, error.message);
    if (error instanceof PaymentProviderError) return jsonError(502, "The payment provider is not answering. Please try again in a moment.");
    const res = errorResponse(error);
    if (res) return res;
    throw error;
  }
}
