/**
 * The sandbox PSP's own tables, in their own Postgres schema `sandbox_psp`.
 *
 * The sandbox PSP (lib/payments/sandbox/) behaves like an outside payment provider that
 * happens to share the database server: it keeps its own records here, never reads or
 * writes the app's tables, and reaches the app only through signed webhooks and
 * redirects. Nothing in the app's schema references these tables (no foreign keys
 * across the boundary: `order_id` is just the string the app sent).
 *
 * Money is an integer number of minor units (cents) plus an ISO 4217 currency.
 * Instants are `timestamptz`.
 */
import { sql } from "drizzle-orm";
import { bigserial, boolean, check, index, integer, jsonb, pgSchema, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/** The `sandbox_psp` Postgres schema. */
export const sandboxPsp = pgSchema("sandbox_psp");

/** Every state a sandbox checkout can be in (open → captured → refunded; open → declined | expired | cancelled). */
export const SANDBOX_CHECKOUT_STATUSES = ["open", "captured", "declined", "expired", "cancelled", "refunded"] as const;
/** One of {@link SANDBOX_CHECKOUT_STATUSES}. */
export type SandboxCheckoutStatus = (typeof SANDBOX_CHECKOUT_STATUSES)[number];

/** The webhook event types the sandbox PSP sends. */
export const SANDBOX_EVENT_TYPES = ["payment.captured", "payment.declined", "checkout.expired", "payment.refunded"] as const;
/** One of {@link SANDBOX_EVENT_TYPES}. */
export type SandboxEventType = (typeof SANDBOX_EVENT_TYPES)[number];

/**
 * A hosted checkout session (`sbx_cs_…`). One per idempotency key. `faults` holds this
 * checkout's fault-knob overrides (see lib/payments/sandbox/faults.ts); they win over the
 * global knobs in {@link sandboxSettings}.
 */
export const sandboxCheckouts = sandboxPsp.table(
  "checkouts",
  {
    id: text("id").primaryKey(),
    /** The app's order id, as sent; the PSP does not know the app's tables. */
    orderId: text("order_id").notNull(),
    /** Minor units (cents). */
    amountMinor: integer("amount_minor").notNull(),
    /** ISO 4217, upper case. */
    currency: text("currency").notNull(),
    description: text("description").notNull(),
    returnUrl: text("return_url").notNull(),
    /** After this instant the checkout refuses payment (unless the `captureAfterExpiry` knob is on). */
    expiresAt: ts("expires_at").notNull(),
    status: text("status").$type<SandboxCheckoutStatus>().notNull().default("open"),
    /** `sbx_pay_…`, set when the payment is captured. */
    paymentId: text("payment_id").unique(),
    capturedAt: ts("captured_at"),
    refundedAt: ts("refunded_at"),
    /** `sbx_re_…`, set when the payment is refunded. */
    refundId: text("refund_id"),
    /** The idempotency key of the refund request that refunded this payment. */
    refundIdempotencyKey: text("refund_idempotency_key"),
    /** Minor units given back so far (partial refunds add up; equal to the amount once `refunded`). */
    refundedMinor: integer("refunded_minor").notNull().default(0),
    /** When the latest refund (partial or full) was made: the ledger lists the payment then. */
    lastRefundAt: ts("last_refund_at"),
    /** The app's idempotency key: the same key returns this checkout instead of a new one. */
    idempotencyKey: text("idempotency_key").notNull().unique(),
    /** Per-checkout fault-knob overrides (a partial SandboxFaults object). */
    faults: jsonb("faults").$type<Record<string, unknown>>().notNull().default({}),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    check("checkouts_amount_ck", sql`${t.amountMinor} > 0`),
    check(
      "checkouts_status_ck",
      sql`${t.status} in ('open', 'captured', 'declined', 'expired', 'cancelled', 'refunded')`,
    ),
    index("checkouts_order_idx").on(t.orderId),
    // The ledger API lists payments by when they were captured or refunded.
    index("checkouts_captured_idx").on(t.capturedAt, t.id).where(sql`${t.capturedAt} is not null`),
    index("checkouts_refunded_idx").on(t.refundedAt, t.id).where(sql`${t.refundedAt} is not null`),
    index("checkouts_last_refund_idx").on(t.lastRefundAt, t.id).where(sql`${t.lastRefundAt} is not null`),
    index("checkouts_open_expiry_idx").on(t.expiresAt).where(sql`${t.status} = 'open'`),
  ],
);

/**
 * One partial refund of a captured payment (`sbx_re_…`), one per idempotency key: asking again
 * with the key returns it. A refund that brings the total to the whole amount is the full
 * refund instead (the checkout becomes `refunded`, {@link sandboxCheckouts}).
 */
export const sandboxRefunds = sandboxPsp.table(
  "refunds",
  {
    id: text("id").primaryKey(),
    checkoutId: text("checkout_id")
      .notNull()
      .references(() => sandboxCheckouts.id, { onDelete: "cascade" }),
    /** Minor units. */
    amountMinor: integer("amount_minor").notNull(),
    /** Unique per payment (the key names one refund request of that payment). */
    idempotencyKey: text("idempotency_key").notNull(),
    reason: text("reason").notNull().default(""),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [check("refunds_amount_ck", sql`${t.amountMinor} > 0`), uniqueIndex("refunds_checkout_key_uq").on(t.checkoutId, t.idempotencyKey)],
);

/**
 * One webhook delivery to the app. A duplicated event (the `duplicate` knob) is several
 * rows with the SAME `event_id` on purpose, so the app's dedupe is exercised. `dropped`
 * rows (the `drop` knob) are kept for audit but never delivered.
 */
export const sandboxWebhookDeliveries = sandboxPsp.table(
  "webhook_deliveries",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    checkoutId: text("checkout_id")
      .notNull()
      .references(() => sandboxCheckouts.id, { onDelete: "cascade" }),
    /** `sbx_evt_…`; NOT unique — duplicates reuse it. */
    eventId: text("event_id").notNull(),
    type: text("type").$type<SandboxEventType>().notNull(),
    /** The JSON body that is signed and POSTed (stored as an object; serialised at delivery). */
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    /** Not delivered before this instant (delay, reorder and retry backoff move it). */
    deliverAt: ts("deliver_at").notNull(),
    deliveredAt: ts("delivered_at"),
    /** Delivery attempts made so far (including simulated failures). */
    attempts: integer("attempts").notNull().default(0),
    /** HTTP status of the last attempt, if the app answered. */
    lastStatus: integer("last_status"),
    lastError: text("last_error"),
    /** Never delivered (the `drop` knob). */
    dropped: boolean("dropped").notNull().default(false),
    /** The `failWebhookTimes` knob at enqueue time: the first N attempts are treated as failures without calling the app. */
    failFirstAttempts: integer("fail_first_attempts").notNull().default(0),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [
    index("webhook_deliveries_due_idx")
      .on(t.deliverAt)
      .where(sql`${t.deliveredAt} is null and ${t.dropped} = false`),
    index("webhook_deliveries_checkout_idx").on(t.checkoutId, t.id),
    index("webhook_deliveries_event_idx").on(t.eventId),
  ],
);

/** The single row (id = 1) of global fault knobs (a partial SandboxFaults object). */
export const sandboxSettings = sandboxPsp.table(
  "settings",
  {
    id: integer("id").primaryKey().default(1),
    faults: jsonb("faults").$type<Record<string, unknown>>().notNull().default({}),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [check("settings_single_row_ck", sql`${t.id} = 1`)],
);
