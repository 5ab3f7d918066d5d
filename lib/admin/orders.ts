/**
 * The organizer's order desk: list a show's orders (by status, a page at a time, or all of
 * them as CSV), find an order of one of their shows, read everything about it, and act on it — refund (lib/payments/refund-order.ts), re-issue tickets
 * (lib/tickets/reissue.ts), release a stuck hold (lib/payments/expiry.ts). This module
 * keeps what is the organizer's: every read and action is scoped to the organizer who
 * owns the show (checked here too, not only by the page), every action and every refusal
 * is written to the audit log (`admin_actions`, lib/audit/admin-actions.ts), and the
 * refusals carry messages the organizer can act on. The domain operations themselves live
 * with their concepts and go through the guarded transitions (I8).
 *
 * Refusals are AppErrors ({@link AdminOrderError} for ownership) with a stable `code`.
 * The audit log keeps a fingerprint (SHA-256 prefix) of every replaced ticket code, never
 * the code itself.
 */
import { createHash } from "node:crypto";
import { asc, eq, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { seatPartColumns } from "@/lib/venues/queries";
import { events, lineItems, orders, orderTransitions, payments, priceLevels, refunds, rows as seatRows, seats, sections, tickets, user } from "@/db/schema";
import { listOrderAdminActions, recordAdminAction, type AdminActionName, type AdminActionView } from "@/lib/audit/admin-actions";
import { databaseNow } from "@/lib/clock";
import type { Db } from "@/lib/db";
import { ORDER_DISPLAY_STATUS_SQL, ORDER_DISPLAY_STATUSES, ORDER_REFUNDED_SQL, PAYMENT_REFUNDED_SQL, displayStatusCondition, isOrderDisplayStatus, orderDisplayStatus, type OrderDisplayStatus } from "@/lib/admin/order-status";
import { AppError, type ErrorKind } from "@/lib/errors";
import { formatMajorUnits } from "@/lib/format";
import type { OrderStatus, PaymentStatus, TicketStatus, TransitionCause } from "@/lib/orders/state-machine";
import { closePendingOrder } from "@/lib/payments/expiry";
import { PaymentProviderError } from "@/lib/payments/provider";
import { refundPaidOrder, type RefundOutcome } from "@/lib/payments/refund-order";
import { refundTickets, type PartialRefundOutcome, type RefundTicketsRequest } from "@/lib/payments/refund-tickets";
import { rotateTicketCodes, type ReissueOutcome } from "@/lib/tickets/reissue";
import { utcToZonedLocal } from "@/lib/time-zone";
import type { SeatParts } from "@/lib/venues/seat-label";

/** Why an admin read or action was refused. */
export type AdminOrderErrorCode =
  /** No such order (or show). */
  | "not_found"
  /** The order belongs to a show another organizer runs. */
  | "not_your_show"
  /** Refund: the order is not paid. */
  | "nothing_to_refund"
  /** Refund: the order was refunded before. */
  | "already_refunded"
  /** Refund: paid, but no captured payment exists to give back. */
  | "no_payment"
  /** Re-issue: the order is not ticketed, or has no valid tickets. */
  | "no_valid_tickets"
  /** Release: the order is not waiting for payment. */
  | "not_pending"
  /** Release: the hold has not expired yet. */
  | "hold_running"
  /** The PSP did not answer or refused; nothing irreversible happened, try again. */
  | "psp_unavailable"
  /** Something else is changing the order right now (e.g. tickets being issued); try again. */
  | "busy"
  /** Order list: the status filter names no status ({@link ORDER_LIST_STATUSES}). */
  | "unknown_status"
  /** Order list: the page is not a whole number from 1. */
  | "bad_page";

const ADMIN_ERROR_KIND: Record<AdminOrderErrorCode, ErrorKind> = {
  not_found: "not_found",
  not_your_show: "forbidden",
  nothing_to_refund: "conflict",
  already_refunded: "conflict",
  no_payment: "conflict",
  no_valid_tickets: "conflict",
  not_pending: "conflict",
  hold_running: "conflict",
  psp_unavailable: "unavailable",
  busy: "conflict",
  unknown_status: "bad_request",
  bad_page: "bad_request",
};

/** A refused admin read or action. `message` is written for the organizer; `params` are its facts (the translations' ICU arguments). */
export class AdminOrderError extends AppError {
  declare readonly code: AdminOrderErrorCode;
  constructor(code: AdminOrderErrorCode, message: string, params?: Record<string, string | number>) {
    super(ADMIN_ERROR_KIND[code], code, message, { params });
  }
}

// ─── Seats ───────────────────────────────────────────────────────────────────

/**
 * A seat of an order: its stored English label (what ticket codes sign and the search
 * matches) and the parts its label is composed from in the reader's language
 * (lib/venues/seat-label.ts, docs/adr/0029).
 */
export interface OrderSeat extends SeatParts {
  label: string;
}

/** The seats of the order `o`'s line items in seat order (also those released or refunded since), as JSON {@link OrderSeat}s. */
const ORDER_SEATS_SQL = sql`coalesce((
  select json_agg(json_build_object('label', s.label, 'section', sec.code, 'standing', sec.kind = 'general_admission', 'row', rw.label, 'number', s.number) order by s.ordinal, li.id)
  from line_items li join seats s on s.id = li.seat_id join sections sec on sec.id = s.section_id join rows rw on rw.id = s.row_id
  where li.order_id = o.id), '[]'::json)`;

/** JSON read back by the driver (postgres.js parses json; a string is parsed here). */
const fromJson = <T>(value: T | string): T => (typeof value === "string" ? (JSON.parse(value) as T) : value);

/** Columns of a seat's parts for drizzle selects joined to `seats`, `sections` and `rows`. */
const seatColumns = {
  label: seats.label,
  ...seatPartColumns,
};

/** Every seat an order was for (line items in seat order), for composing labels the actions name by stored label. */
export async function seatsOfOrder(db: Db, orderId: string): Promise<OrderSeat[]> {
  return db
    .select(seatColumns)
    .from(lineItems)
    .innerJoin(seats, eq(lineItems.seatId, seats.id))
    .innerJoin(sections, eq(seats.sectionId, sections.id))
    .innerJoin(seatRows, eq(seats.rowId, seatRows.id))
    .where(eq(lineItems.orderId, orderId))
    .orderBy(asc(seats.ordinal), asc(lineItems.id));
}

// ─── Search ──────────────────────────────────────────────────────────────────

/** One hit of {@link searchOrders}: a row as the order list shows it, and what the query matched. */
export interface OrderSearchHit extends OrderListRow {
  matchedBy: "order_id" | "email" | "seat" | "latest";
}

/** Most hits returned by {@link searchOrders}. */
export const SEARCH_LIMIT = 50;

/** "Row B · Seat 4" → "row b seat 4": lower case, anything but letters and digits becomes one space. */
export function normalizeSeatQuery(q: string): string {
  return q
    .toLowerCase()
    .replace(/[^0-9a-z]+/g, " ")
    .trim();
}

/** Chinese seat words (the `Seat` catalogue's zh-CN labels) → the stored English label's words. */
const CHINESE_SEAT_WORDS: readonly [RegExp, string][] = [
  [/内场站区|内场/g, " floor ga "],
  [/([0-9a-z]+)\s*区/gi, " sec $1 "],
  [/([0-9a-z]+)\s*排/gi, " row $1 "],
];

/**
 * The pattern (a Postgres regular expression over the stored label, normalized as by
 * {@link normalizeSeatQuery}) a seat query matches on whole words, or null when it has no
 * letters or digits. English as stored ("Row B · Seat 4", "row b seat 4") and Chinese as
 * composed for a zh-CN reader ("104区 7排 12号", "7排12号", "内场站区 153号") both work:
 * "N号" (or "N座") is seat N or, on a standing floor, unit N.
 */
export function seatLabelPattern(q: string): string | null {
  let text = q.toLowerCase();
  for (const [chinese, english] of CHINESE_SEAT_WORDS) text = text.replace(chinese, english);
  // split keeps the captured numbers at odd indexes: text, number, text, …
  const words = text
    .split(/(\d+)\s*[号座]/)
    .map((part, i) => (i % 2 === 1 ? `(seat|unit) ${part}` : normalizeSeatQuery(part)))
    .filter((part) => part !== "")
    .join(" ");
  return words === "" ? null : `(^| )${words}( |$)`;
}

/** Escapes `%`, `_` and `\` for a LIKE pattern. */
const likeEscape = (q: string) => q.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Throws unless `organizerId` runs `eventId`. */
async function assertOwnsEvent(db: Db, organizerId: string, eventId: string): Promise<typeof events.$inferSelect> {
  const event = await db.query.events.findFirst({ where: eq(events.id, eventId) });
  if (!event) throw new AdminOrderError("not_found", "There is no such show.");
  if (event.organizerId !== organizerId) throw new AdminOrderError("not_your_show", "This show is run by another organizer.");
  return event;
}

/**
 * Finds orders of one show the organizer runs, newest first (at most {@link SEARCH_LIMIT}), as
 * the order list shows them (the same rows, statuses and refunded amounts: {@link listEventOrders}).
 * The query is read as:
 * - an order id (`ord_…`, or its beginning) → that order;
 * - digits only → the seat with that ordinal (the venue's seat number 0…capacity-1);
 * - anything with `@` → fan email, case-insensitive, partial;
 * - anything else → fan email (partial) or a seat label fragment ({@link seatLabelPattern}),
 *   compared without punctuation and on whole words ("Row B · Seat 4", "row b seat 4",
 *   "Seat 4" and "B排 4号" match "Sec MAIN · Row B · Seat 4", not "… Seat 40"). Orders that
 *   once held the seat match too.
 * An empty query lists the latest orders.
 * @throws {AdminOrderError} "not_found" (no such show), "not_your_show".
 */
export async function searchOrders(db: Db, organizerId: string, eventId: string, query: string): Promise<OrderSearchHit[]> {
  await assertOwnsEvent(db, organizerId, eventId);
  const q = query.trim().slice(0, 200);
  let matchedBy: OrderSearchHit["matchedBy"];
  let where: SQL;
  const seatMatch = (cond: SQL) => sql`exists (select 1 from line_items li2 join seats s2 on s2.id = li2.seat_id where li2.order_id = o.id and ${cond})`;
  if (q === "") {
    matchedBy = "latest";
    where = sql`true`;
  } else if (/^ord_[0-9a-z]*$/i.test(q)) {
    matchedBy = "order_id";
    where = sql`o.id like ${`${likeEscape(q.toLowerCase())}%`}`;
  } else if (/^\d{1,9}$/.test(q)) {
    matchedBy = "seat";
    where = seatMatch(sql`s2.ordinal = ${Number(q)}`);
  } else if (q.includes("@")) {
    matchedBy = "email";
    where = sql`u.email ilike ${`%${likeEscape(q)}%`}`;
  } else {
    matchedBy = "email";
    const pattern = seatLabelPattern(q);
    const labelCond = pattern ? seatMatch(sql`trim(regexp_replace(lower(s2.label), '[^0-9a-z]+', ' ', 'g')) ~ ${pattern}`) : sql`false`;
    where = sql`(u.email ilike ${`%${likeEscape(q)}%`} or ${labelCond})`;
  }
  const rows = await selectOrderRows(db, eventId, where, { limit: SEARCH_LIMIT });
  const needle = q.toLowerCase();
  return rows.map((r) => ({ ...r, matchedBy: matchedBy === "email" && !(r.fanEmail ?? "").toLowerCase().includes(needle) ? "seat" : matchedBy }));
}

// ─── The order list and its CSV ──────────────────────────────────────────────

/**
 * A status of the order list, its filters and the search: what the order shows as
 * (lib/admin/order-status.ts — "partially_refunded" for a ticketed order with a succeeded
 * partial refund, so the filters split a show's orders into groups that add up to all of them).
 */
export type OrderListStatus = OrderDisplayStatus;

/** Every {@link OrderListStatus}, in the order the filters show them. */
export const ORDER_LIST_STATUSES: readonly OrderListStatus[] = ORDER_DISPLAY_STATUSES;

/** Orders per page of {@link listEventOrders} unless asked otherwise. */
export const ORDER_PAGE_SIZE = 50;
/** The largest page {@link listEventOrders} reads, and the batch {@link exportEventOrdersCsv} reads at a time. */
export const ORDER_BATCH_MAX = 1_000;

/** One order of the list (and one line of its CSV). Money in minor units of `currency`. */
export interface OrderListRow {
  id: string;
  status: OrderListStatus;
  /** Null when the fan's account was deleted. */
  fanEmail: string | null;
  fanName: string;
  /** Every seat the order was for (also those released or refunded since), in seat order. */
  seats: OrderSeat[];
  totalMinor: number;
  currency: string;
  createdAt: Date;
  /** When the order first became paid (its transition log), or null if it never was. */
  paidAt: Date | null;
  /** Money given back (lib/admin/order-status.ts: refunded payments in full, plus succeeded partial refunds of the others). */
  refundedMinor: number;
}

/** One page of {@link listEventOrders}. */
export interface OrderListPage {
  rows: OrderListRow[];
  /** Orders matching the filter, on all pages. */
  total: number;
  /** The page shown, 1-based (a page past the last is clamped to the last). */
  page: number;
  /** Number of pages, at least 1 (an empty list has one empty page). */
  pages: number;
  pageSize: number;
  /** The filter; null for all orders. */
  status: OrderListStatus | null;
}

const badPage = () => new AdminOrderError("bad_page", "The page must be a whole number from 1.");

/** The filter as given (a query string value or absent) → a status, or null for all orders. */
function listStatus(status: unknown): OrderListStatus | null {
  if (status === undefined || status === null || status === "" || status === "all") return null;
  if (isOrderDisplayStatus(status)) return status;
  const given = typeof status === "string" ? status.slice(0, 40) : "";
  const shown = typeof status === "string" ? `"${given}"` : "That";
  throw new AdminOrderError("unknown_status", `${shown} is not an order status. Filter by one of ${ORDER_LIST_STATUSES.join(", ")} — or by none, for all orders.`, { status: given });
}

/**
 * Reads the order list's query string: `status` (an {@link OrderListStatus}; absent, empty
 * or "all" for all orders) and `page` (digits, from 1; absent or empty for the first).
 * @throws {AdminOrderError} 400 "unknown_status", 400 "bad_page" (also for a repeated parameter).
 */
export function parseOrderListQuery(query: { status?: unknown; page?: unknown }): { status: OrderListStatus | null; page: number } {
  const status = listStatus(query.status);
  if (query.page === undefined || query.page === "") return { status, page: 1 };
  if (typeof query.page !== "string" || !/^\d{1,9}$/.test(query.page) || Number(query.page) < 1) throw badPage();
  return { status, page: Number(query.page) };
}

/**
 * Orders of one show matching `where` (a condition on `orders o` and `"user" u`), newest
 * first (created_at desc, id desc — a stable order for paging): either a page (`offset`) or
 * the batch after the order `after` (keyset, for the export: exact whatever the timestamps'
 * precision, and no deep OFFSET scans). The list, the search and the CSV read their rows here.
 */
async function selectOrderRows(db: Db, eventId: string, where: SQL, at: { limit: number; offset?: number; after?: string }): Promise<OrderListRow[]> {
  const after = at.after ? sql`and (o.created_at, o.id) < (select a.created_at, a.id from orders a where a.id = ${at.after})` : sql``;
  const rows = (await db.execute(sql`
    select o.id, ${ORDER_DISPLAY_STATUS_SQL} as status,
           u.email as fan_email, coalesce(u.name, '') as fan_name,
           o.total_minor, o.currency, o.created_at,
           ${ORDER_SEATS_SQL} as seats,
           (select min(t.at) from order_transitions t where t.order_id = o.id and t.entity = 'order' and t.to_status = 'paid') as paid_at,
           ${ORDER_REFUNDED_SQL} as refunded_minor
    from orders o
    left join "user" u on u.id = o.fan_id
    where o.event_id = ${eventId} and ${where} ${after}
    order by o.created_at desc, o.id desc
    limit ${at.limit} offset ${at.offset ?? 0}`)) as unknown as {
    id: string;
    status: OrderListStatus;
    fan_email: string | null;
    fan_name: string;
    total_minor: number;
    currency: string;
    created_at: string | Date;
    seats: OrderSeat[] | string;
    paid_at: string | Date | null;
    refunded_minor: number | string;
  }[];
  return rows.map((r) => ({
    id: r.id,
    status: r.status,
    fanEmail: r.fan_email,
    fanName: r.fan_name,
    seats: fromJson(r.seats),
    totalMinor: r.total_minor,
    currency: r.currency,
    createdAt: new Date(r.created_at),
    paidAt: r.paid_at === null ? null : new Date(r.paid_at),
    refundedMinor: Number(r.refunded_minor),
  }));
}

/**
 * One page of a show's orders for its organizer, newest first (created_at desc, then id
 * desc), optionally of one {@link OrderListStatus}.
 * @param opts.page 1-based; a page past the last shows the last (the answer's `page` says which).
 * @param opts.pageSize 1…{@link ORDER_BATCH_MAX}, default {@link ORDER_PAGE_SIZE}.
 * @returns the rows, the number of matching orders (`total`), the page shown and the number of pages.
 * @throws {AdminOrderError} 404 "not_found" (no such show), 403 "not_your_show", 400
 *   "unknown_status", 400 "bad_page" (not a whole number from 1); RangeError for a page size out of range.
 */
export async function listEventOrders(
  db: Db,
  organizerId: string,
  eventId: string,
  opts: { status?: string | null; page?: number; pageSize?: number } = {},
): Promise<OrderListPage> {
  await assertOwnsEvent(db, organizerId, eventId);
  const status = listStatus(opts.status);
  const page = opts.page ?? 1;
  if (!Number.isSafeInteger(page) || page < 1) throw badPage();
  const pageSize = opts.pageSize ?? ORDER_PAGE_SIZE;
  if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > ORDER_BATCH_MAX) throw new RangeError(`pageSize must be 1…${ORDER_BATCH_MAX}, not ${pageSize}`);
  const [{ n: total } = { n: 0 }] = (await db.execute(sql`select count(*)::int as n from orders o where o.event_id = ${eventId} and ${displayStatusCondition(status)}`)) as unknown as { n: number }[];
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const shown = Math.min(page, pages);
  const rows = await selectOrderRows(db, eventId, displayStatusCondition(status), { limit: pageSize, offset: (shown - 1) * pageSize });
  return { rows, total, page: shown, pages, pageSize, status };
}

