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
