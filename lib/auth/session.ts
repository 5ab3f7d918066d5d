/**
 * Who is calling: session look-ups for server components, actions and route handlers.
 * Role checks happen here, on the server, never only in the UI.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { eq } from "drizzle-orm";
import { headers } from "next/headers";
import { forbidden, notFound, redirect } from "next/navigation";
import { events } from "@/db/schema";
import { auth } from "@/lib/auth";
import { db } from "@/lib/db";
import { env } from "@/lib/env";

/** The signed-in user as the app sees it. */
export interface SessionUser {
  id: string;
  email: string;
  name: string;
  role: "fan" | "organizer";
}

/**
 * Reads the session from request headers; null when signed out. Tries the signed session
 * cookie cache first ({@link userFromCookieCache}, no Postgres and no better-auth call),
 * else asks better-auth (which reads Postgres and refreshes the cache cookie).
 */
export async function getSessionUser(requestHeaders?: Headers): Promise<SessionUser | null> {
  const h = requestHeaders ?? (await headers());
  const cached = userFromCookieCache(h.get("cookie"), env().BETTER_AUTH_SECRET);
  if (cached) return cached;
  const session = await auth().api.getSession({ headers: h });
  if (!session) return null;
  const u = session.user as typeof session.user & { role?: string };
  return { id: u.id, email: u.email, name: u.name, role: u.role === "organizer" ? "organizer" : "fan" };
}

const hmac = (secret: string, data: string, encoding: "base64" | "base64url") => createHmac("sha256", secret).update(data).digest(encoding);
const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** Cookie `name` (or its `__Secure-` twin, used over https) from a Cookie header; undefined when absent. */
function cookieValue(cookieHeader: string, name: string): string | undefined {
  for (const part of cookieHeader.split(";")) {
    const eq = part.indexOf("=");
    const key = part.slice(0, eq).trim();
    if (eq > 0 && (key === name || key === `__Secure-${name}`)) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * The door's fast path: the user from better-auth's signed session cookie cache, verified
 * here with node:crypto instead of through better-auth's endpoint pipeline (WebCrypto key
 * import per call) — joins, queue polls and holds are the hottest requests of an on-sale
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
  const rawToken = cookieValue(cookieHeader, "better-auth.session_token");
  const rawData = cookieValue(cookieHeader, "better-auth.session_data");
  if (!rawToken || !rawData) return null;
  let signed: string;
  try {
    signed = decodeURIComponent(rawToken);
  } catch {
    return null;
  }
  const dot = signed.lastIndexOf(".");
  if (dot < 1) return null;
  const token = signed.slice(0, dot);
  if (!sameText(signed.slice(dot + 1), hmac(secret, token, "base64"))) return null;
  let payload: { session?: { session?: { token?: unknown; expiresAt?: unknown }; user?: Record<string, unknown>; version?: unknown }; expiresAt?: unknown; signature?: unknown };
  try {
    payload = JSON.parse(Buffer.from(rawData, "base64url").toString("utf8")) as typeof payload;
  } catch {
    return null;
  }
  const data = payload?.session;
  if (!data || typeof payload.expiresAt !== "number" || typeof payload.signature !== "string") return null;
  if (!sameText(payload.signature, hmac(secret, JSON.stringify({ ...data, expiresAt: payload.expiresAt }), "base64url"))) return null;
  if ((data.version ?? "1") !== "1" || data.session?.token !== token || payload.expiresAt < now) return null;
  const sessionExpires = new Date(String(data.session.expiresAt)).getTime();
  if (!Number.isFinite(sessionExpires) || sessionExpires < now) return null;
  const u = data.user;
  if (!u || typeof u.id !== "string" || typeof u.email !== "string") return null;
  return { id: u.id, email: u.email, name: typeof u.name === "string" ? u.name : "", role: u.role === "organizer" ? "organizer" : "fan" };
}

/** The signed-in user, or a redirect to /sign-in that comes back to `returnTo`. */
export async function requireUser(returnTo: string): Promise<SessionUser> {
  const user = await getSessionUser();
  if (!user) redirect(`/sign-in?next=${encodeURIComponent(returnTo)}`);
  return user;
}

/** The signed-in organizer; signed-out → /sign-in, signed-in fan → 403 (Next `forbidden()`). */
export async function requireOrganizer(returnTo = "/admin"): Promise<SessionUser> {
  const user = await requireUser(returnTo);
  if (user.role !== "organizer") forbidden();
  return user;
}

/**
 * The signed-in organizer who owns `eventId`, with the event. Signed out → /sign-in;
 * a fan, or an organizer of another show → 403 (`forbidden()`); no such event → 404.
 * Every admin page and action that touches a show goes through this (server-side).
 */
export async function requireOrganizerOfEvent(eventId: string, returnTo = "/admin") {
  const user = await requireOrganizer(returnTo);
  if (!/^evt_[0-9a-z]{1,32}$/.test(eventId)) notFound();
  const event = await db().query.events.findFirst({ where: eq(events.id, eventId) });
  if (!event) return notFound();
  if (event.organizerId !== user.id) forbidden();
  return { user, event };
}

/**
 * The route-handler twin of {@link requireOrganizerOfEvent}: answers instead of redirecting.
 * @returns the organizer and the event id, or the status (401 signed out, 403 fan or another
 *   organizer's show, 400 malformed id) and a message for a JSON error.
 */
export async function organizerOfEventForRequest(
  requestHeaders: Headers,
  rawEventId: string,
): Promise<{ ok: true; user: SessionUser; eventId: string } | { ok: false; status: 400 | 401 | 403; message: string }> {
  const user = await getSessionUser(requestHeaders);
  if (!user) return { ok: false, status: 401, message: "Sign in as the show's organizer." };
  if (user.role !== "organizer") return { ok: false, status: 403, message: "This is for the show's organizer only." };
  if (!/^evt_[0-9a-z]{1,32}$/.test(rawEventId)) return { ok: false, status: 400, message: "That is not an event id (they look like evt_…)" };
  const event = await db().query.events.findFirst({ where: eq(events.id, rawEventId) });
  if (!event || event.organizerId !== user.id) return { ok: false, status: 403, message: "This show is not yours." };
  return { ok: true, user, eventId: event.id };
}