/**
 * How many orders of a show have each {@link OrderListStatus} (every status present, 0 when
 * none), and all of them together, for the list's filters.
 * @throws {AdminOrderError} 404 "not_found", 403 "not_your_show".
 */
export async function countEventOrders(db: Db, organizerId: string, eventId: string): Promise<{ total: number; byStatus: Record<OrderListStatus, number> }> {
  await assertOwnsEvent(db, organizerId, eventId);
  const rows = (await db.execute(sql`select ${ORDER_DISPLAY_STATUS_SQL} as status, count(*)::int as n from orders o where o.event_id = ${eventId} group by 1`)) as unknown as {
    status: OrderListStatus;
    n: number;
  }[];
  const byStatus = Object.fromEntries(ORDER_LIST_STATUSES.map((s) => [s, 0])) as Record<OrderListStatus, number>;
  for (const r of rows) byStatus[r.status] = r.n;
  return { total: rows.reduce((sum, r) => sum + r.n, 0), byStatus };
}

/** One CSV field (RFC 4180): quoted, with its quotes doubled, when it holds a comma, a quote or a line break. */
const csvField = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);

/** Text a fan typed: a leading `=`, `+`, `-`, `@`, tab or CR gets a `'` so a spreadsheet shows it instead of running it as a formula (OWASP "CSV injection"). */
const inert = (text: string) => (/^[=+\-@\t\r]/.test(text) ? `'${text}` : text);

