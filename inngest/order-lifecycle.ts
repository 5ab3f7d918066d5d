/**
 * Order lifecycle: sleep until the hold expires, then settle it — ask the PSP, confirm a
 * capture, or cancel the checkout and expire the order (lib/orders/expiry). Payment
 * webhooks are handled by the webhook route, not here, so the function needs no
 * `waitForEvent` (see docs/design.md's testing note). One run per order.
 */
import { db } from "@/lib/db";
import { settleExpiredHold } from "@/lib/payments/expiry";
import { inngest } from "./client";

/** Looks 10 s apart after an early wake-up (a clock skew up to a minute); the sweep is the safety net beyond. */
const RECHECKS = 6;

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
    const settle = (id: string) => step.run(id, () => settleExpiredHold(db(), orderId, { actor: "job:order-lifecycle", reason: "hold expiry" }));
    // Inngest wakes by its own clock; whether the hold has ended is Postgres's to say (lib/clock.ts).
    // Woken early by a clock ahead of Postgres's ("not_due"), it looks again a little later.
    let outcome = await settle("settle-hold");
    for (let i = 1; outcome === "not_due" && i <= RECHECKS; i++) {
      await step.sleep(`wait-for-database-clock-${i}`, "10s");
      outcome = await settle(`settle-hold-${i}`);
    }
    return outcome;
  },
);
