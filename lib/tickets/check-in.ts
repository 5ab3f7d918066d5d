/**
 * Check-in at the door: a scanned ticket code — the signed code from the QR, or the short
 * code a person reads out or types (`7K3QD-M9XW2`, ./short-code.ts) — is let in at most
 * once. A signed code's signature is verified first (offline-capable, lib/tickets/codes);
 * a short code is looked up by `tickets.short_code`. Then the database decides, the same
 * rules for both: the ticket exists, its code is the current one (a
 * re-issue replaces codes), it is for a show this organizer runs, it is not void, and
 * the guarded `valid → used` transition (I8, with `checked_in_at` and the transition
 * log) succeeds. Of any number of simultaneous scans of one code exactly one gets "ok";
 * the others read "already_used" with the first scan's time.
 */
import { and, eq, sql, type SQL } from "drizzle-orm";
import { events, orders, refunds, rows, seats, sections, tickets } from "@/db/schema";
import { recordAdminAction } from "@/lib/audit/admin-actions";
import type { Db } from "@/lib/db";
import { env } from "@/lib/env";
import { transitionTicket } from "@/lib/orders/state-machine";
import { InvalidTicketCodeError, ticketKeys, verifyTicketCode } from "@/lib/tickets/codes";
import { parseShortCode } from "@/lib/tickets/short-code";
import type { SeatParts } from "@/lib/venues/seat-label";

/** The ticket a scan resolved to (for the door's screen). */
export interface ScannedTicket {
  ticketId: string;
  orderId: string;
  eventId: string;
  eventName: string;
  /** The stored (English) label, as signed into the code; people read {@link ScannedTicket.seat} composed in their language. */
  seatLabel: string;
  /** The seat's parts, for lib/venues/seat-label.ts `seatLabel` in the reader's language. */
  seat: SeatParts;
  /** The ticket's short code (stored form; null on tickets issued before short codes), so a door can recognise it typed later without the network. */
  shortCode: string | null;
  /** The show's IANA time zone, for showing scan times in local time. */
  timeZone: string;
}

/** The outcome of one scan. Only "ok" lets the person in. */
export type CheckInResult =
  /** Let in: this scan checked the ticket in, at `checkedInAt`. */
  | { result: "ok"; ticket: ScannedTicket; checkedInAt: Date }
  /** Refused: the ticket was checked in before, at `firstCheckedInAt`. */
  | { result: "already_used"; ticket: ScannedTicket; firstCheckedInAt: Date }
  /** Refused: the order was refunded, so its tickets are void. */
  | { result: "refunded"; ticket: ScannedTicket }
  /** Refused: the ticket was voided for another reason. */
  | { result: "void"; ticket: ScannedTicket }
  /** Refused: a genuine code that has since been replaced by a re-issued one. */
  | { result: "replaced"; ticket: ScannedTicket }
  /** Refused: a genuine ticket of a show another organizer runs. */
  | { result: "other_show" }
  /** Refused: a genuine code but no such ticket here (e.g. another environment's database), or a short code no ticket has (mistyped, or replaced by a re-issue). */
  | { result: "unknown_ticket" }
  /** Refused: not a StarArena ticket code, or forged/altered (`reason` from verifyTicketCode). */
  | { result: "not_genuine"; reason: "malformed" | "not_genuine" };

/** Who is at the door: the organizer whose shows are let in, and who scanned (door staff, when not the organizer). */
export interface CheckInDoor {
  /** The organizer whose shows' tickets are let in. */
  organizerId: string;
  /** The door-staff user who scanned, when it was not the organizer; logged as `door_staff:<id>`. */
  staffId?: string;
}

/**
 * Checks a scanned or typed ticket code in for the organizer's door.
 * @param door the organizer's id (the organizer scans), or a {@link CheckInDoor} (door staff scans
 *   for `organizerId`); only tickets of that organizer's shows are let in.
 * @param code the signed code (surrounding whitespace ignored), or a short code in any spelling
 *   {@link parseShortCode} reads (case, spaces and dashes ignored; O → 0, I/L → 1).
 * @param now the scan time (default: now); stored as `checked_in_at`.
 * @returns a {@link CheckInResult}; refusals are results, not exceptions.
 * @throws database errors only.
 */
