/**
 * Sending a fan to pay: create (or reuse) the order's checkout session at the PSP.
 * Only the fan who owns a `pending_payment` order whose hold has not expired may pay.
 */
import { asc, eq, sql } from "drizzle-orm";
import { orders, payments } from "@/db/schema";
import { sqlNow } from "@/lib/clock";
import type { Db } from "@/lib/db";
import { cachedEvent } from "@/lib/events/cache";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import type { PaymentProvider } from "@/lib/payments/provider";
import { takeCheckoutBudget } from "@/lib/payments/psp-budget";

/** What the PSP's page says is being paid for: the show's name as the organizer entered it and the seat count, in no language. */
export function checkoutDescription(show: string, seats: number): string {
  return `${show} × ${seats}`;
}

/** A fan-readable refusal to start a checkout: 404 `no_such_order`, 409 `not_payable` / `hold_expired`. */
const refused = (kind: "not_found" | "conflict", code: string, message: string) => new AppError(kind, code, message);

/**
 * Starts (or resumes) the checkout of an order. The PSP's page shows the description as given, so it
 * is written in no language ("<show> × 2"): a resumed session asks the PSP with the same key and the
 * same fields whatever language the fan switched to meanwhile (Stripe refuses a key reused with others).
 * @returns the PSP's hosted payment page URL.
 * @throws {AppError} `no_such_order` for another fan's order (404, so order ids are not confirmed to strangers),
 *   `not_payable` for an order that is no longer payable (409), `hold_expired` (409); {PspBusyError} (429) past the
 *   PSP's request budget (lib/payments/psp-budget.ts); {PaymentProviderError} from the PSP.
 */
export async function startCheckout(db: Db, provider: PaymentProvider, input: { orderId: string; fanId: string; now?: Date }): Promise<{ url: string }> {
  // One round trip: the order (with its seat count) and its payment attempts. Another fan's
  // order is refused before anything read here is used.
  const [[row], existing] = await Promise.all([
    db
      .select({
        order: orders,
        seatsCount: sql<number>`(select count(*)::int from line_items li where li.order_id = "orders"."id")`,
        // Whether the hold has ended is Postgres's clock's to say (lib/clock.ts).
        holdEnded: sql<boolean>`${orders.holdExpiresAt} <= ${sqlNow(input.now)}`,
      })
      .from(orders)
      .where(eq(orders.id, input.orderId)),
    // Attempts and the open session from one statement, so they are consistent with each other.
    db
      .select({ status: payments.status, provider: payments.provider, checkoutSessionId: payments.checkoutSessionId })
      .from(payments)
      .where(eq(payments.orderId, input.orderId))
      .orderBy(asc(payments.createdAt), asc(payments.id)),
  ]);
  const order = row?.order;
  if (!order || order.fanId !== input.fanId) throw refused("not_found", "no_such_order", "No such order.");
  if (order.status !== "pending_payment") throw refused("conflict", "not_payable", `This order is ${order.status.replace("_", " ")} and cannot be paid.`);
  if (row.holdEnded) throw refused("conflict", "hold_expired", "Your hold has expired, so these seats are back on sale. Pick seats again.");
  // The event's name for the PSP's page, from this instance's 1-s copy (lib/events/cache).
  const event = (await cachedEvent(db, order.eventId))!.event;
  const seatsCount = row.seatsCount;
  // One checkout at a time per order, without holding a database connection (or a row lock)
  // while the PSP answers: the idempotency key names the order's attempt, so concurrent
  // clicks ask the PSP for the same session.
  const open = existing.findLast((p) => p.provider === provider.name && (p.status === "created" || p.status === "pending"));
  // Every create (a reused session's too: it is still a request) counts against the PSP's rate limit.
  await takeCheckoutBudget(provider.name);
  const session = await provider.createCheckoutSession({
    orderId: order.id,
    amountMinor: order.totalMinor,
    currency: order.currency,
    description: checkoutDescription(event.name, seatsCount),
    expiresAt: order.holdExpiresAt,
    returnUrl: `${env().APP_URL}/orders/${order.id}`,
    idempotencyKey: `${order.id}:checkout:${open ? existing.indexOf(open) : existing.length}`,
  });
  // Record it under the order's row lock, only while the order is still payable. An order
  // closed meanwhile (expired, given back) has cancelled the checkouts it knew about; this
  // one it could not know, so it is cancelled here (a payment that still slips through is a
  // late payment: re-claimed or refunded, lib/payments/late-payment.ts).
  const refusal = await db.transaction(async (tx) => {
    const [locked] = await tx.select({ status: orders.status }).from(orders).where(eq(orders.id, order.id)).for("update");
    if (locked!.status !== "pending_payment") return `This order is ${locked!.status.replace("_", " ")} and cannot be paid.`;
    await tx
      .insert(payments)
      .values({ id: newId("pay"), orderId: order.id, provider: provider.name, checkoutSessionId: session.id, amountMinor: order.totalMinor, currency: order.currency })
      .onConflictDoNothing();
    return null;
  });
  if (refusal) {
    await provider.cancelCheckout(session.id).catch(() => undefined);
    throw refused("conflict", "not_payable", refusal);
  }
  return { url: session.url };
}
