/**
 * Admission tokens: proof that a fan's turn came. A compact JWT (HS256, jose) bound to
 * the fan (`sub`) and the event (`evt`), expiring when the fan's admission slot frees
 * (default 10 minutes after admission). Every hold checks it while the queue is active.
 */
import { errors, jwtVerify, SignJWT } from "jose";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { sha256 } from "@/lib/signing";

const ISSUER = "stararena/waiting-room";

let cachedKey: { secret: string; key: Uint8Array } | undefined;

/** The HS256 key: SHA-256 of the app secret and a purpose label (computed once per secret). */
function key(): Uint8Array {
  const secret = env().BETTER_AUTH_SECRET;
  if (cachedKey?.secret !== secret) cachedKey = { secret, key: sha256(`${secret}:admission-tokens`) };
  return cachedKey.key;
}

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
 * Signs a token for `fanId` at `eventId`, valid until `expiresAt` (ms).
 * @returns the compact JWT.
 */
export async function issueAdmissionToken(claims: { fanId: string; eventId: string; position: number; expiresAt: number; now?: number }): Promise<string> {
  const now = claims.now ?? Date.now();
  return new SignJWT({ evt: claims.eventId, pos: claims.position })
    .setProtectedHeader({ alg: "HS256" })
    .setIssuer(ISSUER)
    .setSubject(claims.fanId)
    .setIssuedAt(Math.floor(now / 1000))
    .setExpirationTime(Math.floor(claims.expiresAt / 1000))
    .sign(key());
}

/**
 * Verifies a token for this fan and event.
 * @returns the token's queue position.
 * @throws {AdmissionTokenError}: missing/forged/expired → 401; another fan's or another event's → 403.
 */
export async function verifyAdmissionToken(token: string | undefined | null, expected: { fanId: string; eventId: string; now?: number }): Promise<{ position: number }> {
  if (!token) throw new AdmissionTokenError("Your turn has not come yet: join the queue for this show first.", 401, "missing");
  let payload;
  try {
    ({ payload } = await jwtVerify(token, key(), {
      issuer: ISSUER,
      algorithms: ["HS256"],
      currentDate: new Date(expected.now ?? Date.now()),
    }));
  } catch (error) {
    if (error instanceof errors.JWTExpired) throw new AdmissionTokenError("Your turn in the queue has ended. Join the queue again.", 401, "expired");
    throw new AdmissionTokenError("That admission token is not valid. Join the queue for this show.", 401, "forged");
  }
  if (payload.sub !== expected.fanId) throw new AdmissionTokenError("That admission token belongs to someone else.", 403, "other_fan");
  if (payload.evt !== expected.eventId) throw new AdmissionTokenError("That admission token is for another show.", 403, "other_event");
  return { position: Number(payload.pos) };
}

/** Name of the cookie that carries the admission token for one event. */
export const admissionCookieName = (eventId: string) => `sa_admission_${eventId}`;
