/**
 * Ticket codes: the string inside a ticket's QR code.
 *
 * A ticket code is a compact JWS (`header.payload.signature`, alg `EdDSA`, Ed25519)
 * over a tiny JSON payload with short field names, to keep the QR code small:
 *
 *   { "t": ticket id, "e": event id, "s": seat label, "o": order id, "iat": seconds }
 *
 * Anyone holding only the **public** key (a door scanner with no network) can tell a
 * genuine StarArena ticket from a forged or altered one. A code has no expiry: whether
 * a genuine ticket is still usable (not used, not voided) is a database check made at
 * check-in, not something the code can know.
 *
 * Key material is derived deterministically from a secret string (see {@link ticketKeys}),
 * so every server instance signs with the same key without distributing a key file.
 * Production must pass a **dedicated** ticket-signing secret (at least 32 random
 * characters, never reused for sessions or webhooks): anyone who learns it can mint
 * tickets. This module never reads the environment; callers pass the secret in.
 * Rotating the secret changes the key pair and invalidates every issued code, so
 * rotation means re-issuing codes for live tickets.
 *
 * Server-only (uses `node:crypto`). A browser scanner can verify with `jose` and the
 * JWK from {@link ticketKeys}.
 */
import { AppError } from "@/lib/errors";
import { createHash, createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";
import { CompactSign, compactVerify, errors as joseErrors } from "jose";

/** The JWS algorithm of every ticket code. */
const ALG = "EdDSA";
/** Domain separation for the key derivation: this key signs tickets and nothing else. */
const SEED_PREFIX = "stararena-ticket-signing:";
/** PKCS#8 DER prefix for an Ed25519 private key; the 32-byte seed follows (RFC 8410). */
const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");
/** Far above any real code (~270 chars); longer input is rejected before any parsing. */
const MAX_CODE_LENGTH = 2048;

/** What a ticket code vouches for. */
export interface TicketCodeClaims {
  /** Ticket id, e.g. `tkt_k3j9x0q2m4n8p1r5`. */
  ticketId: string;
  /** Event id, e.g. `evt_…`. */
  eventId: string;
  /** Seat label as printed on the ticket, e.g. "Sec 104 · Row 7 · Seat 12". */
  seatLabel: string;
  /** Order id, e.g. `ord_…`. */
  orderId: string;
}

/** A verified ticket code: its claims plus when it was signed. */
export interface VerifiedTicketCode extends TicketCodeClaims {
  /** When the code was signed (second precision). */
  issuedAt: Date;
}

/** Public key as a JWK (RFC 8037 OKP), for scanners that verify with `jose` or WebCrypto. */
export interface TicketPublicJwk {
  kty: "OKP";
  crv: "Ed25519";
  /** Base64url of the 32-byte raw public key. */
  x: string;
  alg: "EdDSA";
  use: "sig";
  /** RFC 7638 JWK thumbprint (SHA-256, base64url): identifies the key across rotations. */
  kid: string;
}

/** The ticket-signing key pair derived from one secret. */
export interface TicketKeys {
  /** Ed25519 private key. Stays on the server; never sent anywhere. */
  privateKey: KeyObject;
  /** Ed25519 public key, usable directly with {@link verifyTicketCode}. */
  publicKey: KeyObject;
  /** The public key as SPKI PEM (`-----BEGIN PUBLIC KEY-----…`), for scanners. */
  publicKeyPem: string;
  /** The public key as a JWK, for scanners. */
  publicKeyJwk: TicketPublicJwk;
}

/** Why a ticket code was rejected. */
export type InvalidTicketCodeReason =
  /** Not a ticket code at all: empty, not a compact JWS, wrong algorithm, wrong payload shape. */
  | "malformed"
  /** Shaped like a ticket code but the signature does not match: forged, altered or another key. */
  | "not_genuine";

const MESSAGES: Record<InvalidTicketCodeReason, string> = {
  malformed: "This is not a StarArena ticket code",
  not_genuine: "This ticket code is not genuine",
};

/**
 * Thrown by {@link verifyTicketCode} for any code that must not be let in.
 * `message` is safe to show to door staff and fans; `reason` is for code paths and logs;
 * `cause` (when present) is the underlying parse or verification error.
 */
export class InvalidTicketCodeError extends AppError {
  readonly reason: InvalidTicketCodeReason;

  constructor(reason: InvalidTicketCodeReason, options?: { cause?: unknown }) {
    super("bad_request", `ticket_${reason}`, MESSAGES[reason], options);
    this.reason = reason;
  }
}

// Keyed by the derived seed (a hash), so the cache never holds the secret itself.
const keysCache = new Map<string, TicketKeys>();

/**
 * Derives the ticket-signing Ed25519 key pair from `secret`, deterministically: the same
 * secret always yields the same keys, on every machine. The seed is
 * SHA-256("stararena-ticket-signing:" + secret); the private key is that seed wrapped
 * in PKCS#8 DER. Results are cached per secret.
 *
 * Pass a dedicated production secret (≥ 32 random characters, used for nothing else).
 *
 * @returns private and public `KeyObject`s, plus the public key as SPKI PEM and as JWK.
 * @throws TypeError if `secret` is not a non-empty string (a configuration error).
 */
export function ticketKeys(secret: string): TicketKeys {
  if (typeof secret !== "string" || secret.length === 0) {
    throw new TypeError("ticketKeys: the ticket-signing secret must be a non-empty string");
  }
  const seed = createHash("sha256").update(SEED_PREFIX + secret, "utf8").digest();
  const cacheKey = seed.toString("base64url");
  const cached = keysCache.get(cacheKey);
  if (cached) return cached;

  const privateKey = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]),
    format: "der",
    type: "pkcs8",
  });
  const publicKey = createPublicKey(privateKey);
  const publicKeyPem = publicKey.export({ format: "pem", type: "spki" }).toString();
  const jwk = publicKey.export({ format: "jwk" });
  if (typeof jwk.x !== "string") throw new Error("ticketKeys: Ed25519 public key export has no x");
  const x = jwk.x;
  // RFC 7638: SHA-256 over the required members in lexicographic order, no whitespace.
  const kid = createHash("sha256").update(JSON.stringify({ crv: "Ed25519", kty: "OKP", x }), "utf8").digest("base64url");

  const keys: TicketKeys = {
    privateKey,
    publicKey,
    publicKeyPem,
    publicKeyJwk: { kty: "OKP", crv: "Ed25519", x, alg: ALG, use: "sig", kid },
  };
  keysCache.set(cacheKey, keys);
  return keys;
}