/** An instant as ISO 8601 UTC to the second: "2026-12-03T19:00:00Z". */
const isoUtc = (at: Date) => at.toISOString().replace(/\.\d{3}Z$/, "Z");

/** An instant as ISO 8601 on the wall clock of `timeZone`, with its offset: "2026-12-03T20:00:00+01:00" (Europe/Berlin). */
function isoInZone(at: Date, timeZone: string): string {
  const local = utcToZonedLocal(at, timeZone);
  const minute = Math.floor(at.getTime() / 60_000) * 60_000;
  const offset = Math.round((Date.parse(`${local}:00Z`) - minute) / 60_000);
  const two = (n: number) => String(n).padStart(2, "0");
  const abs = Math.abs(offset);
  return `${local}:${two(at.getUTCSeconds())}${offset < 0 ? "-" : "+"}${two(Math.floor(abs / 60))}:${two(abs % 60)}`;
}

/** The CSV's column names; the venue's local time column names its zone. */
export function ordersCsvColumns(timeZone: string): string[] {
  return ["order id", "status", "fan email", "fan name", "seats", "total", "currency", "created at (UTC)", `created at (${timeZone})`, "paid at (UTC)", "refunded"];
}

/**
 * Orders as CSV (RFC 4180: CRLF after every record, fields holding a comma, quote or line
 * break quoted with their quotes doubled), one line per order in the columns of
 * {@link ordersCsvColumns}: the order id, its list status, the fan's email and name (a leading
 * formula character neutralised with `'`), the number of seats, the total and the refunded
 * amount in major units ("90.00" for 9000 EUR cents), the currency, when it was created in UTC
 * and on the venue's clock (`timeZone`, ISO 8601 with its offset), and when it was paid (UTC, empty if never).
 * @param opts.header false to leave out the header line (for batches after the first). Default true.
 */
