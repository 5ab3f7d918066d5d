/**
 * better-auth's session cookies, in one place: the signed session token
 * (`better-auth.session_token`, signed as better-call signs cookies) and the session cookie
 * cache (`better-auth.session_data`, better-auth 1.7's default "compact" strategy). The app
 * verifies the cache itself on hot paths (ADR 0007); the on-sale simulator signs both for its
 * fans. Tests pin both directions to the real library (lib/auth/session.test.ts,
 * lib/simulator/report.test.ts).
 */
import { toSessionUser, type SessionUser } from "@/lib/auth/user";
import { hmacSha256Base64, hmacSha256Base64Url, sameText, textFromBase64Url, textToBase64Url, VerifiedMemo } from "@/lib/signing";

/** better-auth's session cookie name (no `__Secure-` prefix over plain http). */
export const SESSION_COOKIE = "better-auth.session_token";
/** better-auth's session cookie cache name. */
export const SESSION_DATA_COOKIE = "better-auth.session_data";

/** The signed cookie value better-auth expects for a session token. */
export function signSessionToken(token: string, secret: string): string {
  return encodeURIComponent(`${token}.${tokenSignature(token, secret)}`);
}

/** base64(HMAC-SHA256(secret, token)): the session token cookie's signature (better-call). */
const tokenSignature = (token: string, secret: string) => hmacSha256Base64(secret, token);

/** base64url(HMAC-SHA256(secret, JSON({ ...data, expiresAt }))): the cookie cache's signature. */
const dataSignature = (data: object, expiresAt: number, secret: string) => hmacSha256Base64Url(secret, JSON.stringify({ ...data, expiresAt }));

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

/**
 * Cookie `name` (or its `__Secure-` twin, used over https) from a Cookie header: the first
 * `;`-separated part whose name (trimmed) is either, its value trimmed; undefined when absent.
 * Walks the header in place rather than splitting it: the door reads three cookies from a
 * ~1 kB header per request, and a split copies every part each time.
 */
export function cookieValue(cookieHeader: string, name: string): string | undefined {
  const secureName = `__Secure-${name}`;
  const length = cookieHeader.length;
  let start = 0;
  while (start <= length) {
    let end = cookieHeader.indexOf(";", start);
    if (end < 0) end = length;
    const eq = cookieHeader.indexOf("=", start);
    if (eq < 0) return undefined;
    if (eq >= end) {
      // No "=" in this part nor up to the part holding the next one: go straight to that part.
      start = cookieHeader.lastIndexOf(";", eq) + 1;
      continue;
    }
    if (eq > start) {
      const key = cookieHeader.slice(start, eq).trim();
      if (key === name || key === secureName) return cookieHeader.slice(eq + 1, end).trim();
    }
    start = end + 1;
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
  // holds present the same cookies. Remembered by the (short) token cookie, with the exact data
  // cookie it was verified with: a pair matches only when both values and the secret are the same.
  const known = verified.get(rawToken, secret);
  if (known && known.rawData === rawData) {
    if (known.validUntil >= now) return known.user;
    verified.delete(rawToken);
  }
  const checked = verify(rawToken, rawData, secret, now);
  if (!checked) return null;
  verified.set(rawToken, secret, { rawData, ...checked });
  return checked.user;
}

/** Verified cookie pairs by token cookie, each with its data cookie and when it stops being valid (ms); ~1 kB each. */
const verified = new VerifiedMemo<{ rawData: string; user: SessionUser; validUntil: number }>(50_000);

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
