/**
 * What the door knows without the network (the check-in page's browser side, app/admin/scan;
 * needs `localStorage` and Web Crypto).
 *
 * - **Memory**: every ticket this device let in, or saw refused as used, refunded or void, is
 *   remembered per show in localStorage (synchronous, so a verdict needs no wait). Without the
 *   network a second scan of a remembered ticket is refused at once ("Already admitted at 20:31
 *   on this device"), by its signed code or its short code.
 * - **Queue**: a signed code the device has not seen is verified here with the ticket public key
 *   (lib/tickets/codes.ts `ticketKeys().publicKeyJwk`, passed in by the page) and `jose`,
 *   accepted "offline", remembered, and queued until the page can upload it through the same
 *   check-in as a live scan (app/admin/scan/actions.ts `syncOfflineCheckInsAction`). Whether another door let it
 *   in meanwhile is only known on upload, which reports it as a conflict.
 * - A short code the device has never seen cannot be checked offline: it is only a key into the
 *   database.
 *
 * Storage is per organizer (two organizers' doors on one browser stay apart); shows the page no
 * longer lists are forgotten when the page loads.
 */
import { compactVerify, importJWK, type JWK } from "jose";
import { parseShortCode } from "@/lib/tickets/short-code";
import type { DoorVerdict, VerdictTicket } from "@/lib/tickets/verdict";
import type { SeatParts } from "@/lib/venues/seat-label";

/** A show of this door, as the page hands it over. */
export interface DoorShow {
  id: string;
  name: string;
  timeZone: string;
}

/** The English `Seat` messages ("Sec {section} · Row {row} · Seat {seat}", "Floor GA · Unit {unit}"): the stored labels' grammar. */
export interface StoredLabelWords {
  seated: string;
  standing: string;
}

/** What the door needs to decide without the network. */
export interface OfflineDoor {
  organizerId: string;
  /** The ticket public key (an OKP Ed25519 JWK). */
  jwk: JWK;
  /** The organizer's shows: a genuine ticket of any other show is refused. */
  shows: readonly DoorShow[];
  words: StoredLabelWords;
}

/** One check-in accepted offline, waiting for upload. */
export interface QueuedCheckIn {
  /** The signed code as scanned (trimmed). */
  code: string;
  ticketId: string;
  /** The stored English label the code carries. */
  seatLabel: string;
  /** When it was scanned here (ms since the epoch). */
  scannedAt: number;
}

/** What this device remembers of one ticket. */
export interface SeenTicket {
  /** `admitted`: this device let it in; `used`: seen already used (let in elsewhere); `refunded`/`void`: seen refused as such. */
  state: "admitted" | "used" | "refunded" | "void";
  /** When it was let in (ms since the epoch; for `refunded`/`void`, when it was seen). */
  at: number;
  /** The stored English label (the parts are composed from it: {@link seatPartsOfLabel}). */
  label: string;
  /** The short code (stored form), when known. */
  shortCode?: string;
}

/** localStorage key of the upload queue. */
const queueKey = (organizerId: string) => `stararena.scan.offline.v1:${organizerId}`;
/** Prefix of the memory's keys: one key per show, `…:<organizer>:<event>` → { ticketId: SeenTicket }. */
const seenPrefix = (organizerId: string) => `stararena.scan.seen.v1:${organizerId}:`;

// ─── Stored labels ───────────────────────────────────────────────────────────

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The parts of a stored English seat label, read by the grammar that composed it, or null when
 * the label does not read back exactly (then the stored label is shown as it is). The signed
 * code carries only the stored label; this lets an offline verdict compose it in the reader's
 * language too.
 */
