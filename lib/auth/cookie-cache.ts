/**
 * better-auth's session cookies, in one place: the signed session token
 * (`better-auth.session_token`, signed as better-call signs cookies) and the session cookie
 * cache (`better-auth.session_data`, better-auth 1.7's default "compact" strategy). The app
 * verifies the cache itself on hot paths (ADR 0007); the on-sale simulator signs both for its
 * fans. Tests pin both directions to the real library (lib/auth/session.test.ts,
 * lib/simulator/report.test.ts).
 */
import { toSessionUser, type SessionUser } from "@/lib/auth/user";
import { hmacSha256, sameText, textFromBase64Url, textToBase64Url, toBase64, toBase64Url } from "@/lib/signing";

/** better-auth's session cookie name (no `__Secure-` prefix over plain http). */
export const SESSION_COOKIE = "better-auth.session_token";
/** better-auth's session cookie cache name. */
export const SESSION_DATA_COOKIE = "better-auth.session_data";

/** The signed cookie value better-auth expects for a session token. */
export function signSessionToken(token: string, secret: string): string {
  return encodeURIComponent(`${token}.${tokenSignature(token, secret)}`);
}

/** base64(HMAC-SHA256(secret, token)): the session token cookie's signature (better-call). */
const tokenSignature = (token: string, secret: string) => toBase64(hmacSha256(secret, token));

/** base64url(HMAC-SHA256(secret, JSON({ ...data, expiresAt }))): the cookie cache's signature. */
const dataSignature = (data: object, expiresAt: number, secret: string) => toBase64Url(hmacSha256(secret, JSON.stringify({ ...data, expiresAt })));

/**
 * better-auth's "compact" session cookie cache value for `session` and `user` (rows as the
 * app stores them), valid `maxAgeSeconds` from `now` (ms):
 * base64url(JSON({ session: data, expiresAt, signature })), where data = { session, user,
 * updatedAt, version: "1" } and signature = base64url(HMAC-SHA256(secret, JSON({ ...data, expiresAt }))).
 */
export function signSessionData(
  session: Record<string, unknown>,
  user: Record<string, unknown>,
  secret: string,
  opts: { now?: number; maxAgeSeconds: number },
): string {
  const now = opts.now ?? Date.now();
  const data = { session, user, updatedAt: now, version: "1" };
  const expiresAt = now + opts.maxAgeSeconds * 1000;
  return textToBase64Url(JSON.stringify({ session: data, expiresAt, signature: dataSignature(data, expiresAt, secret) }));
}

/** Cookie `name` (or its `__Secure-` twin, used over https) from a Cookie header; undefined when absent. */
export function cookieValue(cookieHeader: string, name: string): string | undefined {
  for (const part of cookieHeader.split(";")) {
    const eq = part.indexOf("=");
    const key = part.slice(0, eq).trim();
    if (eq > 0 && (key === name || key === `__Secure-${name}`)) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * The door's fast path: the user from better-auth's signed session cookie cache, verified
 * here (lib/signing.ts, synchronous, no Node API) instead of through better-auth's endpoint
 * pipeline (WebCrypto key import per call) — joins, queue polls and holds are the hottest requests of an on-sale
 * (ADR 0007). It accepts exactly what better-auth's getSession accepts from its cache
 * (better-auth 1.7, "compact" strategy; `lib/auth/session.test.ts` pins that against the
 * real library) and returns null for anything else, so the caller falls back to better-auth:
 * - `better-auth.session_token` = `token.base64(HMAC-SHA256(secret, token))` (URL-encoded);
 * - `better-auth.session_data` = base64url(JSON({ session: { session, user, updatedAt,
 *   version: "1" }, expiresAt, signature })), signature = base64url(HMAC-SHA256(secret,
 *   JSON({ ...session, expiresAt })));
 * - the cached session's token equals the cookie's token; the cache (`expiresAt`, ms) and
 *   the session (`session.expiresAt`) have not expired at `now`.
 * @param cookieHeader the request's Cookie header (null → null).
 * @param now epoch ms.
 */
export function userFromCookieCache(cookieHeader: string | null, secret: string, now = Date.now()): SessionUser | null {
  if (!cookieHeader) return null;
  const rawToken = cookieValue(cookieHeader, SESSION_COOKIE);
  const rawData = cookieValue(cookieHeader, SESSION_DATA_COOKIE);
  if (!rawToken || !rawData) return null;
  // A pair verified before is not verified again until it expires: a fan's retries, polls and
  // holds present the same cookies (the memo is keyed by the secret and both exact values).
  const memoKey = `${secret}\u0000${rawToken}\u0000${rawData}`;
  const known = verified.get(memoKey);
  if (known) {
    if (known.validUntil >= now) return known.user;
    verified.delete(memoKey);
  }
  const checked = verify(rawToken, rawData, secret, now);
  if (!checked) return null;
  if (verified.size >= MEMO_ENTRIES) verified.delete(verified.keys().next().value!);
  verified.set(memoKey, checked);
  return checked.user;
}

/** Verified cookie pairs (oldest first), each with when it stops being valid (ms). */
const verified = new Map<string, { user: SessionUser; validUntil: number }>();
/** At most this many remembered pairs (~1 kB each). */
const MEMO_ENTRIES = 50_000;

/** The full check of one cookie pair (see {@link userFromCookieCache}); null when anything is off. */
function verify(rawToken: string, rawData: string, secret: string, now: number): { user: SessionUser; validUntil: number } | null {
  let signed: string;
  try {
    signed = decodeURIComponent(rawToken);
  } catch {
    return null;
  }
  const dot = signed.lastIndexOf(".");
  if (dot < 1) return null;
  const token = signed.slice(0, dot);
  if (!sameText(signed.slice(dot + 1), tokenSignature(token, secret))) return null;
  let payload: { session?: { session?: { token?: unknown; expiresAt?: unknown }; user?: Record<string, unknown>; version?: unknown }; expiresAt?: unknown; signature?: unknown };
  try {
    payload = JSON.parse(textFromBase64Url(rawData) ?? "") as typeof payload;
  } catch {
    return null;
  }
  const data = payload?.session;
  if (!data || typeof payload.expiresAt !== "number" || typeof payload.signature !== "string") return null;
  if (!sameText(payload.signature, dataSignature(data, payload.expiresAt, secret))) return null;
  if ((data.version ?? "1") !== "1" || data.session?.token !== token || payload.expiresAt < now) return null;
  const sessionExpires = new Date(String(data.session.expiresAt)).getTime();
  if (!Number.isFinite(sessionExpires) || sessionExpires < now) return null;
  const user = data.user ? toSessionUser(data.user) : null;
  if (!user) return null;
  return { user, validUntil: Math.min(payload.expiresAt, sessionExpires) };
}
