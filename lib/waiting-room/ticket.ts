/**
 * Queue tickets: a signed, httpOnly cookie that remembers the fan's place in one event's
 * queue, so that a retried join (the burst's ~2 retries per fan, a reload, a second tab) is
 * answered by the door from the ticket and the public status alone — no Redis write — while
 * the fan is provably still waiting (docs/adr/0014). Runtime-neutral (lib/signing.ts).
 *
 * Value: base64url(JSON {e: eventId, f: fanId, p: position (0 in the pre-queue), d: draw | -1,
 * t: issued at, o: the on-sale it was issued for (ms), g: the queue's generation, r: the order
 * a re-seated place was given by}) "." base64url(HMAC-SHA256(key, payload)), key = SHA-256(secret ":queue-tickets").
 * A ticket only ever shortens the path to an answer Redis would give: it never admits
 * anyone (admission needs Redis's slot and a fresh admission token), and a fan whose turn
 * may have come is always asked about in Redis. When Redis lost the queue (another
 * generation), the ticket is the fan's proof of its place: it is re-seated by it
 * (`reseatProof`, docs/adr/0028).
 */
import { DRAW_RANGE } from "@/lib/waiting-room/draw";
import { etaSecondsFor, type FanQueueStatus, type PublicQueueStatus, type ReseatProof } from "@/lib/waiting-room/room";
import { rateInForce } from "@/lib/waiting-room/rate";
import { hmacSha256Base64Url, sameText, sha256, textFromBase64Url, textToBase64Url, VerifiedMemo } from "@/lib/signing";

/** What a ticket says about one fan in one event's queue. */
export interface QueueTicket {
  eventId: string;
  fanId: string;
  /** Queue position after the on-sale, 0 while the fan is in the pre-queue and its place is not drawn yet. */
  position: number;
  /** The fan's pre-queue draw, or null when it joined after the on-sale. */
  draw: number | null;
  /** When it was issued (ms). */
  issuedAt: number;
  /** The on-sale (ms) the place belongs to: when the on-sale moves (npm run demo:reset empties the room), the ticket no longer answers. */
  onSaleAt?: number;
  /** The queue's generation the place belongs to (PublicQueueStatus.generation). */
  generation?: string;
  /** For a place re-seated from a lost generation (negative position): the order it was re-seated by, so a later loss re-seats it the same. */
  order?: number;
}

/** How long a ticket is good for (ms): longer than any on-sale's queue, shorter than a show's run. */
export const QUEUE_TICKET_TTL_MS = 12 * 60 * 60_000;

/** Name of the cookie that carries the ticket for one event. */
export const queueTicketCookieName = (eventId: string) => `sa_queue_${eventId}`;

let cachedKey: { secret: string; key: Uint8Array } | undefined;
function key(secret: string): Uint8Array {
  if (cachedKey?.secret !== secret) cachedKey = { secret, key: sha256(`${secret}:queue-tickets`) };
  return cachedKey.key;
}

/**
 * Tickets whose signature checked out, by cookie value: a fan's retries and polls present the
 * same ticket, and the HMAC is the largest part of answering one (lib/signing.ts). Their age,
 * fan and event are still checked on every read. ~1 kB each (the Cookie header a key is cut from).
 */
const verifiedTickets = new VerifiedMemo<QueueTicket>(20_000);

/** Signs `ticket` with the app secret. @returns the cookie value. */
export function issueQueueTicket(ticket: QueueTicket, secret: string): string {
  const fields: TicketFields = {
    e: ticket.eventId,
    f: ticket.fanId,
    p: ticket.position,
    d: ticket.draw ?? -1,
    t: ticket.issuedAt,
    ...(ticket.onSaleAt === undefined ? {} : { o: ticket.onSaleAt }),
    ...(ticket.generation === undefined ? {} : { g: ticket.generation }),
    ...(ticket.order === undefined ? {} : { r: ticket.order }),
  };
  const payload = textToBase64Url(JSON.stringify(fields));
  return `${payload}.${hmacSha256Base64Url(key(secret), payload)}`;
}

/**
 * The ticket in `value` when it is signed with `secret`, names this fan and event, and is
 * younger than {@link QUEUE_TICKET_TTL_MS} at `now` (ms); otherwise null (the caller asks Redis).
 * The ticket returned is shared (frozen): read it, do not change it.
 */
export function readQueueTicket(value: string | undefined, secret: string, expected: { eventId: string; fanId: string; now?: number }): QueueTicket | null {
  if (!value || value.length > 512) return null;
  let ticket = verifiedTickets.get(value, secret);
  if (!ticket) {
    const dot = value.indexOf(".");
    if (dot < 1) return null;
    const payload = value.slice(0, dot);
    if (!sameText(value.slice(dot + 1), hmacSha256Base64Url(key(secret), payload))) return null;
    let fields: TicketFields | null;
    try {
      fields = JSON.parse(textFromBase64Url(payload) ?? "null") as TicketFields | null;
    } catch {
      return null;
    }
    const read = fields && ticketFromFields(fields);
    if (!read) return null;
    verifiedTickets.set(value, secret, read);
    ticket = read;
  }
  const now = expected.now ?? Date.now();
  if (ticket.eventId !== expected.eventId || ticket.fanId !== expected.fanId || now - ticket.issuedAt > QUEUE_TICKET_TTL_MS) return null;
  return ticket;
}

