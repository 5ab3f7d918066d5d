/**
 * GET the signed-in fan's order (status, seats, payment, tickets). Another fan's order
 * reads as 404. `?checkout=<id>` means the fan is back from the PSP's payment page: as the
 * order page does, the PSP is asked first (racing the webhook, which may be late or lost),
 * so a paid order shows as paid at once (lib/payments/sync).
 */
import { NextResponse } from "next/server";
import { z } from "zod";
import { getSessionUser } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { jsonError } from "@/lib/http";
import { getFanOrder } from "@/lib/orders/queries";
import { syncOnReturn } from "@/lib/payments/sync";

const orderIdSchema = z.string().regex(/^ord_[0-9a-z]{1,32}$/);

export async function GET(req: Request, ctx: RouteContext<"/api/orders/[orderId]">) {
  const user = await getSessionUser(req.headers);
  if (!user) return jsonError(401, "Sign in to see your orders");
  const parsed = orderIdSchema.safeParse((await ctx.params).orderId);
  if (!parsed.success) return jsonError(404, "No such order");
  let order = await getFanOrder(db(), parsed.data, user.id);
  if (!order) return jsonError(404, "No such order");
  if (new URL(req.url).searchParams.has("checkout") && (await syncOnReturn(db(), order, user.id))) order = await getFanOrder(db(), parsed.data, user.id);
  return NextResponse.json(order, { headers: { "Cache-Control": "private, no-store" } });
}
