/**
 * StarArena's Postgres schema (drizzle). Postgres is the system of record; Redis is a
 * fast gate rebuilt from these tables (docs/design.md, "Data and invariants").
 *
 * Money is always an integer number of minor units (cents) plus an ISO 4217 currency.
 * Instants are `timestamptz` (UTC); an event also stores its venue's IANA time zone
 * for display. The no-oversell rule (I1) is the partial unique index
 * `line_items_live_seat_uq`: at most one live (held or sold) line item per (event, seat).
 */
import { sql } from "drizzle-orm";
import {
  type AnyPgColumn,
  bigint,
  bigserial,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  primaryKey,
  real,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });
const createdAt = () => ts("created_at").notNull().defaultNow();
const updatedAt = () => ts("updated_at").notNull().defaultNow();

// ─── Accounts (better-auth tables; field names are better-auth's) ─────────────

/** Roles: fans buy; organizers run shows and reach /admin; door staff check tickets in for one organizer's shows and see nothing else. */
export const userRole = pgEnum("user_role", ["fan", "organizer", "door_staff"]);

export const user = pgTable("user", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  email: text("email").notNull().unique(),
  emailVerified: boolean("email_verified").notNull().default(false),
  image: text("image"),
  role: userRole("role").notNull().default("fan"),
  /** The language the person last chose or their browser asked for (`en`, `zh-CN`; lib/i18n): e-mails are written in it. Null until known. */
  locale: text("locale"),
  /** For door staff: the organizer whose shows they may check tickets in for. Null for everyone else. */
  staffOf: text("staff_of").references((): AnyPgColumn => user.id, { onDelete: "cascade" }),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const session = pgTable(
  "session",
  {
    id: text("id").primaryKey(),
    expiresAt: ts("expires_at").notNull(),
    token: text("token").notNull().unique(),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("session_user_idx").on(t.userId)],
);

export const account = pgTable(
  "account",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull(),
    providerId: text("provider_id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    accessToken: text("access_token"),
    refreshToken: text("refresh_token"),
    idToken: text("id_token"),
    accessTokenExpiresAt: ts("access_token_expires_at"),
    refreshTokenExpiresAt: ts("refresh_token_expires_at"),
    scope: text("scope"),
    password: text("password"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("account_user_idx").on(t.userId)],
);

export const verification = pgTable("verification", {
  id: text("id").primaryKey(),
  identifier: text("identifier").notNull(),
  value: text("value").notNull(),
  expiresAt: ts("expires_at").notNull(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

// ─── Venue and seat plan ─────────────────────────────────────────────────────

export const sectionKind = pgEnum("section_kind", ["seated", "general_admission"]);

export const venues = pgTable("venues", {
  id: text("id").primaryKey(),
  slug: text("slug").notNull().unique(),
  name: text("name").notNull(),
  city: text("city").notNull(),
  /** IANA time zone, e.g. "Europe/Berlin". */
  timeZone: text("time_zone").notNull(),
  /** Plan size in plan units; seat coordinates live in [0,width]×[0,height]. */
  planWidth: integer("plan_width").notNull(),
  planHeight: integer("plan_height").notNull(),
  /** Stage polygon in plan units: [[x,y],…]. */
  stage: jsonb("stage").$type<[number, number][]>().notNull(),
  capacity: integer("capacity").notNull(),
  createdAt: createdAt(),
});

export const sections = pgTable(
  "sections",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    venueId: text("venue_id")
      .notNull()
      .references(() => venues.id, { onDelete: "cascade" }),
    code: text("code").notNull(),
    name: text("name").notNull(),
    kind: sectionKind("kind").notNull(),
    tier: text("tier").notNull(),
    outline: jsonb("outline").$type<[number, number][]>().notNull(),
    labelX: real("label_x").notNull(),
    labelY: real("label_y").notNull(),
  },
  (t) => [uniqueIndex("sections_venue_code_uq").on(t.venueId, t.code)],
);

export const rows = pgTable(
  "rows",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    sectionId: integer("section_id")
      .notNull()
      .references(() => sections.id, { onDelete: "cascade" }),
    label: text("label").notNull(),
    sortOrder: integer("sort_order").notNull(),
  },
  (t) => [uniqueIndex("rows_section_label_uq").on(t.sectionId, t.label)],
);

export const seats = pgTable(
  "seats",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    venueId: text("venue_id")
      .notNull()
      .references(() => venues.id, { onDelete: "cascade" }),
    sectionId: integer("section_id")
      .notNull()
      .references(() => sections.id, { onDelete: "cascade" }),
    rowId: integer("row_id")
      .notNull()
      .references(() => rows.id, { onDelete: "cascade" }),
    /** Seat number within its row (general admission: unit number within the floor). */
    number: integer("number").notNull(),
    label: text("label").notNull(),
    /** Dense index 0..capacity-1 within the venue: the bit position in availability bitsets. */
    ordinal: integer("ordinal").notNull(),
    x: real("x").notNull(),
    y: real("y").notNull(),
  },
  (t) => [
    uniqueIndex("seats_row_number_uq").on(t.rowId, t.number),
    uniqueIndex("seats_venue_ordinal_uq").on(t.venueId, t.ordinal),
  ],
);

// ─── Events, price levels, inventory ─────────────────────────────────────────

export const eventStatus = pgEnum("event_status", ["draft", "published", "cancelled"]);

export const events = pgTable(
  "events",
  {
    id: text("id").primaryKey(),
    slug: text("slug").notNull().unique(),
    venueId: text("venue_id")
      .notNull()
      .references(() => venues.id),
    organizerId: text("organizer_id")
      .notNull()
      .references(() => user.id),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    status: eventStatus("status").notNull().default("draft"),
    /** Doors / show start, UTC. */
    startsAt: ts("starts_at").notNull(),
    /** The on-sale instant, UTC. */
    onSaleAt: ts("on_sale_at").notNull(),
    /** The venue's IANA time zone, copied so the show displays in local time. */
    timeZone: text("time_zone").notNull(),
    holdMinutes: integer("hold_minutes").notNull().default(15),
    perFanLimit: integer("per_fan_limit").notNull().default(4),
    /** Waiting-room admission rate, fans per minute. */
    /** The waiting room's settings: written only by lib/waiting-room/config.ts (its one owner). */
    admissionRatePerMinute: integer("admission_rate_per_minute").notNull().default(600),
    /** Most admitted fans shopping at once. */
    activeCap: integer("active_cap").notNull().default(2000),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check("events_hold_minutes_ck", sql`${t.holdMinutes} between 1 and 120`),
    check("events_per_fan_limit_ck", sql`${t.perFanLimit} between 1 and 50`),
    check("events_admission_rate_ck", sql`${t.admissionRatePerMinute} > 0`),
    check("events_active_cap_ck", sql`${t.activeCap} > 0`),
    index("events_on_sale_idx").on(t.onSaleAt),
  ],
);

export const priceLevels = pgTable(
  "price_levels",
  {
    id: text("id").primaryKey(),
    eventId: text("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** Price per seat in minor units (cents). */
    priceMinor: integer("price_minor").notNull(),
    /** ISO 4217 code, upper case. */
    currency: text("currency").notNull(),
    /** Map colour, #rrggbb. */
    color: text("color").notNull(),
    sortOrder: integer("sort_order").notNull().default(0),
  },
  (t) => [
    check("price_levels_price_ck", sql`${t.priceMinor} >= 0`),
    check("price_levels_currency_ck", sql`${t.currency} ~ '^[A-Z]{3}$'`),
    uniqueIndex("price_levels_event_name_uq").on(t.eventId, t.name),
  ],
);

/** Status of one seat of one event, mirrored into Redis for the hold path. */
export const inventoryStatus = pgEnum("inventory_status", ["available", "held", "sold", "blocked"]);

/** Event inventory: which seats of the venue are on sale for this event, at which price level. */
export const eventSeats = pgTable(
  "event_seats",
  {
    eventId: text("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    seatId: integer("seat_id")
      .notNull()
      .references(() => seats.id),
    priceLevelId: text("price_level_id")
      .notNull()
      .references(() => priceLevels.id),
    status: inventoryStatus("status").notNull().default("available"),
  },
  (t) => [primaryKey({ columns: [t.eventId, t.seatId] }), index("event_seats_level_idx").on(t.eventId, t.priceLevelId)],
);

// ─── Orders, payments, tickets ───────────────────────────────────────────────

export const orderStatus = pgEnum("order_status", [
  "pending_payment",
  "paid",
  "ticketed",
  "expired",
  "cancelled",
  "refunded",
]);

export const orders = pgTable(
  "orders",
  {
    id: text("id").primaryKey(),
    eventId: text("event_id")
      .notNull()
      .references(() => events.id),
    fanId: text("fan_id")
      .notNull()
      .references(() => user.id),
    status: orderStatus("status").notNull().default("pending_payment"),
    /** The Redis hold this order came from; release/confirm only with a matching id. */
    holdId: text("hold_id").notNull().unique(),
    holdExpiresAt: ts("hold_expires_at").notNull(),
    totalMinor: integer("total_minor").notNull(),
    currency: text("currency").notNull(),
    /**
     * The idempotency key of the hold request that made this order (the JSON route's
     * `Idempotency-Key` header, the event page's form nonce): the same key from the same
     * fan returns this order instead of a second one (docs/adr/0011).
     */
    idempotencyKey: text("idempotency_key"),
    /**
     * SHA-256 (hex) of the hold request that made this order under `idempotency_key`, in its
     * canonical form (lib/orders/idempotency.ts): the key answers only the same request again;
     * another body is a 422 (docs/adr/0025). Null for orders without a key, and for keyed
     * orders made before fingerprints were stored, whose key then answers 422 to any request.
     */
    idempotencyFingerprint: text("idempotency_fingerprint"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check("orders_total_ck", sql`${t.totalMinor} >= 0`),
    index("orders_event_fan_idx").on(t.eventId, t.fanId),
    index("orders_status_expiry_idx").on(t.status, t.holdExpiresAt),
    uniqueIndex("orders_fan_idempotency_uq").on(t.fanId, t.idempotencyKey),
    // At most one order waiting for payment per fan and show (docs/adr/0011): a double
    // submit cannot leave two holds behind, whatever Redis said.
    uniqueIndex("orders_one_pending_per_fan_uq").on(t.eventId, t.fanId).where(sql`${t.status} = 'pending_payment'`),
  ],
);

/** held → sold, held → released, sold → refunded. */
export const lineItemStatus = pgEnum("line_item_status", ["held", "sold", "released", "refunded"]);

export const lineItems = pgTable(
  "line_items",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    orderId: text("order_id")
      .notNull()
      .references(() => orders.id, { onDelete: "cascade" }),
    eventId: text("event_id")
      .notNull()
      .references(() => events.id),
    seatId: integer("seat_id")
      .notNull()
      .references(() => seats.id),
    priceLevelId: text("price_level_id")
      .notNull()
      .references(() => priceLevels.id),
    /** Price snapshot at hold time, minor units. */
    priceMinor: integer("price_minor").notNull(),
    currency: text("currency").notNull(),
    status: lineItemStatus("status").notNull().default("held"),
    createdAt: createdAt(),
  },
  (t) => [
    // I1 — no oversell, enforced by Postgres itself: one live claim per (event, seat).
    uniqueIndex("line_items_live_seat_uq")
      .on(t.eventId, t.seatId)
      .where(sql`${t.status} in ('held', 'sold')`),
    // An order's line items, by status: every status move (held → sold, held → released, …) and
    // the per-fan recount (I6) name the order and the status. With the status in this index the
    // planner has one index that answers them; with the order alone it may AND it with the
    // partial live-seat index above (whose predicate the status implies) and read every live
    // seat of every show per statement, as it did when the sale's tables had not been analyzed
    // (5–10 ms a statement at 5,000 live seats, growing with the sale; issue 15's profile).
    index("line_items_order_status_idx").on(t.orderId, t.status),
    check("line_items_price_ck", sql`${t.priceMinor} >= 0`),
  ],
);

export const paymentStatus = pgEnum("payment_status", [
  "created",
  "pending",
  "captured",
  "declined",
  "cancelled",
  "refunded",
]);

export const payments = pgTable(
  "payments",
  {
    id: text("id").primaryKey(),
    orderId: text("order_id")
      .notNull()
      .references(() => orders.id),
    /** "sandbox" or "stripe". */
    provider: text("provider").notNull(),
    /** The PSP's checkout session id. */
    checkoutSessionId: text("checkout_session_id").notNull(),
    /** The PSP's payment id once known (e.g. a Stripe PaymentIntent). */
    providerPaymentId: text("provider_payment_id"),
    status: paymentStatus("status").notNull().default("created"),
    amountMinor: integer("amount_minor").notNull(),
    currency: text("currency").notNull(),
    capturedAt: ts("captured_at"),
    refundedAt: ts("refunded_at"),
    /**
     * When reconciliation found this capture in the PSP's own records (its ledger or an
     * active query). A capture believed from a webhook alone stays null until then; the
     * ledger pass checks every such payment (docs/adr/0010).
     */
    ledgerConfirmedAt: ts("ledger_confirmed_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("payments_provider_session_uq").on(t.provider, t.checkoutSessionId),
    index("payments_unconfirmed_idx").on(t.updatedAt).where(sql`${t.status} = 'captured' and ${t.ledgerConfirmedAt} is null`),
    uniqueIndex("payments_provider_payment_uq").on(t.provider, t.providerPaymentId),
    index("payments_order_idx").on(t.orderId),
  ],
);

/**
 * A partial refund an organizer asked for (lib/payments/refund-tickets.ts, docs/adr/0020): some
 * tickets of a paid order, their prices given back at the PSP. One row per request, keyed by
 * its idempotency key (a double submit or a retried job finds the row and refunds nothing
 * twice; the same key goes to the PSP). `requested` until the PSP confirmed the refund, then
 * `succeeded` — in the transaction that voids those tickets and gives their seats back.
 * A payment's money kept is its amount minus its succeeded refunds (a full refund moves the
 * payment itself to `refunded`).
 */
export const refunds = pgTable(
  "refunds",
  {
    id: text("id").primaryKey(),
    orderId: text("order_id")
      .notNull()
      .references(() => orders.id),
    paymentId: text("payment_id")
      .notNull()
      .references(() => payments.id),
    idempotencyKey: text("idempotency_key").notNull().unique(),
    /** Minor units, the sum of the refunded line items' prices. */
    amountMinor: integer("amount_minor").notNull(),
    currency: text("currency").notNull(),
    /** The line items (tickets' seats) this refund is for. */
    lineItemIds: jsonb("line_item_ids").$type<number[]>().notNull(),
    reason: text("reason").notNull(),
    /** "organizer:<id>" or "job:<name>". */
    actor: text("actor").notNull(),
    status: text("status").$type<"requested" | "succeeded">().notNull().default("requested"),
    /** The PSP's refund id once it answered. */
    providerRefundId: text("provider_refund_id"),
    createdAt: createdAt(),
    completedAt: ts("completed_at"),
  },
  (t) => [
    check("refunds_amount_ck", sql`${t.amountMinor} > 0`),
    check("refunds_status_ck", sql`${t.status} in ('requested', 'succeeded')`),
    index("refunds_order_idx").on(t.orderId),
    index("refunds_payment_idx").on(t.paymentId),
  ],
);

/** Webhook events as received; the unique (provider, provider_event_id) makes replays harmless. */
export const paymentEvents = pgTable(
  "payment_events",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    provider: text("provider").notNull(),
    providerEventId: text("provider_event_id").notNull(),
    type: text("type").notNull(),
    orderId: text("order_id").references(() => orders.id),
    payload: jsonb("payload").notNull(),
    receivedAt: ts("received_at").notNull().defaultNow(),
    processedAt: ts("processed_at"),
  },
  (t) => [uniqueIndex("payment_events_provider_event_uq").on(t.provider, t.providerEventId)],
);

export const ticketStatus = pgEnum("ticket_status", ["valid", "used", "void"]);

export const tickets = pgTable(
  "tickets",
  {
    id: text("id").primaryKey(),
    orderId: text("order_id")
      .notNull()
      .references(() => orders.id),
    lineItemId: bigint("line_item_id", { mode: "number" })
      .notNull()
      .references(() => lineItems.id),
    eventId: text("event_id")
      .notNull()
      .references(() => events.id),
    seatId: integer("seat_id")
      .notNull()
      .references(() => seats.id),
    /** Signed ticket code, verifiable offline. */
    code: text("code").notNull().unique(),
    /**
     * The short code a person can read out or type (10 Crockford base-32 characters, shown as
     * XXXXX-XXXXX: lib/tickets/short-code.ts): the door looks a ticket up by it. Null only for
     * tickets issued before it existed.
     */
    shortCode: text("short_code").unique(),
    status: ticketStatus("status").notNull().default("valid"),
    issuedAt: ts("issued_at").notNull().defaultNow(),
    checkedInAt: ts("checked_in_at"),
  },
  (t) => [uniqueIndex("tickets_line_item_uq").on(t.lineItemId), index("tickets_order_idx").on(t.orderId)],
);

/** Append-only log of every order / payment / ticket state change (I8): who, what, when, why. */
export const orderTransitions = pgTable(
  "order_transitions",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    orderId: text("order_id")
      .notNull()
      .references(() => orders.id),
    /** "order", "payment" or "ticket". */
    entity: text("entity").notNull(),
    entityId: text("entity_id").notNull(),
    fromStatus: text("from_status"),
    toStatus: text("to_status").notNull(),
    /** Who or what caused it: a user id, "webhook:<provider>", "job:<name>", "system". */
    actor: text("actor").notNull(),
    reason: text("reason").notNull(),
    at: ts("at").notNull().defaultNow(),
  },
  (t) => [index("order_transitions_order_idx").on(t.orderId, t.at)],
);

/** Transactional outbox: written with the state change, relayed to Inngest afterwards. */
/**
 * The e-mail outbox (lib/mail/): a message to send is a row written in the same transaction as
 * the change it reports (tickets issued, refunded, re-issued) or by the auth library (password
 * reset); the worker sends due rows over SMTP and marks them sent (its only writer afterwards),
 * retrying with back-off. `payload` holds what the message needs (an order id, a reset link);
 * the message itself is rendered when sent.
 */
export const emails = pgTable(
  "emails",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    /** What the message is: order_confirmation, tickets_reissued, order_refunded, password_reset (lib/mail/messages.ts). */
    kind: text("kind").notNull(),
    toAddress: text("to_address").notNull(),
    payload: jsonb("payload").notNull(),
    /** One message per cause (e.g. `order_confirmation:ord_…`): enqueuing it again keeps the first. */
    dedupeKey: text("dedupe_key").notNull().unique(),
    createdAt: createdAt(),
    availableAt: ts("available_at").notNull().defaultNow(),
    sentAt: ts("sent_at"),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
  },
  (t) => [index("emails_unsent_idx").on(t.availableAt).where(sql`${t.sentAt} is null`)],
);

export const outbox = pgTable(
  "outbox",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    /** Inngest event name, e.g. "order/created". */
    name: text("name").notNull(),
    payload: jsonb("payload").notNull(),
    /** Idempotency key forwarded to Inngest as the event id. */
    dedupeKey: text("dedupe_key").notNull().unique(),
    createdAt: createdAt(),
    availableAt: ts("available_at").notNull().defaultNow(),
    sentAt: ts("sent_at"),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
  },
  (t) => [index("outbox_unsent_idx").on(t.availableAt).where(sql`${t.sentAt} is null`)],
);

export const discrepancyStatus = pgEnum("discrepancy_status", ["open", "repaired", "needs_attention", "dismissed"]);

/** A mismatch found by reconciliation, and what was done about it. */
export const discrepancies = pgTable(
  "discrepancies",
  {
    id: text("id").primaryKey(),
    eventId: text("event_id").references(() => events.id),
    orderId: text("order_id").references(() => orders.id),
    kind: text("kind").notNull(),
    detail: jsonb("detail").notNull().default({}),
    status: discrepancyStatus("status").notNull().default("open"),
    action: text("action"),
    detectedAt: ts("detected_at").notNull().defaultNow(),
    resolvedAt: ts("resolved_at"),
  },
  (t) => [index("discrepancies_event_idx").on(t.eventId, t.detectedAt)],
);

/**
 * How far each PSP's ledger has been reconciled: the next pass lists the provider's
 * captures and refunds from a little before `reconciledThrough` (docs/adr/0010).
 */
export const pspLedgerCursors = pgTable("psp_ledger_cursors", {
  provider: text("provider").primaryKey(),
  reconciledThrough: ts("reconciled_through").notNull(),
  updatedAt: updatedAt(),
});

// ─── Worker lease ────────────────────────────────────────────────────────────

/**
 * Which worker process does the background work (lib/jobs/lease.ts): one row per job
 * family (`local-worker`), held by `holder` (host:pid:random) until `expires_at` and renewed
 * every few seconds. A second worker for the same database finds the lease held and stands
 * by, saying so, until the first stops renewing. A row, not a session advisory lock, so it
 * works through a transaction-mode connection pooler (PgBouncer).
 */
export const workerLeases = pgTable("worker_leases", {
  name: text("name").primaryKey(),
  holder: text("holder").notNull(),
  acquiredAt: ts("acquired_at").notNull(),
  expiresAt: ts("expires_at").notNull(),
});

// ─── Organizer audit log ─────────────────────────────────────────────────────

/**
 * Every organizer action on orders and tickets (refund, re-issue, release a stuck hold,
 * check-in, a reconciliation run): who, on which show/order/ticket, what, the outcome
 * (`detail`), when. Written in the same request as the action (successful actions in
 * the same transaction as their state change). Append-only.
 */
export const adminActions = pgTable(
  "admin_actions",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    organizerId: text("organizer_id")
      .notNull()
      .references(() => user.id),
    eventId: text("event_id")
      .notNull()
      .references(() => events.id),
    orderId: text("order_id").references(() => orders.id),
    ticketId: text("ticket_id").references(() => tickets.id),
    /** e.g. "refund", "reissue_tickets", "release_hold", "check_in", "reconcile". */
    action: text("action").notNull(),
    detail: jsonb("detail").$type<Record<string, unknown>>().notNull().default({}),
    at: ts("at").notNull().defaultNow(),
  },
  (t) => [index("admin_actions_event_idx").on(t.eventId, t.at), index("admin_actions_order_idx").on(t.orderId, t.at)],
);
