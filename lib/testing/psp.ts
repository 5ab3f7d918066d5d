/**
 * Test helpers around the sandbox PSP: its webhooks delivered by its own dispatcher into
 * the app's webhook handler (in-process instead of over HTTP), answering like the route.
 */
import { db } from "@/lib/db";
import { WebhookSignatureError } from "@/lib/payments/provider";
import { SandboxProvider } from "@/lib/payments/sandbox/provider";
import * as psp from "@/lib/payments/sandbox/psp";
import { handleWebhook } from "@/lib/payments/webhooks";

/** The app's sandbox provider. */
export const sandbox = new SandboxProvider();

/** The app's webhook endpoint: 200, 401 for a bad signature, 503 for anything else. */
export const deliverToApp: psp.SandboxWebhookDeliver = async (_url, body, headers) => {
  try {
    await handleWebhook(db(), sandbox, body, new Headers(headers));
    return { status: 200 };
  } catch (error) {
    return { status: error instanceof WebhookSignatureError ? 401 : 503 };
  }
};

/** Delivers every webhook of `checkoutId` due within `aheadMs` (default an hour: delays are skipped). */
export function deliverAll(checkoutId: string, aheadMs = 3_600_000) {
  return psp.dispatchDueWebhooks({ checkoutIds: [checkoutId], deliver: deliverToApp, now: new Date(Date.now() + aheadMs) });
}