/**
 * Signs a ticket code for one ticket.
 *
 * @param claims ticket, event and order ids and the seat label; all must be non-empty strings.
 * @param secret the ticket-signing secret (see {@link ticketKeys}).
 * @returns a compact JWS (`xxx.yyy.zzz`, base64url, ~270 characters for real ids and
 *   labels), to be stored as the ticket's code and rendered with `ticketQrSvg` (lib/tickets/qr.ts, in the fan's browser).
 *   `iat` is the current time in whole seconds.
 * @throws TypeError if a claim is missing or empty, or the secret is empty.
 */
export async function signTicketCode(claims: TicketCodeClaims, secret: string): Promise<string> {
  for (const field of ["ticketId", "eventId", "seatLabel", "orderId"] as const) {
    const value: unknown = claims[field];
    if (typeof value !== "string" || value.length === 0) {
      throw new TypeError(`signTicketCode: ${field} must be a non-empty string`);
    }
  }
  const { privateKey } = ticketKeys(secret);
  const payload = {
    t: claims.ticketId,
    e: claims.eventId,
    s: claims.seatLabel,
    o: claims.orderId,
    iat: Math.floor(Date.now() / 1000),
  };
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: ALG })
    .sign(privateKey);
}

// Parsed SPKI PEMs, so a scanner verifying thousands of codes parses its key once.
const pemCache = new Map<string, KeyObject>();