export function seatPartsOfLabel(label: string, words: StoredLabelWords): SeatParts | null {
  const grammar = (template: string, groups: Record<string, string>) => {
    if (/['#]|\{[^}]*[,\s][^}]*\}/.test(template)) return null; // ICU beyond plain arguments: not readable back
    const source = escape(template).replace(/\\\{(\w+)\\\}/g, (_, name: string) => groups[name] ?? "(?:.+?)");
    return new RegExp(`^${source}$`);
  };
  const seated = grammar(words.seated, { section: "(?<section>.+?)", row: "(?<row>.+?)", seat: "(?<seat>\\d+)" })?.exec(label)?.groups;
  if (seated) {
    const parts = { section: seated.section!, standing: false, row: seated.row!, number: Number(seated.seat) };
    return compose(words, parts) === label ? parts : null;
  }
  const standing = grammar(words.standing, { unit: "(?<unit>\\d+)" })?.exec(label)?.groups;
  if (standing) {
    const parts = { section: "", standing: true, row: "", number: Number(standing.unit) };
    return compose(words, parts) === label ? parts : null;
  }
  return null;
}

/** lib/venues/seat-label.ts `seatLabel` over the plain-argument English templates (the read-back check). */
function compose(words: StoredLabelWords, p: SeatParts): string {
  const fill = (template: string, values: Record<string, string>) => template.replace(/\{(\w+)\}/g, (_, k: string) => values[k] ?? "");
  return p.standing ? fill(words.standing, { unit: String(p.number) }) : fill(words.seated, { section: p.section, row: p.row, seat: String(p.number) });
}

// ─── Memory ──────────────────────────────────────────────────────────────────

function readSeen(organizerId: string, eventId: string): Record<string, SeenTicket> {
  try {
    const raw = JSON.parse(localStorage.getItem(seenPrefix(organizerId) + eventId) ?? "{}") as unknown;
    return raw && typeof raw === "object" && !Array.isArray(raw) ? (raw as Record<string, SeenTicket>) : {};
  } catch {
    return {};
  }
}

function writeSeen(organizerId: string, eventId: string, seen: Record<string, SeenTicket>): void {
  try {
    localStorage.setItem(seenPrefix(organizerId) + eventId, JSON.stringify(seen));
  } catch {
    // Storage full or blocked: the door still works online; offline it knows less.
  }
}

/** What this device remembers of a ticket, or null. */
export function recall(organizerId: string, eventId: string, ticketId: string): SeenTicket | null {
  const s = readSeen(organizerId, eventId)[ticketId];
  return s && typeof s.at === "number" && typeof s.state === "string" ? s : null;
}

/** The remembered ticket with this short code (stored form) among the door's shows, or null. */
function recallShortCode(organizerId: string, shows: readonly DoorShow[], shortCode: string): { eventId: string; ticketId: string; seen: SeenTicket } | null {
  for (const show of shows) {
    for (const [ticketId, seen] of Object.entries(readSeen(organizerId, show.id))) {
      if (seen.shortCode === shortCode) return { eventId: show.id, ticketId, seen };
    }
  }
  return null;
}

/**
 * Remembers what a verdict says about its ticket: let in here (`admitted`), used elsewhere,
 * refunded or void. A ticket this device let in stays "admitted here" when the server later
 * calls it used (that was this device's own check-in, or an offline conflict).
 */
export function rememberVerdict(organizerId: string, v: DoorVerdict): void {
  if (!("ticket" in v)) return;
  const state = v.kind === "admitted" ? "admitted" : v.kind === "used" ? "used" : v.kind === "refunded" || v.kind === "void" ? v.kind : null;
  if (!state) return;
  const seen = readSeen(organizerId, v.ticket.eventId);
  const before = seen[v.ticket.ticketId];
  if (state === "used" && before?.state === "admitted") return;
  const at = v.kind === "admitted" || v.kind === "used" ? v.at : Date.now();
  seen[v.ticket.ticketId] = { state, at, label: v.ticket.seatLabel, ...((v.ticket.shortCode ?? before?.shortCode) ? { shortCode: v.ticket.shortCode ?? before?.shortCode } : {}) };
  writeSeen(organizerId, v.ticket.eventId, seen);
}

/** Forgets the memory of shows this door no longer lists (past or deleted shows). */
export function forgetOtherShows(organizerId: string, shows: readonly DoorShow[]): void {
  try {
    const keep = new Set(shows.map((s) => seenPrefix(organizerId) + s.id));
    const drop: string[] = [];
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (key?.startsWith(seenPrefix(organizerId)) && !keep.has(key)) drop.push(key);
    }
    for (const key of drop) localStorage.removeItem(key);
  } catch {
    // Storage blocked: nothing to forget.
  }
}

/** The verdict a remembered ticket gets (a refusal: it was let in, or is void). */
function verdictFromMemory(seen: SeenTicket, ticket: VerdictTicket): DoorVerdict {
  switch (seen.state) {
    case "admitted":
      return { kind: "used", ticket, at: seen.at, here: true };
    case "used":
      return { kind: "used", ticket, at: seen.at, here: false };
    case "refunded":
    case "void":
      return { kind: seen.state, ticket };
  }
}

// ─── Offline decisions ───────────────────────────────────────────────────────

/** The door's view of a ticket known only by its show, id and stored label. */
function ticketOf(door: OfflineDoor, eventId: string, ticketId: string, label: string, shortCode?: string): VerdictTicket {
  const show = door.shows.find((s) => s.id === eventId);
  return { ticketId, eventId, eventName: show?.name ?? "", timeZone: show?.timeZone ?? "UTC", seat: seatPartsOfLabel(label, door.words), seatLabel: label, shortCode };
}

/** Verifies a signed ticket code's signature and claims in the browser (Ed25519, alg EdDSA, as lib/tickets/codes.ts signs it). */
async function verifySigned(code: string, jwk: JWK): Promise<{ ticketId: string; eventId: string; seatLabel: string } | "malformed" | "forged"> {
  if (!/^[\w-]+\.[\w-]+\.[\w-]+$/.test(code) || code.length > 2048) return "malformed";
  let payload: Uint8Array;
  try {
    ({ payload } = await compactVerify(code, await importJWK(jwk, "EdDSA"), { algorithms: ["EdDSA"] }));
  } catch {
    return "forged";
  }
  try {
    const claims = JSON.parse(new TextDecoder().decode(payload)) as { t?: unknown; e?: unknown; s?: unknown };
    if (typeof claims.t !== "string" || typeof claims.e !== "string" || typeof claims.s !== "string") return "malformed";
    return { ticketId: claims.t, eventId: claims.e, seatLabel: claims.s };
  } catch {
    return "malformed";
  }
}

/**
 * The door's verdict on a code without the network, at once: a remembered ticket is refused
 * (let in here or elsewhere, refunded, void); an unseen genuine ticket of one of these shows is
 * accepted offline, remembered and queued for upload; a short code never seen here needs the network.
 * @param code the scanned or typed string (whitespace around it ignored).
 * @param now the scan's time (ms since the epoch).
 * @returns the {@link DoorVerdict}; never throws for a bad code.
 */
export async function decideOffline(door: OfflineDoor, code: string, now = Date.now()): Promise<DoorVerdict> {
  const trimmed = code.trim();
  if (trimmed === "") return { kind: "empty" };
  const shortCode = parseShortCode(trimmed);
  if (shortCode) {
    const hit = recallShortCode(door.organizerId, door.shows, shortCode);
    return hit ? verdictFromMemory(hit.seen, ticketOf(door, hit.eventId, hit.ticketId, hit.seen.label, shortCode)) : { kind: "needs_network" };
  }
  const claims = await verifySigned(trimmed, door.jwk);
  if (claims === "malformed" || claims === "forged") return { kind: "not_genuine", reason: claims };
  if (!door.shows.some((s) => s.id === claims.eventId)) return { kind: "wrong_show" };
  const seen = recall(door.organizerId, claims.eventId, claims.ticketId);
  if (seen) return verdictFromMemory(seen, ticketOf(door, claims.eventId, claims.ticketId, seen.label, seen.shortCode));
  const verdict: DoorVerdict = { kind: "admitted", ticket: ticketOf(door, claims.eventId, claims.ticketId, claims.seatLabel), at: now, offline: true };
  writeQueue(door.organizerId, [...readQueue(door.organizerId), { code: trimmed, ticketId: claims.ticketId, seatLabel: claims.seatLabel, scannedAt: now }]);
  rememberVerdict(door.organizerId, verdict);
  return verdict;
}

// ─── Upload queue ────────────────────────────────────────────────────────────

/** The queued check-ins of this organizer's door, oldest first (empty when storage is unreadable). */
export function readQueue(organizerId: string): QueuedCheckIn[] {
  try {
    const raw = JSON.parse(localStorage.getItem(queueKey(organizerId)) ?? "[]") as unknown;
    return Array.isArray(raw) ? (raw as QueuedCheckIn[]).filter((q) => typeof q?.code === "string" && typeof q.scannedAt === "number") : [];
  } catch {
    return [];
  }
}

/** Replaces the queue (an empty one removes the key). */
export function writeQueue(organizerId: string, queue: readonly QueuedCheckIn[]): void {
  if (queue.length === 0) localStorage.removeItem(queueKey(organizerId));
  else localStorage.setItem(queueKey(organizerId), JSON.stringify(queue));
}

/**
 * True for an error that means "the server could not be reached" (a server action's fetch
 * failed), as opposed to an answer.
 */
export function isNetworkError(error: unknown): boolean {
  if (typeof navigator !== "undefined" && !navigator.onLine) return true;
  return error instanceof TypeError || (error instanceof Error && /fetch|network|load failed/i.test(error.message));
}
