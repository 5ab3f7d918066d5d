/**
 * Rules broken on purpose, so the on-sale simulator's verdict can be shown to catch them:
 * `npm run onsale -- --small --inject <kind>` breaks one rule after the sale and before the
 * invariant checker runs; the run must then report the violation and exit 1. The same
 * function is used by `inject.test.ts`, which needs no simulation.
 *
 * Kinds (docs/design.md invariants):
 * - `ticket-without-payment` (I4): a valid ticket for an order that has no captured payment,
 *   written behind the app's back.
 * - `redis-mismatch` (I1 in Redis): a seat that is held or sold in Postgres marked free in
 *   Redis, so Redis could sell it again.
 * - `psp-capture-without-tickets` (I2 against the PSP's ledger): the sandbox PSP takes money
 *   for an order that is not ticketed and never tells the app (webhook dropped) — only the
 *   PSP's own records show it.
 */
import { AppError } from "@/lib/errors";
import { and, eq, inArray, sql } from "drizzle-orm";
import { lineItems, seats, tickets } from "@/db/schema";
import type { Db } from "@/lib/db";
import { newId } from "@/lib/ids";
import { inventoryKeys } from "@/lib/inventory/keys";
import * as psp from "@/lib/payments/sandbox/psp";
import { redis } from "@/lib/redis";

/** The rules the simulator can break on purpose. */
export const INJECTABLE_VIOLATIONS = ["ticket-without-payment", "redis-mismatch", "psp-capture-without-tickets"] as const;
export type InjectableViolation = (typeof INJECTABLE_VIOLATIONS)[number];

/** The show has nothing the requested rule could be broken on (e.g. no unpaid order). */
export class NothingToBreakError extends AppError {
  constructor(kind: InjectableViolation) {
    super("conflict", "nothing_to_break", `Cannot inject ${kind}: the show has no order or seat to break it on.`);
  }
}

/**
 * Breaks `kind` once for `eventId`.
 * @returns a sentence saying what was broken (for the run's log).
 * @throws {NothingToBreakError} when the show has no suitable order or seat.
 */
export async function injectViolation(db: Db, eventId: string, kind: InjectableViolation): Promise<string> {
  if (kind === "ticket-without-payment") {
    const [li] = (await db.execute(sql`
      select li.id, li.order_id as "orderId", li.seat_id as "seatId" from line_items li
      where li.event_id = ${eventId}
        and not exists (select 1 from payments p where p.order_id = li.order_id and p.status = 'captured')
        and not exists (select 1 from tickets t where t.line_item_id = li.id)
      limit 1`)) as unknown as { id: number | string; orderId: string; seatId: number }[];
    if (!li) throw new NothingToBreakError(kind);
    await db.insert(tickets).values({ id: newId("tkt"), orderId: li.orderId, lineItemId: Number(li.id), eventId, seatId: Number(li.seatId), code: `injected-${li.id}` });
    return `a ticket for unpaid order ${li.orderId}`;
  }
  if (kind === "psp-capture-without-tickets") {
    const [order] = (await db.execute(sql`
      select o.id, o.total_minor as "totalMinor", o.currency from orders o
      where o.event_id = ${eventId} and o.status <> 'ticketed' and o.total_minor > 0
      order by o.created_at limit 1`)) as unknown as { id: string; totalMinor: number; currency: string }[];
    if (!order) throw new NothingToBreakError(kind);
    const checkout = await psp.createCheckout({
      orderId: order.id,
      amountMinor: order.totalMinor,
      currency: order.currency,
      description: "injected: money the app never hears about",
      expiresAt: new Date(Date.now() + 60_000),
      returnUrl: "http://127.0.0.1/injected",
      idempotencyKey: `injected:${order.id}`,
      faults: { drop: true, captureAfterExpiry: true },
    });
    await psp.approve(checkout.id);
    return `the PSP captured ${order.totalMinor} ${order.currency} for order ${order.id} (not ticketed) and dropped the webhook`;
  }
  const [live] = await db
    .select({ ordinal: seats.ordinal })
    .from(lineItems)
    .innerJoin(seats, eq(seats.id, lineItems.seatId))
    .where(and(eq(lineItems.eventId, eventId), inArray(lineItems.status, ["held", "sold"])))
    .limit(1);
  if (!live) throw new NothingToBreakError(kind);
  await redis().setbit(inventoryKeys(eventId).free, live.ordinal, 1);
  // As a release would: best-available's row hint may skip the row of the freed seat (lib/inventory/lua.ts).
  await redis().del(inventoryKeys(eventId).rowHint);
  return `seat #${live.ordinal} (taken in Postgres) marked free in Redis`;
}