export function ordersCsv(rows: readonly OrderListRow[], opts: { timeZone: string; header?: boolean }): string {
  const lines = opts.header === false ? [] : [ordersCsvColumns(opts.timeZone)];
  for (const r of rows) {
    lines.push([
      r.id,
      r.status,
      inert(r.fanEmail ?? "(deleted account)"),
      inert(r.fanName),
      String(r.seats.length),
      formatMajorUnits(r.totalMinor, r.currency),
      r.currency,
      isoUtc(r.createdAt),
      isoInZone(r.createdAt, opts.timeZone),
      r.paidAt ? isoUtc(r.paidAt) : "",
      formatMajorUnits(r.refundedMinor, r.currency),
    ]);
  }
  return lines.map((fields) => `${fields.map(csvField).join(",")}\r\n`).join("");
}

/**
 * Every order of a show matching the filter as CSV ({@link ordersCsv}), for its organizer:
 * the header, then the orders newest first, read {@link ORDER_BATCH_MAX} at a time (keyset
 * paging) as the stream is read — a 20,000-order show is never held in memory at once. The
 * batches are separate reads, not one snapshot: an order changing status during the download
 * may be missed or appear under its old status.
 * @param opts.status an {@link OrderListStatus}, or absent/null/"" for all orders.
 * @param opts.batchSize orders per read (tests use small ones), default {@link ORDER_BATCH_MAX}.
 * @returns the UTF-8 body and a file name, `<slug>-orders-<status or "all">.csv`.
 * @throws {AdminOrderError} 404 "not_found", 403 "not_your_show", 400 "unknown_status" — before
 *   anything is read; a database error later errors the stream.
 */
