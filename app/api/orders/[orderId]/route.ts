/**
 * GET the signed-in fan's order (status, seats, payment, tickets). Another fan's order
 * reads as 404. `?checkout=<id>` means the fan is back from the PSP's payment page: as the
 * order page does, the PSP is asked first (racing the webhook, which may be late or lost),
 * so a paid order shows as paid at once (lib/payments/sync).
 */
import { NextResponse } from "next/server";
import { getSessionUser } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { jsonError, orderIdSchema } from "@/lib/http";
import { closePendingOrder } from "@/lib/orders/expiry";
import { getFanOrder } from "@/lib/orders/queries";
import { PaymentProviderError } from "@/lib/payments/provider";
import { fanOrderView } from "@/lib/payments/sync";

export async function GET(req: Request, ctx: RouteContext<"/api/orders/[orderId]">) {
  const user = await getSessionUser(req.headers);
  if (!user) return jsonError(401, "Sign in to see your orders");
  const parsed = orderIdSchema.safeParse((await ctx.params).orderId);
  if (!parsed.success) return jsonError(404, "No such order");
  const order = await fanOrderView(db(), parsed.data, user.id, new URL(req.url).searchParams.has("checkout"));
  if (!order) return jsonError(404, "No such order");
  return NextResponse.json(order, { headers: { "Cache-Control": "private, no-store" } });
}

/**
 * DELETE: the fan gives the held seats back (the JSON twin of the order page's "Give the
 * seats back"): the PSP is asked and its open checkouts cancelled first, so a payment in
 * progress is never lost (lib/orders/expiry `closePendingOrder`). 200 `{ status: "cancelled" }`;
 * 409 when the order is no longer waiting for payment (or the payment just went through);
 * 503 when the PSP cannot be asked (nothing was released).
 */
export async function DELETE(req: Request, ctx: RouteContext<"/api/orders/[orderId]">) {
  const user = await getSessionUser(req.headers);
  if (!user) return jsonError(401, "Sign in first.");
  const parsed = orderIdSchema.safeParse((await ctx.params).orderId);
  if (!parsed.success || !(await getFanOrder(db(), parsed.data, user.id))) return jsonError(404, "No such order");
  try {
    const done = await closePendingOrder(db(), parsed.data, "cancelled", { actor: `fan:${user.id}`, reason: "fan gave the seats back" });
    if (done === "paid") return jsonError(409, "Your payment has just gone through, so the seats are yours.", undefined, "already_paid");
    if (done !== "closed") return jsonError(409, "This order can no longer be cancelled.", undefined, "not_pending");
    return NextResponse.json({ status: "cancelled" }, { headers: { "Cache-Control": "private, no-store" } });
  } catch (error) {
    if (error instanceof PaymentProviderError) return jsonError(503, "We could not reach the payment provider to stop your payment. Please try again in a moment.", { "Retry-After": "5" }, "psp_unavailable");
    throw error;
  }
}
