/**
 * POST: start (or resume) paying for the signed-in fan's order — the JSON twin of the
 * order page's pay action. 200 `{ url }` (the PSP's hosted pay page); 4xx `{ error, code }`
 * with the action's messages; 502/503 when the PSP refuses or does not answer.
 */
import { z } from "zod";
import { db } from "@/lib/db";
import { route } from "@/lib/http/route";
import { orderIdSchema } from "@/lib/ids";
import { defaultProvider } from "@/lib/payments";
import { startCheckout } from "@/lib/payments/checkout";

export const POST = route({ who: "user", signIn: "Sign in to pay.", params: z.object({ orderId: orderIdSchema }) }, async ({ params, user }) => {
  return startCheckout(db(), defaultProvider(), { orderId: params.orderId, fanId: user.id });
});
