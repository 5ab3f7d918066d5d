/**
 * The fan's view of orders and tickets. Every read is scoped to the fan: another fan's
 * order id reads as "not found".
 */
import { and, asc, desc, eq, inArray } from "drizzle-orm";
import { seatPartColumns } from "@/lib/venues/queries";
import { events, lineItems, orders, payments, priceLevels, rows, seats, sections, tickets, venues } from "@/db/schema";
import type { Db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import type { SeatParts } from "@/lib/venues/seat-label";


/** The {@link SeatParts} of a row read with {@link seatPartColumns}. */
const partsOf = (r: SeatParts): SeatParts => ({ section: r.section, standing: r.standing, row: r.row, number: r.number });

/** One order as its page shows it. Amounts in minor units; instants as ISO strings. */
export interface FanOrderView {
  id: string;
  status: string;
  event: { id: string; name: string; slug: string; venue: string; startsAt: string; timeZone: string };
  holdExpiresAt: string;
  totalMinor: number;
  currency: string;
  /** `label` is the stored English label (a stable key); `seat` what it is composed from in the reader's language. */
  seats: { label: string; seat: SeatParts; priceLevel: string; priceMinor: number; status: string }[];
  /** The latest payment attempt, if any. */
  payment: { status: string; provider: string } | null;
  /** `shortCode` as stored (format it with lib/tickets/short-code.ts `formatShortCode`); null for tickets older than short codes. */
  tickets: { id: string; seatLabel: string; seat: SeatParts; code: string; shortCode: string | null; status: string }[];
  /** True when the fan paid but the seats had gone and the money was (or is being) refunded. */
  refunded: boolean;
  /** True when the order was cancelled after its tickets were issued: the PSP had no record of its payment (docs/adr/0010). */
  voided: boolean;
  /** When this view was read (ms since the epoch): the order page keys its live query on it, so a new read replaces a cached one. */
  readAt: number;
}

/** The refusal for an order that does not exist or is another fan's (ids are not confirmed to strangers): 404 `no_such_order`. */
export const noSuchOrder = () => new AppError("not_found", "no_such_order", "No such order");

/** The order if it belongs to `fanId`, else null. */
export async function getFanOrder(db: Db, orderId: string, fanId: string): Promise<FanOrderView | null> {
  // The order first, then its seats, payments and tickets together (two round trips, not
  // five). The order is read first so that a status seen as ticketed comes with its tickets:
  // issuance commits both at once, and a read that starts later sees that commit.
  const [row] = await db
    .select({ order: orders, event: events, venue: venues.name })
    .from(orders)
    .innerJoin(events, eq(orders.eventId, events.id))
    .innerJoin(venues, eq(events.venueId, venues.id))
    .where(and(eq(orders.id, orderId), eq(orders.fanId, fanId)));
  if (!row) return null;
  const [items, attempts, ticketRows] = await Promise.all([
    db
      .select({ label: seats.label, ...seatPartColumns, priceLevel: priceLevels.name, priceMinor: lineItems.priceMinor, status: lineItems.status })
      .from(lineItems)
      .innerJoin(seats, eq(lineItems.seatId, seats.id))
      .innerJoin(sections, eq(seats.sectionId, sections.id))
      .innerJoin(rows, eq(seats.rowId, rows.id))
      .innerJoin(priceLevels, eq(lineItems.priceLevelId, priceLevels.id))
      .where(eq(lineItems.orderId, orderId))
      .orderBy(asc(seats.ordinal)),
    db.select({ status: payments.status, provider: payments.provider }).from(payments).where(eq(payments.orderId, orderId)).orderBy(desc(payments.createdAt)),
    db
      .select({ id: tickets.id, code: tickets.code, shortCode: tickets.shortCode, status: tickets.status, seatLabel: seats.label, ...seatPartColumns })
      .from(tickets)
      .innerJoin(seats, eq(tickets.seatId, seats.id))
      .innerJoin(sections, eq(seats.sectionId, sections.id))
      .innerJoin(rows, eq(seats.rowId, rows.id))
      .where(eq(tickets.orderId, orderId))
      .orderBy(asc(seats.ordinal)),
  ]);
  const payment = attempts[0];
  const { order, event } = row;
  return {
    id: order.id,
    status: order.status,
    event: { id: event.id, name: event.name, slug: event.slug, venue: row.venue, startsAt: event.startsAt.toISOString(), timeZone: event.timeZone },
    holdExpiresAt: order.holdExpiresAt.toISOString(),
    totalMinor: order.totalMinor,
    currency: order.currency,
    seats: items.map((i) => ({ label: i.label, seat: partsOf(i), priceLevel: i.priceLevel, priceMinor: i.priceMinor, status: i.status })),
    payment: payment ? { status: payment.status, provider: payment.provider } : null,
    tickets: ticketRows
      .filter((t) => t.status !== "void")
      .map((t) => ({ id: t.id, seatLabel: t.seatLabel, seat: partsOf(t), code: t.code, shortCode: t.shortCode, status: t.status })),
    refunded: attempts.some((p) => p.status === "refunded"),
    voided: order.status === "cancelled" && ticketRows.some((t) => t.status === "void"),
    readAt: Date.now(),
  };
}

/** One ticket on "My tickets": its code (drawn as a QR code in the browser), its seat's parts and its show. */
export interface FanTicket {
  id: string;
  code: string;
  shortCode: string | null;
  status: string;
  /** The stored English label (what the code signs). */
  seatLabel: string;
  seat: SeatParts;
  orderId: string;
  eventName: string;
  startsAt: Date;
  timeZone: string;
}

/** All of a fan's valid and used tickets, soonest show first, then by seat (a party's seats side by side). */
export async function getFanTickets(db: Db, fanId: string): Promise<FanTicket[]> {
  const list = await db
    .select({
      id: tickets.id,
      code: tickets.code,
      shortCode: tickets.shortCode,
      status: tickets.status,
      seatLabel: seats.label,
      ...seatPartColumns,
      orderId: tickets.orderId,
      eventName: events.name,
      startsAt: events.startsAt,
      timeZone: events.timeZone,
    })
    .from(tickets)
    .innerJoin(orders, eq(tickets.orderId, orders.id))
    .innerJoin(events, eq(tickets.eventId, events.id))
    .innerJoin(seats, eq(tickets.seatId, seats.id))
    .innerJoin(sections, eq(seats.sectionId, sections.id))
    .innerJoin(rows, eq(seats.rowId, rows.id))
    .where(and(eq(orders.fanId, fanId), inArray(tickets.status, ["valid", "used"])))
    .orderBy(asc(events.startsAt), asc(events.id), asc(seats.ordinal));
  return list.map(({ section, standing, row, number, ...t }) => ({ ...t, seat: { section, standing, row, number } }));
}
