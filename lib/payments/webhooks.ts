/**
 * Incoming PSP webhooks: verify the signature over the raw body, refuse an event for another
 * account or mode (recorded as a discrepancy), store the provider's event id under a unique
 * constraint (so a replay has no effect), then treat the event as a hint: the PSP is asked
 * about the checkout it names and its own answer is applied, through the same idempotent
 * functions the browser return and the jobs use (lib/payments/apply.ts). A signed message is
 * never money by itself (a leaked secret, a replayed test event, a misconfigured proxy). A
 * capture the PSP's own record shows never happened is recorded for the organizer
 * (`webhook_contradicted`) and logged: someone else can sign our webhooks, or a proxy rewrites them.
 */
import { and, eq, isNull } from "drizzle-orm";
import { orders, paymentEvents, payments } from "@/db/schema";
import { recordDiscrepancy } from "@/lib/audit/discrepancies";
import type { Db } from "@/lib/db";
import { askProvider } from "@/lib/payments/apply";
import { ForeignWebhookError, PaymentProviderError, type PaymentEvent, type PaymentProvider, type PaymentSnapshot } from "@/lib/payments/provider";

/** What happened to one delivery. */
export interface WebhookResult {
  duplicate: boolean;
  type: string;
  outcome?: string;
}

/**
 * Handles one webhook delivery.
 * @throws {WebhookSignatureError} when it does not verify (answer 401).
 * @throws {ForeignWebhookError} when it is signed but for another account or mode (answer 422;
 *   recorded as a `foreign_webhook` discrepancy, once per event id). A capture the PSP says
 *   never happened is recorded as a `webhook_contradicted` discrepancy, once per event id.
 * @throws {PaymentProviderError} when the PSP cannot be asked about the checkout (unreachable,
 *   or refusing our key): nothing was applied and the delivery stays unprocessed (answer 5xx so
 *   the PSP retries; the sweep's active query settles the order meanwhile). Only the PSP's
 *   "no such checkout" (`notFound`) ends the delivery with nothing applied. Other errors also
 *   mean "try again later".
 */
export async function handleWebhook(db: Db, provider: PaymentProvider, rawBody: string, headers: Headers): Promise<WebhookResult> {
  let event;
  try {
    event = await provider.verifyWebhook(rawBody, headers);
  } catch (error) {
    if (error instanceof ForeignWebhookError) await recordForeign(db, provider.name, error);
    throw error;
  }
  const inserted = await db
    .insert(paymentEvents)
    .values({ provider: provider.name, providerEventId: event.eventId, type: event.rawType, orderId: null, payload: event.raw ?? {} })
    .onConflictDoNothing({ target: [paymentEvents.provider, paymentEvents.providerEventId] })
    .returning({ id: paymentEvents.id });
  if (inserted.length === 0) {
    // Seen before. Re-apply only if the first delivery never finished processing (a crash, or the PSP unreachable).
    const unfinished = await db.query.paymentEvents.findFirst({
      where: and(eq(paymentEvents.provider, provider.name), eq(paymentEvents.providerEventId, event.eventId), isNull(paymentEvents.processedAt)),
    });
    if (!unfinished) return { duplicate: true, type: event.type };
  }
  const cause = { actor: `webhook:${provider.name}`, reason: `${event.rawType} ${event.eventId}; the PSP was asked` };
  // A capture or a decline names a checkout: the PSP is asked about it and its answer applied.
  // The other events (expiry, refunds) change nothing here: the expiry sweep and the ledger
  // pass read those from the PSP's own records.
  let outcome: string | undefined;
  const checkoutId = event.payment?.checkoutSessionId;
  if ((event.type === "payment.captured" || event.type === "payment.declined") && checkoutId) {
    try {
      const answer = await askProvider(db, provider, checkoutId, cause);
      outcome = answer.applied;
      if (event.type === "payment.captured" && NEVER_CAPTURED.has(answer.status)) await recordContradicted(db, provider.name, event, checkoutId, answer.status);
    } catch (error) {
      // The PSP answered that it has no such checkout: the message was about nothing real.
      // Done with it; the ledger pass still sees every real capture. Any other refusal (our
      // key rotated or without permission) says nothing about the checkout: the delivery
      // stays unprocessed and the PSP retries it.
      if (!(error instanceof PaymentProviderError) || !error.notFound) throw error;
      console.warn(`webhook ${provider.name} ${event.eventId} (${event.rawType}) names checkout ${checkoutId}, which the PSP does not have: nothing applied`);
      outcome = "not_at_psp";
    }
  }
  await db
    .update(paymentEvents)
    .set({ processedAt: new Date() })
    .where(and(eq(paymentEvents.provider, provider.name), eq(paymentEvents.providerEventId, event.eventId)));
  return { duplicate: false, type: event.type, outcome };
}

/** PSP statuses that mean no capture ever happened ("refunded" follows a capture: a late message is not a lie). */
const NEVER_CAPTURED: ReadonlySet<PaymentSnapshot["status"]> = new Set(["open", "declined", "expired", "cancelled"]);

/**
 * Records a signed capture message the PSP's own record contradicts (once per event id: a
 * replay adds nothing), on the order's show so its organizer sees it, and logs one line: ids,
 * what the message claimed and what the PSP says, no personal data.
 */
async function recordContradicted(db: Db, provider: string, event: PaymentEvent, checkoutId: string, pspStatus: PaymentSnapshot["status"]): Promise<void> {
  const eventId = event.eventId.slice(0, 100);
  const [ours] = await db
    .select({ orderId: orders.id, eventId: orders.eventId })
    .from(payments)
    .innerJoin(orders, eq(orders.id, payments.orderId))
    .where(and(eq(payments.provider, provider), eq(payments.checkoutSessionId, checkoutId)));
  const claimed = { status: "captured", paymentId: event.payment?.paymentId ?? null, amountMinor: event.payment?.amountMinor ?? null, currency: event.payment?.currency ?? null };
  const recorded = await recordDiscrepancy(db, {
    key: `webhook_contradicted_${provider}_${eventId}`,
    kind: "webhook_contradicted",
    eventId: ours?.eventId ?? null,
    orderId: ours?.orderId ?? null,
    detail: { provider, eventId, type: event.rawType.slice(0, 100), checkoutId, claimed, psp: { status: pspStatus } },
    action: `nothing applied: the message claims a capture, the PSP says "${pspStatus}". Check whether the webhook secret leaked or a proxy rewrites deliveries.`,
    status: "needs_attention",
  });
  if (recorded) {
    console.warn(`webhook contradicted by the PSP: ${provider} event ${eventId} (${event.rawType.slice(0, 100)}) claims checkout ${checkoutId} captured, the PSP says ${pspStatus}; the webhook secret may have leaked or a proxy is misbehaving`);
  }
}

/**
 * Records a refused foreign event for the organizer (once per event id: a replay adds
 * nothing) and logs one line: ids, type and what did not match, no personal data.
 */
async function recordForeign(db: Db, provider: string, error: ForeignWebhookError): Promise<void> {
  const eventId = error.eventId.slice(0, 100);
  const recorded = await recordDiscrepancy(db, {
    key: `foreign_webhook_${provider}_${eventId}`,
    kind: "foreign_webhook",
    detail: { provider, eventId, type: error.eventType.slice(0, 100), ...error.mismatch },
    action: `refused (422), nothing applied: ${error.message}`,
    status: "needs_attention",
  });
  console.warn(`foreign webhook refused: ${provider} event ${eventId} (${error.eventType.slice(0, 100)}) ${JSON.stringify(error.mismatch)}${recorded ? "" : " (seen before)"}`);
}
