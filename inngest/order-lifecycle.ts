/**
 * Order lifecycle: sleep until the hold expires, then settle it — ask the PSP, confirm a
 * capture, or cancel the checkout and expire the order (lib/orders/expiry). Payment
 * webhooks are handled by the webhook route, not here, so the function needs no
 * `waitForEvent` (see docs/design.md's testing note). One run per order.
 */
import { db } from "@/lib/db";
import { settleExpiredHold } from "@/lib/payments/expiry";
import { inngest } from "./client";

export const orderLifecycle = inngest.createFunction(
  {
    id: "order-lifecycle",
    triggers: [{ event: "order/created" }],
    idempotency: "event.data.orderId",
    concurrency: { key: "event.data.orderId", limit: 1 },
    retries: 10,
  },
  async ({ event, step }) => {
    const { orderId, holdExpiresAt } = event.data as { orderId: string; holdExpiresAt: string };
    await step.sleepUntil("wait-for-hold-expiry", new Date(holdExpiresAt));
    return step.run("settle-hold", () => settleExpiredHold(db(), orderId, { actor: "job:order-lifecycle", reason: "hold expiry" }));
  },
);