export async function exportEventOrdersCsv(
  db: Db,
  organizerId: string,
  eventId: string,
  opts: { status?: string | null; batchSize?: number } = {},
): Promise<{ filename: string; body: ReadableStream<Uint8Array> }> {
  const event = await assertOwnsEvent(db, organizerId, eventId);
  const status = listStatus(opts.status);
  const batchSize = opts.batchSize ?? ORDER_BATCH_MAX;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > ORDER_BATCH_MAX) throw new RangeError(`batchSize must be 1…${ORDER_BATCH_MAX}, not ${batchSize}`);
  const utf8 = new TextEncoder();
  let after: string | undefined;
  let started = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(utf8.encode(ordersCsv([], { timeZone: event.timeZone })));
        return;
      }
      const rows = await selectOrderRows(db, event.id, displayStatusCondition(status), { limit: batchSize, after });
      if (rows.length > 0) controller.enqueue(utf8.encode(ordersCsv(rows, { timeZone: event.timeZone, header: false })));
      if (rows.length < batchSize) controller.close();
      else after = rows.at(-1)!.id;
    },
  });
  return { filename: `${event.slug}-orders-${status ?? "all"}.csv`, body };
}

// ─── One order ───────────────────────────────────────────────────────────────

/** A line item's status (its seat held, sold, released or refunded). */
export type LineItemStatus = (typeof lineItems.$inferSelect)["status"];

