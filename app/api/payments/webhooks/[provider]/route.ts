/**
 * POST a PSP webhook: raw body, signature check (401 `bad_signature` when wrong), replays
 * answered 2xx with no effect; anything else is 5xx, so the PSP retries. Exempt from the
 * same-origin rule by design: a webhook comes from the PSP's servers and is trusted only
 * through its signature (and the ledger pass checks the money it reports).
 */
import { z } from "zod";
import { db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { route } from "@/lib/http/route";
import { paymentProvider, PROVIDER_NAMES } from "@/lib/payments";
import { handleWebhook } from "@/lib/payments/webhooks";

/** PSP webhooks are a few kB; anything larger is refused before it is read. */
const MAX_BODY_BYTES = 256 * 1024;
const tooLarge = () => new AppError("payload_too_large", "body_too_large", "Webhook body too large");

// origin "signed": see above — the signature is the proof, not the Origin header.
export const POST = route({ origin: "signed", params: z.object({ provider: z.enum(PROVIDER_NAMES, { error: "Unknown payment provider" }) }) }, async ({ req, params }) => {
  const provider = paymentProvider(params.provider);
  if (!provider) throw new AppError("not_found", "not_found", "Unknown payment provider");
  if (Number(req.headers.get("content-length") ?? 0) > MAX_BODY_BYTES) throw tooLarge();
  const rawBody = await req.text();
  if (rawBody.length > MAX_BODY_BYTES) throw tooLarge();
  return { received: true, ...(await handleWebhook(db(), provider, rawBody, req.headers)) };
});