function resolvePublicKey(publicKey: KeyObject | string): KeyObject {
  let key: KeyObject;
  if (typeof publicKey === "string") {
    const cached = pemCache.get(publicKey);
    if (cached) return cached;
    try {
      key = createPublicKey({ key: publicKey, format: "pem" });
    } catch (cause) {
      throw new TypeError("verifyTicketCode: the public key is not a valid SPKI PEM", { cause });
    }
  } else {
    key = publicKey;
  }
  if (key.type !== "public" || key.asymmetricKeyType !== "ed25519") {
    throw new TypeError("verifyTicketCode: the public key must be an Ed25519 public key");
  }
  if (typeof publicKey === "string") {
    if (pemCache.size >= 16) pemCache.clear();
    pemCache.set(publicKey, key);
  }
  return key;
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === "string" && value.length > 0;
}

/**
 * Checks a ticket code offline, with the public key only, and returns what it vouches for.
 * Surrounding whitespace (as some QR scanners append) is ignored.
 *
 * This proves the code was issued by StarArena and not altered. It does NOT say the
 * ticket is still valid: check the ticket's status (not used, not voided) in the
 * database at check-in, and that `eventId` is the event at this door.
 *
 * @param code the scanned string.
 * @param publicKey the Ed25519 public key, as a `KeyObject` or an SPKI PEM string
 *   (`ticketKeys(secret).publicKeyPem`).
 * @returns `{ ticketId, eventId, seatLabel, orderId, issuedAt }`.
 * @throws InvalidTicketCodeError with reason `"malformed"` ("This is not a StarArena
 *   ticket code") for anything that is not a well-formed ticket code, or reason
 *   `"not_genuine"` ("This ticket code is not genuine") when the signature does not
 *   match (forged, altered, or signed with another key).
 * @throws TypeError if `publicKey` is not an Ed25519 public key (a configuration error,
 *   not a problem with the code).
 */
export async function verifyTicketCode(code: string, publicKey: KeyObject | string): Promise<VerifiedTicketCode> {
  const key = resolvePublicKey(publicKey);
  if (typeof code !== "string") throw new InvalidTicketCodeError("malformed");
  const trimmed = code.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_CODE_LENGTH || !/^[\w-]+\.[\w-]+\.[\w-]+$/.test(trimmed)) {
    throw new InvalidTicketCodeError("malformed");
  }

  let payloadBytes: Uint8Array;
  try {
    // The signature is checked before the payload is decoded, so an altered payload
    // reads as "not genuine" rather than "not a ticket code".
    ({ payload: payloadBytes } = await compactVerify(trimmed, key, { algorithms: [ALG] }));
  } catch (cause) {
    if (cause instanceof joseErrors.JWSSignatureVerificationFailed) {
      throw new InvalidTicketCodeError("not_genuine", { cause });
    }
    // JWSInvalid (undecodable header/payload, bad header), JOSEAlgNotAllowed (e.g. an HS256 token), …
    throw new InvalidTicketCodeError("malformed", { cause });
  }
  // Base64url leaves spare bits in the last character and decoders ignore them, so one
  // valid signature has several spellings. Accept only the canonical one: one ticket, one code.
  const signature = trimmed.slice(trimmed.lastIndexOf(".") + 1);
  if (Buffer.from(signature, "base64url").toString("base64url") !== signature) {
    throw new InvalidTicketCodeError("not_genuine");
  }

  let payload: unknown;
  try {
    payload = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(payloadBytes));
  } catch (cause) {
    throw new InvalidTicketCodeError("malformed", { cause });
  }
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
    throw new InvalidTicketCodeError("malformed");
  }
  const { t, e, s, o, iat } = payload as Record<string, unknown>;
  if (!nonEmptyString(t) || !nonEmptyString(e) || !nonEmptyString(s) || !nonEmptyString(o)) {
    throw new InvalidTicketCodeError("malformed");
  }
  if (typeof iat !== "number" || !Number.isSafeInteger(iat) || iat < 0) {
    throw new InvalidTicketCodeError("malformed");
  }
  return { ticketId: t, eventId: e, seatLabel: s, orderId: o, issuedAt: new Date(iat * 1000) };
}