/** Everything the admin order page shows. Seats come as {@link OrderSeat}s: the page composes their labels in the reader's language. */
export interface AdminOrderView {
  id: string;
  /** The order's own status (lib/orders/state-machine.ts). */
  status: OrderStatus;
  /** What it shows as to the organizer (lib/admin/order-status.ts): "partially_refunded" for a ticketed order with a succeeded partial refund. */
  displayStatus: OrderDisplayStatus;
  holdId: string;
  holdExpiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
  totalMinor: number;
  currency: string;
  event: { id: string; name: string; slug: string; timeZone: string };
  /** The fan; `email` null when the account was deleted. */
  fan: { id: string; email: string | null; name: string };
  lineItems: { id: number; ordinal: number; seat: OrderSeat; priceLevel: string; priceMinor: number; status: LineItemStatus }[];
  payments: {
    id: string;
    provider: string;
    checkoutSessionId: string;
    providerPaymentId: string | null;
    status: PaymentStatus;
    amountMinor: number;
    /** Money given back of this payment (lib/admin/order-status.ts): all of it once refunded, else its succeeded partial refunds. */
    refundedMinor: number;
    currency: string;
    createdAt: Date;
    capturedAt: Date | null;
    refundedAt: Date | null;
  }[];
  tickets: { id: string; seat: OrderSeat; code: string; status: TicketStatus; issuedAt: Date; checkedInAt: Date | null }[];
  /** The transition log (I8), oldest first (newest last). */
  transitions: { id: number; entity: string; entityId: string; fromStatus: string | null; toStatus: string; actor: string; reason: string; at: Date }[];
  /** Organizer actions on this order, oldest first. */
  adminActions: AdminActionView[];
  /** Partial refunds (docs/adr/0020), oldest first. */
  refunds: { id: string; amountMinor: number; currency: string; reason: string; status: "requested" | "succeeded"; createdAt: Date; seats: OrderSeat[] }[];
  /** Which actions make sense now (the lib re-checks when they run). */
  can: { refund: boolean; refundTickets: boolean; reissue: boolean; releaseHold: boolean };
}

/** The show an order belongs to, for the page's ownership check (null for an unknown order). */
export async function orderShow(db: Db, orderId: string): Promise<{ orderId: string; eventId: string } | null> {
  const [row] = await db.select({ orderId: orders.id, eventId: orders.eventId }).from(orders).where(eq(orders.id, orderId));
  return row ?? null;
}

/** Loads the order and checks the organizer runs its show. */
async function ownedOrder(db: Db, organizerId: string, orderId: string) {
  const [row] = await db.select({ order: orders, event: events }).from(orders).innerJoin(events, eq(orders.eventId, events.id)).where(eq(orders.id, orderId));
  if (!row) throw new AdminOrderError("not_found", "There is no such order.");
  if (row.event.organizerId !== organizerId) throw new AdminOrderError("not_your_show", "This order is for a show run by another organizer.");
  return row;
}

/**
 * One order of a show the organizer runs: the order, the fan's email, line items with
 * seat labels, payments, tickets (with their codes), the transition log (newest last)
 * and the audit entries.
 * @throws {AdminOrderError} "not_found", "not_your_show".
 */
