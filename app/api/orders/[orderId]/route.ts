/**
 * GET the signed-in fan's order (status, seats, payment, tickets). Another fan's order
 * reads as 404. `?checkout=<id>` means the fan is back from the PSP's payment page: as the
 * order page does, the PSP is asked first (racing the webhook, which may be late or lost),
 * so a paid order shows as paid at once (lib/payments/sync).
 *
 * DELETE: the fan gives the held seats back (the JSON twin of the order page's "Give the
 * seats back"): the PSP is asked and its open checkouts cancelled first, so a payment in
 * progress is never lost (lib/payments/expiry `closePendingOrder`). 200 `{ status: "cancelled" }`;
 * 409 when the order is no longer waiting for payment (or the payment just went through);
 * 503 when the PSP cannot be asked (nothing was released).
 */
import { z } from "zod";
import { db } from "@/lib/db";
import { route } from "@/lib/http/route";
import { orderIdSchema } from "@/lib/ids";
import { giveSeatsBack } from "@/lib/payments/expiry";
import { noSuchOrder } from "@/lib/orders/queries";
import { fanOrderView } from "@/lib/payments/sync";

const spec = { who: "user", params: z.object({ orderId: orderIdSchema }) } as const;

export const GET = route({ ...spec, signIn: "Sign in to see your orders" }, async ({ req, params, user }) => {
  const order = await fanOrderView(db(), params.orderId, user.id, new URL(req.url).searchParams.has("checkout"));
  if (!order) throw noSuchOrder();
  return order;
});

export const DELETE = route({ ...spec, signIn: "Sign in first." }, async ({ params, user }) => {
  await giveSeatsBack(db(), params.orderId, user.id);
  return { status: "cancelled" };
});