/** What a ticket's payload holds: e event, f fan, p position, d draw (-1: none), t issued at, o on-sale (ms), g generation, r re-seat order. */
type TicketFields = { e?: unknown; f?: unknown; p?: unknown; d?: unknown; t?: unknown; o?: unknown; g?: unknown; r?: unknown };

/** The ticket `fields` describe (frozen), or null when they are not one. */
function ticketFromFields(t: TicketFields): QueueTicket | null {
  if (typeof t.e !== "string" || typeof t.f !== "string" || typeof t.p !== "number" || typeof t.d !== "number" || typeof t.t !== "number") return null;
  return Object.freeze({
    eventId: t.e,
    fanId: t.f,
    position: t.p,
    draw: t.d >= 0 ? t.d : null,
    issuedAt: t.t,
    ...(typeof t.o === "number" ? { onSaleAt: t.o } : {}),
    ...(typeof t.g === "string" ? { generation: t.g } : {}),
    ...(typeof t.r === "number" ? { order: t.r } : {}),
  });
}

/**
 * What the ticket proves about its fan's place, for re-seating when Redis lost it (its
 * generation gone, or its place lost from this one): the order — a pre-queue fan's draw (the pre-queue's order, and ahead of every later
 * joiner), else DRAW_RANGE + its position (arrival order after the on-sale) — with the
 * generation, on-sale and place it belongs to. Null when the ticket proves no place (position 0
 * without a draw, or issued before tickets carried the generation).
 */
export function reseatProof(ticket: QueueTicket): ReseatProof | null {
  if (ticket.generation === undefined || ticket.onSaleAt === undefined) return null;
  const order = ticket.order ?? (ticket.draw !== null ? ticket.draw : ticket.position > 0 ? DRAW_RANGE + ticket.position : null);
  return order === null ? null : { generation: ticket.generation, order, onSaleAt: ticket.onSaleAt, position: ticket.position };
}

/**
 * The fan's status from its ticket and the public status alone, when that is certain:
 * before the on-sale a pre-queue fan is "pre"; after it, a fan whose position is still
 * behind the serving counter is "waiting". Anything else — the turn may have come, the place is
 * beyond the end of a queue read after the ticket was issued (Redis lost the last joins: asking
 * gives the place back; a status older than the ticket may just not count its join yet), a
 * pre-queue fan's rank is not on the ticket yet, the on-sale moved, the queue's generation is
 * not the ticket's (Redis lost the queue: asking re-seats the fan), the place is a re-seated
 * one (its turn does not follow the serving counter) — is null: ask Redis. Before or after
 * the on-sale is judged by the status's own `now` (Redis's clock, docs/adr/0024), never by
 * the answering process's.
 */
export function statusFromTicket(ticket: QueueTicket, pub: PublicQueueStatus): FanQueueStatus | null {
  if (ticket.onSaleAt !== undefined && ticket.onSaleAt !== pub.onSaleAt) return null;
  if (ticket.generation !== pub.generation || ticket.position < 0) return null;
  if (pub.now < pub.onSaleAt) {
    if (ticket.draw === null || ticket.position !== 0) return null;
    return fanStatus(ticket, pub, "pre", 0, Math.max(0, Math.ceil((pub.onSaleAt - pub.now) / 1000)));
  }
  if (ticket.position <= pub.servingCounter || (ticket.position > pub.queueLength && ticket.issuedAt < pub.now)) return null;
  const ahead = ticket.position - pub.servingCounter - 1 + pub.returning;
  return fanStatus(ticket, pub, "waiting", ahead, pub.paused ? null : etaSecondsFor(ahead, rateInForce(pub).rate));
}

/** The fan's status as one object literal (one shape, no spreads: this runs for every answered retry). */
function fanStatus(ticket: QueueTicket, pub: PublicQueueStatus, state: "pre" | "waiting", ahead: number, etaSeconds: number | null): FanQueueStatus {
  return {
    state,
    position: ticket.position,
    servingCounter: pub.servingCounter,
    queueLength: pub.queueLength,
    ratePerMinute: rateInForce(pub).rate,
    paused: pub.paused,
    onSaleAt: pub.onSaleAt,
    admittedUntil: null,
    ahead,
    etaSeconds,
    draw: ticket.draw,
    preQueueSize: pub.preQueueSize,
    generation: pub.generation,
  };
}