export async function getAdminOrder(db: Db, organizerId: string, orderId: string, now?: Date): Promise<AdminOrderView> {
  const { order, event } = await ownedOrder(db, organizerId, orderId);
  const [fan] = await db.select({ id: user.id, email: user.email, name: user.name }).from(user).where(eq(user.id, order.fanId));
  const items = await db
    .select({ id: lineItems.id, ordinal: seats.ordinal, seat: seatColumns, priceLevel: priceLevels.name, priceMinor: lineItems.priceMinor, status: lineItems.status })
    .from(lineItems)
    .innerJoin(seats, eq(lineItems.seatId, seats.id))
    .innerJoin(sections, eq(seats.sectionId, sections.id))
    .innerJoin(seatRows, eq(seats.rowId, seatRows.id))
    .innerJoin(priceLevels, eq(lineItems.priceLevelId, priceLevels.id))
    .where(eq(lineItems.orderId, orderId))
    .orderBy(asc(seats.ordinal), asc(lineItems.id));
  const p = alias(payments, "p");
  const pays = await db
    .select({
      id: p.id,
      provider: p.provider,
      checkoutSessionId: p.checkoutSessionId,
      providerPaymentId: p.providerPaymentId,
      status: p.status,
      amountMinor: p.amountMinor,
      refundedMinor: sql<number>`${PAYMENT_REFUNDED_SQL}`.mapWith(Number),
      currency: p.currency,
      createdAt: p.createdAt,
      capturedAt: p.capturedAt,
      refundedAt: p.refundedAt,
    })
    .from(p)
    .where(eq(p.orderId, orderId))
    .orderBy(asc(p.createdAt), asc(p.id));
  const tix = await db
    .select({ id: tickets.id, seat: seatColumns, code: tickets.code, status: tickets.status, issuedAt: tickets.issuedAt, checkedInAt: tickets.checkedInAt })
    .from(tickets)
    .innerJoin(seats, eq(tickets.seatId, seats.id))
    .innerJoin(sections, eq(seats.sectionId, sections.id))
    .innerJoin(seatRows, eq(seats.rowId, seatRows.id))
    .where(eq(tickets.orderId, orderId))
    .orderBy(asc(seats.ordinal));
  const log = await db
    .select({
      id: orderTransitions.id,
      entity: orderTransitions.entity,
      entityId: orderTransitions.entityId,
      fromStatus: orderTransitions.fromStatus,
      toStatus: orderTransitions.toStatus,
      actor: orderTransitions.actor,
      reason: orderTransitions.reason,
      at: orderTransitions.at,
    })
    .from(orderTransitions)
    .where(eq(orderTransitions.orderId, orderId))
    .orderBy(asc(orderTransitions.at), asc(orderTransitions.id));
  const partial = await db.select().from(refunds).where(eq(refunds.orderId, orderId)).orderBy(asc(refunds.createdAt));
  return {
    id: order.id,
    status: order.status,
    displayStatus: orderDisplayStatus(order.status, partial.some((r) => r.status === "succeeded")),
    holdId: order.holdId,
    holdExpiresAt: order.holdExpiresAt,
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
    totalMinor: order.totalMinor,
    currency: order.currency,
    event: { id: event.id, name: event.name, slug: event.slug, timeZone: event.timeZone },
    fan: fan ?? { id: order.fanId, email: null, name: "" },
    lineItems: items,
    payments: pays,
    tickets: tix,
    transitions: log,
    adminActions: await listOrderAdminActions(db, orderId),
    refunds: partial.map((r) => ({
      id: r.id,
      amountMinor: r.amountMinor,
      currency: r.currency,
      reason: r.reason,
      status: r.status,
      createdAt: r.createdAt,
      seats: items.filter((l) => r.lineItemIds.includes(l.id)).map((l) => l.seat),
    })),
    can: {
      refund: order.status === "paid" || order.status === "ticketed",
      refundTickets: order.status === "ticketed" && tix.some((t) => t.status === "valid"),
      reissue: order.status === "ticketed" && tix.some((t) => t.status === "valid"),
      releaseHold: order.status === "pending_payment" && order.holdExpiresAt <= (await databaseNow(db, now)),
    },
  };
}

// ─── Actions ─────────────────────────────────────────────────────────────────

const causeOf = (organizerId: string, reason: string): TransitionCause => ({ actor: `organizer:${organizerId}`, reason });

/** Records a refusal in the audit log, then throws it. */
async function refuse(db: Db, ctx: { organizerId: string; eventId: string; orderId: string }, action: AdminActionName, code: AdminOrderErrorCode, message: string): Promise<never> {
  await recordAdminAction(db, { ...ctx, action, detail: { outcome: "refused", code, message } });
  throw new AdminOrderError(code, message);
}

/** A fingerprint of a ticket code for the audit log (the code itself admits a person). */
const fingerprint = (code: string) => createHash("sha256").update(code).digest("hex").slice(0, 16);

/**
 * Refunds a paid or ticketed order of the organizer's show in full (lib/payments/refund-order.ts:
 * money first, then the order, tickets and seats in one transaction, with the audit entry
 * in that same transaction; a refusal is audited too).
 * @param reason why, for the transition log and the audit log.
 * @throws {AdminOrderError} "not_found", "not_your_show"; {AppError} the refund's refusals
 *   ("already_refunded", "nothing_to_refund", "no_payment", "psp_unavailable", "busy").
 */
export async function refundOrder(db: Db, organizerId: string, orderId: string, reason = "refunded by the organizer"): Promise<RefundOutcome> {
  const { order } = await ownedOrder(db, organizerId, orderId);
  const ctx = { organizerId, eventId: order.eventId, orderId };
  return audited(db, ctx, "refund", () =>
    refundPaidOrder(db, orderId, causeOf(organizerId, reason), {
      withinTransaction: (tx, ended, refunded) =>
        recordAdminAction(tx, { ...ctx, action: "refund", detail: { outcome: "done", reason, from: ended.from, payments: refunded, ticketsVoided: ended.ticketsVoided, seats: ended.seatsReleased } }),
    }),
  );
}

/**
 * Refunds some tickets of a ticketed order of the organizer's show (lib/payments/refund-tickets.ts,
 * docs/adr/0020): exactly their prices at the PSP, the tickets void, their seats back on sale,
 * the fan told which tickets; the audit entry (with the reason) in the same transaction, a
 * refusal audited too. Idempotent per `request.idempotencyKey`.
 * @throws {AdminOrderError} "not_found", "not_your_show"; {AppError} the partial refund's
 *   refusals (400 `reason_required`, `reason_too_long`, `no_tickets_chosen`; 404 `no_such_ticket`;
 *   409 `not_ticketed`, `ticket_not_valid`, `ticket_being_refunded`, `idempotency_conflict`; 503 `psp_unavailable`).
 */
