/**
 * Admission tokens: proof that a fan's turn came. A compact JWT (HS256) bound to the fan
 * (`sub`) and the event (`evt`), naming the fan's place (`pos`) in one generation of the
 * queue (`gen`, docs/adr/0028), expiring when the fan's admission slot frees (default 10
 * minutes after admission). Every hold checks it while the queue is active; the hold's Redis
 * claim checks that the generation is the queue's and the place's slot still runs. Signed here with
 * lib/signing.ts's HMAC (the door issues one with every answer to an admitted fan), verified
 * by jose.
 */
import { errors, jwtVerify } from "jose";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { hmacSha256Base64Url, sha256, textToBase64Url } from "@/lib/signing";

const ISSUER = "stararena/waiting-room";

/**
 * How far the verifying process's clock may run ahead of the issuer's (ms): lib/clock.ts's
 * MAX_CLOCK_SKEW_MS, repeated here because the door's handler imports this module and must
 * reach neither Postgres nor Redis (docs/adr/0024-one-clock.md).
 */
export const ADMISSION_CLOCK_TOLERANCE_MS = 60_000;

let cachedKey: { secret: string; key: Uint8Array; verifyKey: Promise<CryptoKey> } | undefined;

/**
 * The HS256 key: SHA-256 of the app secret and a purpose label, computed once per secret — as
 * bytes for signing, and imported once as a Web Crypto key for jose to verify with (given the
 * bytes, jose imports them again on every call: ~70 µs of CPU per verification, measured).
 */
function keys(): { key: Uint8Array; verifyKey: Promise<CryptoKey> } {
  const secret = env().BETTER_AUTH_SECRET;
  if (cachedKey?.secret !== secret) {
    const key = sha256(`${secret}:admission-tokens`);
    cachedKey = { secret, key, verifyKey: crypto.subtle.importKey("raw", new Uint8Array(key), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]) };
  }
  return cachedKey;
}

/** The protected header of every admission token, `{"alg":"HS256"}`, encoded. */
const HEADER = textToBase64Url(JSON.stringify({ alg: "HS256" }));

/** Why a token was refused (401 missing/forged/expired, 403 another fan's or event's); code `admission_<reason>`. */
export class AdmissionTokenError extends AppError {
  constructor(
    message: string,
    status: 401 | 403,
    readonly reason: "missing" | "forged" | "expired" | "other_fan" | "other_event",
  ) {
    super(status === 401 ? "unauthorized" : "forbidden", `admission_${reason}`, message);
  }
}

/**
 * Signs a token for `fanId` at `eventId`, for place `position` of the queue's generation
 * `generation`, valid until `expiresAt` (ms).
 * @returns the compact JWT.
 */
export async function issueAdmissionToken(claims: { fanId: string; eventId: string; position: number; generation: string; expiresAt: number; now?: number }): Promise<string> {
  const iat = Math.floor((claims.now ?? Date.now()) / 1000);
  const exp = Math.floor(claims.expiresAt / 1000);
  if (!Number.isFinite(iat) || !Number.isFinite(exp)) throw new TypeError("An admission token needs finite issue and expiry times.");
  // The compact JWS written here, byte for byte what jose's SignJWT writes for these claims
  // (token.test.ts compares them), with the synchronous HMAC of lib/signing.ts: jose signs through
  // Web Crypto, importing the key each time — ~170 µs of CPU per token against ~10 µs, and every
  // answer to an admitted fan carries a fresh one.
  const payload = textToBase64Url(JSON.stringify({ evt: claims.eventId, pos: claims.position, gen: claims.generation, iss: ISSUER, sub: claims.fanId, iat, exp }));
  const signingInput = `${HEADER}.${payload}`;
  return `${signingInput}.${hmacSha256Base64Url(keys().key, signingInput)}`;
}

/**
 * Verifies a token for this fan and event.
 * @returns the token's queue position and generation ('' when it names none: such a token's
 *   slot is refused as ended by the hold's claim).
 * @throws {AdmissionTokenError}: missing/forged/expired → 401; another fan's or another event's → 403.
 */
export async function verifyAdmissionToken(token: string | undefined | null, expected: { fanId: string; eventId: string; now?: number }): Promise<{ position: number; generation: string }> {
  if (!token) throw new AdmissionTokenError("Your turn has not come yet: join the queue for this show first.", 401, "missing");
  let payload;
  try {
    ({ payload } = await jwtVerify(token, await keys().verifyKey, {
      issuer: ISSUER,
      algorithms: ["HS256"],
      currentDate: new Date(expected.now ?? Date.now()),
      // Signed by one process (the door), checked by another whose clock may differ: `exp` is
      // only a filter here. Whether the slot still runs is decided by Redis's clock inside the
      // hold's claim (lib/inventory/lua.ts, NO_SLOT), so the tolerance lets no one hold longer.
      clockTolerance: ADMISSION_CLOCK_TOLERANCE_MS / 1000,
    }));
  } catch (error) {
    if (error instanceof errors.JWTExpired) throw new AdmissionTokenError("Your turn in the queue has ended. Join the queue again.", 401, "expired");
    throw new AdmissionTokenError("That admission token is not valid. Join the queue for this show.", 401, "forged");
  }
  if (payload.sub !== expected.fanId) throw new AdmissionTokenError("That admission token belongs to someone else.", 403, "other_fan");
  if (payload.evt !== expected.eventId) throw new AdmissionTokenError("That admission token is for another show.", 403, "other_event");
  return { position: Number(payload.pos), generation: typeof payload.gen === "string" ? payload.gen : "" };
}

/** Name of the cookie that carries the admission token for one event. */
export const admissionCookieName = (eventId: string) => `sa_admission_${eventId}`;