export async function checkIn(db: Db, door: string | CheckInDoor, code: string, now = new Date()): Promise<CheckInResult> {
  const { organizerId, staffId } = typeof door === "string" ? { organizerId: door, staffId: undefined } : door;
  // A short code is 10 characters of one alphabet, a signed code ~270 with dots: never both.
  const shortCode = parseShortCode(code);
  let which: SQL;
  if (shortCode) {
    which = eq(tickets.shortCode, shortCode);
  } else {
    try {
      which = eq(tickets.id, (await verifyTicketCode(code, ticketKeys(env().TICKET_SIGNING_SECRET).publicKeyPem)).ticketId);
    } catch (error) {
      if (error instanceof InvalidTicketCodeError) return { result: "not_genuine", reason: error.reason };
      throw error;
    }
  }
  const [row] = await db
    .select({
      ticket: tickets,
      eventName: events.name,
      organizerId: events.organizerId,
      timeZone: events.timeZone,
      seatLabel: seats.label,
      seat: { section: sections.code, kind: sections.kind, row: rows.label, number: seats.number },
      orderStatus: orders.status,
    })
    .from(tickets)
    .innerJoin(events, eq(tickets.eventId, events.id))
    .innerJoin(seats, eq(tickets.seatId, seats.id))
    .innerJoin(sections, eq(seats.sectionId, sections.id))
    .innerJoin(rows, eq(seats.rowId, rows.id))
    .innerJoin(orders, eq(tickets.orderId, orders.id))
    .where(which);
  if (!row) return { result: "unknown_ticket" };
  if (row.organizerId !== organizerId) return { result: "other_show" };
  const t = row.ticket;
  const seat: SeatParts = { section: row.seat.section, standing: row.seat.kind === "general_admission", row: row.seat.row, number: row.seat.number };
  const ticket: ScannedTicket = { ticketId: t.id, orderId: t.orderId, eventId: t.eventId, eventName: row.eventName, seatLabel: row.seatLabel, seat, shortCode: t.shortCode, timeZone: row.timeZone };
  // A re-issue rotates both codes in place: an old signed code finds the row with a new code.
  if (!shortCode && t.code !== code.trim()) return { result: "replaced", ticket };

  const refusal = (status: typeof t.status, checkedInAt: Date | null, orderStatus: string): CheckInResult | null => {
    if (status === "void") return orderStatus === "refunded" ? { result: "refunded", ticket } : { result: "void", ticket };
    if (status === "used") return { result: "already_used", ticket, firstCheckedInAt: checkedInAt ?? now };
    return null;
  };
  const early = refusal(t.status, t.checkedInAt, row.orderStatus);
  if (early) return early;

  return db.transaction(async (tx): Promise<CheckInResult> => {
    // Lock the ticket: simultaneous scans (and a re-issue or refund) queue here, so the
    // code and status checked below are the ones the guarded update changes.
    const [locked] = await tx.select({ status: tickets.status, code: tickets.code, checkedInAt: tickets.checkedInAt }).from(tickets).where(eq(tickets.id, t.id)).for("update");
    if (!locked || locked.code !== t.code) return { result: "replaced", ticket };
    if (locked.status !== "valid") {
      const [o] = await tx.select({ status: orders.status }).from(orders).where(eq(orders.id, t.orderId));
      return refusal(locked.status, locked.checkedInAt, o?.status ?? row.orderStatus) ?? { result: "void", ticket };
    }
    // A partial refund of this ticket already under way (lib/payments/refund-tickets.ts step 1
    // wrote its request while holding this row's lock, so a fresh read sees it): its money is on
    // the way back to the fan, so the ticket does not let anyone in.
    const refunding = await tx
      .select({ id: refunds.id })
      .from(refunds)
      .where(and(eq(refunds.orderId, t.orderId), eq(refunds.status, "requested"), sql`${refunds.lineItemIds} @> ${JSON.stringify([t.lineItemId])}::jsonb`))
      .limit(1);
    if (refunding.length > 0) return { result: "refunded", ticket };
    const moved = await transitionTicket(tx, t, "valid", "used", { actor: staffId ? `door_staff:${staffId}` : `organizer:${organizerId}`, reason: "checked in at the door" }, { checkedInAt: now });
    if (!moved) return { result: "void", ticket }; // unreachable while the row is locked
    await recordAdminAction(tx, { organizerId, eventId: t.eventId, orderId: t.orderId, ticketId: t.id, action: "check_in", detail: { outcome: "done", seat: row.seatLabel, by: shortCode ? "short_code" : "code", ...(staffId ? { staffId } : {}) } });
    return { result: "ok", ticket, checkedInAt: now };
  });
}