export async function refundOrderTickets(db: Db, organizerId: string, orderId: string, request: RefundTicketsRequest): Promise<PartialRefundOutcome> {
  const { order } = await ownedOrder(db, organizerId, orderId);
  const ctx = { organizerId, eventId: order.eventId, orderId };
  const reason = request.reason.trim();
  return audited(db, ctx, "refund_tickets", () =>
    refundTickets(db, orderId, request, causeOf(organizerId, reason), {
      withinTransaction: (tx, done) =>
        recordAdminAction(tx, { ...ctx, action: "refund_tickets", detail: { outcome: "done", reason, refundId: done.refundId, amountMinor: done.amountMinor, currency: done.currency, seats: done.seats, tickets: done.ticketIds } }),
    }),
  );
}

/**
 * Gives every valid ticket of a ticketed order of the organizer's show a new code
 * (lib/tickets/reissue.ts); each replaced code's fingerprint goes to the audit log.
 * @throws {AdminOrderError} "not_found", "not_your_show"; {AppError} "no_valid_tickets".
 */
export async function reissueTickets(db: Db, organizerId: string, orderId: string, reason = "tickets re-issued by the organizer"): Promise<ReissueOutcome> {
  const { order } = await ownedOrder(db, organizerId, orderId);
  const ctx = { organizerId, eventId: order.eventId, orderId };
  return audited(db, ctx, "reissue_tickets", () =>
    rotateTicketCodes(db, orderId, {
      onRotated: (tx, ticket, oldCode, newCode) =>
        recordAdminAction(tx, { ...ctx, ticketId: ticket.id, action: "reissue_tickets", detail: { outcome: "done", reason, seat: ticket.seatLabel, replacedCode: fingerprint(oldCode), newCode: fingerprint(newCode) } }),
      onNothingRotated: (tx, skipped) => recordAdminAction(tx, { ...ctx, action: "reissue_tickets", detail: { outcome: "refused", code: "no_valid_tickets", skipped } }),
    }),
  );
}

/** Runs an organizer's action; a refusal it throws (an AppError) is written to the audit log, then thrown on. */
async function audited<T>(db: Db, ctx: { organizerId: string; eventId: string; orderId: string }, action: AdminActionName, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof AppError) await recordAdminAction(db, { ...ctx, action, detail: { outcome: "refused", code: error.code, message: error.message } });
    throw error;
  }
}

/** What {@link releaseStuckHold} did. */
export interface ReleaseOutcome {
  orderId: string;
  /** "released": the order is cancelled and its seats are back on sale; "paid": the PSP reported a payment, so the order was paid instead. */
  result: "released" | "paid";
}

/**
 * Ends a hold that outlived its expiry (the sweep could not settle it, e.g. the PSP was
 * down): `pending_payment → cancelled` through closePendingOrder, which asks the PSP
 * first and cancels open checkouts — a payment found on the way pays the order instead.
 * A hold still running is refused: it ends by itself, and the fan may be paying.
 * @throws {AdminOrderError} "not_found", "not_your_show", "not_pending", "hold_running", "psp_unavailable".
 */
export async function releaseStuckHold(db: Db, organizerId: string, orderId: string, now?: Date): Promise<ReleaseOutcome> {
  const { order, event } = await ownedOrder(db, organizerId, orderId);
  const ctx = { organizerId, eventId: order.eventId, orderId };
  if (order.status !== "pending_payment") {
    return refuse(db, ctx, "release_hold", "not_pending", `This order is ${order.status.replace("_", " ")}, not waiting for payment, so there is no hold to release.`);
  }
  // Past its expiry by Postgres's clock, as the sweep sees it (lib/clock.ts).
  if (order.holdExpiresAt > (await databaseNow(db, now))) {
    const until = new Intl.DateTimeFormat("en-GB", { hour: "2-digit", minute: "2-digit", second: "2-digit", timeZone: event.timeZone }).format(order.holdExpiresAt);
    return refuse(db, ctx, "release_hold", "hold_running", `This hold runs until ${until} and ends by itself; only a hold past its expiry can be released here.`);
  }
  let outcome: Awaited<ReturnType<typeof closePendingOrder>>;
  try {
    outcome = await closePendingOrder(db, orderId, "cancelled", causeOf(organizerId, "stuck hold released by the organizer"));
  } catch (error) {
    if (!(error instanceof PaymentProviderError)) throw error;
    return refuse(db, ctx, "release_hold", "psp_unavailable", "The payment provider did not answer, so the hold was kept (a payment may be in progress). Try again in a moment.");
  }
  if (outcome === "not_pending") return refuse(db, ctx, "release_hold", "not_pending", "This order has just changed and is no longer waiting for payment.");
  const result = outcome === "paid" ? "paid" : "released";
  await recordAdminAction(db, { ...ctx, action: "release_hold", detail: { outcome: "done", result } });
  return { orderId, result };
}
