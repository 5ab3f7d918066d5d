/**
 * The door without a network (browser only): a signed ticket code is verified here with the
 * ticket public key (lib/tickets/codes.ts `ticketKeys().publicKeyJwk`, passed in by the page)
 * and `jose`, accepted "offline", and queued in localStorage until the page can upload it
 * through the same check-in as a live scan (actions.ts `syncOfflineCheckInsAction`). The
 * signature proves the ticket is genuine and for one of these shows; whether it was used at
 * another door meanwhile is only known on upload, which reports it as a conflict.
 * A short code cannot be checked offline: it is only a key into the database.
 */
import { compactVerify, importJWK, type JWK } from "jose";

/** One check-in accepted offline, waiting for upload. */
export interface QueuedCheckIn {
  /** The signed code as scanned (trimmed). */
  code: string;
  ticketId: string;
  seatLabel: string;
  /** When it was scanned here (ms since the epoch). */
  scannedAt: number;
}

/** What the browser can say about a code on its own. */
export type OfflineVerdict =
  /** Genuine and for one of the organizer's shows: let in, queue it. */
  | { ok: true; ticketId: string; eventId: string; seatLabel: string }
  /** Refused: `why` in the door's words. */
  | { ok: false; title: string; why: string };

/** localStorage key of the queue (one per browser profile; the organizer's id keeps doors of two organizers apart). */
const queueKey = (organizerId: string) => `stararena.scan.offline.v1:${organizerId}`;

/**
 * Verifies a signed ticket code in the browser (Ed25519, alg EdDSA, as lib/tickets/codes.ts signs it).
 * @param code the scanned string (whitespace around it ignored).
 * @param jwk the ticket public key (an OKP Ed25519 JWK).
 * @param eventIds the organizer's shows: a genuine ticket of another show is refused.
 * @returns an {@link OfflineVerdict}; never throws for a bad code.
 */
export async function verifyOffline(code: string, jwk: JWK, eventIds: readonly string[]): Promise<OfflineVerdict> {
  const trimmed = code.trim();
  if (!/^[\w-]+\.[\w-]+\.[\w-]+$/.test(trimmed) || trimmed.length > 2048) {
    return { ok: false, title: "Offline: cannot check this code", why: "Short codes need the network. Scan the QR code, or wait until the network is back." };
  }
  let payload: Uint8Array;
  try {
    ({ payload } = await compactVerify(trimmed, await importJWK(jwk, "EdDSA"), { algorithms: ["EdDSA"] }));
  } catch {
    return { ok: false, title: "Not a genuine ticket", why: "The signature does not match (checked offline)." };
  }
  let claims: { t?: unknown; e?: unknown; s?: unknown };
  try {
    claims = JSON.parse(new TextDecoder().decode(payload)) as typeof claims;
  } catch {
    return { ok: false, title: "Not a genuine ticket", why: "This is not a StarArena ticket code." };
  }
  if (typeof claims.t !== "string" || typeof claims.e !== "string" || typeof claims.s !== "string") {
    return { ok: false, title: "Not a genuine ticket", why: "This is not a StarArena ticket code." };
  }
  if (!eventIds.includes(claims.e)) return { ok: false, title: "Not for your shows", why: "A genuine ticket, but for a show another organizer runs." };
  return { ok: true, ticketId: claims.t, eventId: claims.e, seatLabel: claims.s };
}

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
