/** POST a PSP webhook: raw body, signature check (401 when wrong), replays answered 2xx with no effect. */
import { NextResponse } from "next/server";
import { db } from "@/lib/db";
import { jsonError } from "@/lib/http";
import { paymentProvider } from "@/lib/payments";
import { WebhookSignatureError } from "@/lib/payments/provider";
import { handleWebhook } from "@/lib/payments/webhooks";

const MAX_BODY_BYTES = 256 * 1024;

export async function POST(req: Request, ctx: RouteContext<"/api/payments/webhooks/[provider]">) {
  const provider = paymentProvider((await ctx.params).provider);
  if (!provider) return jsonError(404, "Unknown payment provider");
  // PSP webhooks are a few kB; refuse anything large before reading it.
  if (Number(req.headers.get("content-length") ?? 0) > MAX_BODY_BYTES) return jsonError(413, "Webhook body too large");
  const rawBody = await req.text();
  if (rawBody.length > MAX_BODY_BYTES) return jsonError(413, "Webhook body too large");
  try {
    const result = await handleWebhook(db(), provider, rawBody, req.headers);
    return NextResponse.json({ received: true, ...result });
  } catch (error) {
    if (error instanceof WebhookSignatureError) return jsonError(401, error.message);
    console.error("webhook processing failed; the PSP will retry", error);
    return jsonError(503, "Could not process the webhook now; please retry");
  }
}
