/**
 * What an order's status and a payment's refunds read as to the organizer — one rule for
 * the order list, its filters and CSV, the search and the order page.
 *
 * An order shows its own status (lib/orders/state-machine.ts), except that a ticketed order
 * with a succeeded partial refund shows as "partially_refunded" (docs/adr/0020: derived, not
 * an order state). A payment's refunded amount is its whole amount once it is refunded, else
 * the sum of its succeeded partial refunds.
 *
 * The SQL fragments read the row aliases `o` (orders) and `p` (payments).
 */
import { sql } from "drizzle-orm";
import type { OrderStatus } from "@/lib/orders/state-machine";

/** Every status an order shows as, in the order the list's filters show them. */
export const ORDER_DISPLAY_STATUSES = ["pending_payment", "paid", "ticketed", "partially_refunded", "expired", "cancelled", "refunded"] as const satisfies readonly (OrderStatus | "partially_refunded")[];

/** One of {@link ORDER_DISPLAY_STATUSES}. */
export type OrderDisplayStatus = (typeof ORDER_DISPLAY_STATUSES)[number];

/** Whether a string is one of {@link ORDER_DISPLAY_STATUSES} (exact spelling). */
export function isOrderDisplayStatus(value: unknown): value is OrderDisplayStatus {
  return typeof value === "string" && (ORDER_DISPLAY_STATUSES as readonly string[]).includes(value);
}

/** The rule in TypeScript: an order's status and whether it has a succeeded partial refund → what it shows as. */
export function orderDisplayStatus(status: OrderStatus, partiallyRefunded: boolean): OrderDisplayStatus {
  return status === "ticketed" && partiallyRefunded ? "partially_refunded" : status;
}

/** True when the order `o` has a succeeded partial refund. */
const HAS_PARTIAL_REFUND = sql`exists (select 1 from refunds r where r.order_id = o.id and r.status = 'succeeded')`;

/** The rule in SQL: what the order `o` shows as (text). */
export const ORDER_DISPLAY_STATUS_SQL = sql`(case when o.status = 'ticketed' and ${HAS_PARTIAL_REFUND} then 'partially_refunded' else o.status::text end)`;

/** A filter on `orders o` by what it shows as; null for every order. The plain statuses compare the column alone. */
export function displayStatusCondition(status: OrderDisplayStatus | null) {
  if (status === null) return sql`true`;
  if (status === "partially_refunded") return sql`(o.status = 'ticketed' and ${HAS_PARTIAL_REFUND})`;
  if (status === "ticketed") return sql`(o.status = 'ticketed' and not ${HAS_PARTIAL_REFUND})`;
  return sql`o.status = ${status}::order_status`;
}

/** Money given back of the payment `p`, in its minor units (int). */
export const PAYMENT_REFUNDED_SQL = sql`(case when p.status = 'refunded' then p.amount_minor
  else (select coalesce(sum(r.amount_minor), 0) from refunds r where r.payment_id = p.id and r.status = 'succeeded') end)::int`;

/** Money given back of every payment of the order `o`, in minor units (int). */
export const ORDER_REFUNDED_SQL = sql`coalesce((select sum(${PAYMENT_REFUNDED_SQL}) from payments p where p.order_id = o.id), 0)::int`;
