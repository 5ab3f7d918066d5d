/**
 * The door's verdict on one scan, as data: what app/admin/scan words in the reader's language,
 * colours and sounds. Both a live check-in (`checkIn`'s result, mapped here on the server) and
 * what the browser decides alone without the network (./offline-door.ts) end up as a
 * {@link DoorVerdict}, so one component shows them all.
 *
 * Pure and browser-safe (types only from ./check-in).
 */
import type { CheckInResult, ScannedTicket } from "@/lib/tickets/check-in";
import type { SeatParts } from "@/lib/venues/seat-label";

/** The ticket a verdict is about, as the door shows it. */
export interface VerdictTicket {
  ticketId: string;
  eventId: string;
  eventName: string;
  /** The show's IANA time zone: times are shown in it. */
  timeZone: string;
  /** The seat's parts (composed in the reader's language), or null when only the stored label is known. */
  seat: SeatParts | null;
  /** The stored English label, shown only when `seat` is null. */
  seatLabel: string;
  /** The short code (stored form), when known. */
  shortCode?: string | null;
}

/** One scan's verdict. Only `admitted` lets the person in. */
export type DoorVerdict =
  /** Let in at `at` (ms since the epoch); `offline`: accepted by this device without the network, synced later. */
  | { kind: "admitted"; ticket: VerdictTicket; at: number; offline: boolean }
  /** Refused: used before, at `at`; `here`: this device let it in (known without the network). */
  | { kind: "used"; ticket: VerdictTicket; at: number; here: boolean }
  /** Refused: the order was refunded. */
  | { kind: "refunded"; ticket: VerdictTicket }
  /** Refused: the ticket was cancelled. */
  | { kind: "void"; ticket: VerdictTicket }
  /** Refused: a re-issue replaced this code; the fan has a current one. */
  | { kind: "replaced"; ticket: VerdictTicket }
  /** Refused: a genuine ticket of a show another organizer runs. */
  | { kind: "wrong_show" }
  /** Refused: no ticket has this code (a typo, or replaced by a re-issue). */
  | { kind: "unknown" }
  /** Refused: not a ticket code at all (`malformed`) or a forged/altered one (`forged`). */
  | { kind: "not_genuine"; reason: "malformed" | "forged" }
  /** Not decided: a short code this device has never seen, with no network. */
  | { kind: "needs_network" }
  /** Not decided: nothing was scanned or typed. */
  | { kind: "empty" }
  /** Not decided: the server refused or failed; `message` in the reader's language when the server gave one. */
  | { kind: "failed"; message: string | null };

/** How the door shows a verdict: green lets in, red refuses, amber means "look again / try again". */
export type VerdictTone = "ok" | "bad" | "warn";

/** The colour family of a verdict. */
export function toneOf(v: DoorVerdict): VerdictTone {
  switch (v.kind) {
    case "admitted":
      return "ok";
    case "replaced":
    case "needs_network":
    case "empty":
    case "failed":
      return "warn";
    default:
      return "bad";
  }
}

/** The door's view of a scanned ticket. */
export function verdictTicket(t: ScannedTicket): VerdictTicket {
  return { ticketId: t.ticketId, eventId: t.eventId, eventName: t.eventName, timeZone: t.timeZone, seat: t.seat, seatLabel: t.seatLabel, shortCode: t.shortCode };
}

/** A live check-in's result as the door's verdict. */
export function verdictOf(r: CheckInResult): DoorVerdict {
  switch (r.result) {
    case "ok":
      return { kind: "admitted", ticket: verdictTicket(r.ticket), at: r.checkedInAt.getTime(), offline: false };
    case "already_used":
      return { kind: "used", ticket: verdictTicket(r.ticket), at: r.firstCheckedInAt.getTime(), here: false };
    case "refunded":
    case "void":
    case "replaced":
      return { kind: r.result, ticket: verdictTicket(r.ticket) };
    case "other_show":
      return { kind: "wrong_show" };
    case "unknown_ticket":
      return { kind: "unknown" };
    case "not_genuine":
      return { kind: "not_genuine", reason: r.reason === "malformed" ? "malformed" : "forged" };
  }
}
