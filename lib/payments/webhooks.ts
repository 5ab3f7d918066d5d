/**
 * Incoming PSP webhooks: verify the signature over the raw body, store the provider's
 * event id under a unique constraint (so a replay has no effect), then apply it through
 * the same idempotent functions the browser return and the jobs use.
 */
import { and, eq, isNull } from "drizzle-orm";
import { paymentEvents } from "@/db/schema";
import type { Db } from "@/lib/db";
import { applyPspAnswer } from "@/lib/payments/apply";
import type { PaymentProvider } from "@/lib/payments/provider";

/** What happened to one delivery. */
export interface WebhookResult {
  duplicate: boolean;
  type: string;
  outcome?: string;
}

/**
 * Handles one webhook delivery.
 * @throws {WebhookSignatureError} when it does not verify (answer 401); other errors mean "try again later" (answer 5xx so the PSP retries).
 */
export async function handleWebhook(db: Db, provider: PaymentProvider, rawBody: string, headers: Headers): Promise<WebhookResult> {
  const event = await provider.verifyWebhook(rawBody, headers);
  const inserted = await db
    .insert(paymentEvents)
    .values({ provider: provider.name, providerEventId: event.eventId, type: event.rawType, orderId: null, payload: event.raw ?? {} })
    .onConflictDoNothing({ target: [paymentEvents.provider, paymentEvents.providerEventId] })
    .returning({ id: paymentEvents.id });
  if (inserted.length === 0) {
    // Seen before. Re-apply only if the first delivery never finished processing (a crash in between).
    const unfinished = await db.query.paymentEvents.findFirst({
      where: and(eq(paymentEvents.provider, provider.name), eq(paymentEvents.providerEventId, event.eventId), isNull(paymentEvents.processedAt)),
    });
    if (!unfinished) return { duplicate: true, type: event.type };
  }
  const cause = { actor: `webhook:${provider.name}`, reason: `${event.rawType} ${event.eventId}` };
  // Captures and declines are applied; the other events (expiry, refunds) change nothing here:
  // the expiry sweep and the ledger pass read those from the PSP's own records.
  let outcome: string | undefined;
  if ((event.type === "payment.captured" || event.type === "payment.declined") && event.payment) outcome = await applyPspAnswer(db, provider, event.payment, cause, "webhook");
  await db
    .update(paymentEvents)
    .set({ processedAt: new Date() })
    .where(and(eq(paymentEvents.provider, provider.name), eq(paymentEvents.providerEventId, event.eventId)));
  return { duplicate: false, type: event.type, outcome };
}
