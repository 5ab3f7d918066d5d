/**
 * Who is calling: session look-ups for server components, actions and route handlers.
 * Role checks happen here, on the server, never only in the UI.
 */
import { eq } from "drizzle-orm";
import { headers } from "next/headers";
import { forbidden, notFound, redirect } from "next/navigation";
import { cache } from "react";
import { events } from "@/db/schema";
import { auth } from "@/lib/auth";
import { userFromCookieCache } from "@/lib/auth/cookie-cache";
import { checkInOrganizerOf, toSessionUser, type SessionUser } from "@/lib/auth/user";
import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { safeNextPath } from "@/lib/redirects";
import { eventIdSchema } from "@/lib/ids";

export type { SessionUser } from "@/lib/auth/user";

/**
 * Reads the session from request headers; null when signed out. Tries the signed session
 * cookie cache first (`userFromCookieCache`, lib/auth/cookie-cache.ts: no Postgres and no better-auth call),
 * else asks better-auth (which reads Postgres and refreshes the cache cookie).
 */
export async function getSessionUser(requestHeaders?: Headers): Promise<SessionUser | null> {
  const h = requestHeaders ?? (await headers());
  const cached = userFromCookieCache(h.get("cookie"), env().BETTER_AUTH_SECRET);
  if (cached) return cached;
  const session = await auth().api.getSession({ headers: h });
  if (!session) return null;
  return toSessionUser(session.user as Record<string, unknown>);
}

/**
 * The signed-in user of the request being rendered, looked up once per request (React `cache`):
 * a page's role check and the 403 page it may lead to (app/admin/forbidden.tsx, which Next
 * renders with every admin page) share one look-up. Outside a render it is {@link getSessionUser}.
 */
export const currentUser = cache(async (): Promise<SessionUser | null> => getSessionUser());

/** The signed-in user, or a redirect to /sign-in that comes back to `returnTo`. */
export async function requireUser(returnTo: string): Promise<SessionUser> {
  const user = await currentUser();
  if (!user) redirect(`/sign-in?next=${encodeURIComponent(safeNextPath(returnTo))}`);
  return user;
}

/** The signed-in organizer; signed-out → /sign-in, signed-in fan or door staff → 403 (Next `forbidden()`). */
export async function requireOrganizer(returnTo = "/admin"): Promise<SessionUser> {
  const user = await requireUser(returnTo);
  if (user.role !== "organizer") forbidden();
  return user;
}

/**
 * Someone who may check tickets in at the door (/admin/scan): an organizer, or door staff.
 * Signed out → /sign-in and back to `returnTo`; a fan → 403 (Next `forbidden()`).
 * @returns the user and `organizerId`, whose shows' tickets they may check in (their own, or the one in `staff_of`).
 */
export async function requireCheckInStaff(returnTo = "/admin/scan"): Promise<{ user: SessionUser; organizerId: string }> {
  const user = await requireUser(returnTo);
  const organizerId = checkInOrganizerOf(user);
  if (!organizerId) forbidden();
  return { user, organizerId };
}

/**
 * The signed-in organizer who owns `eventId`, with the event. Signed out → /sign-in;
 * a fan, or an organizer of another show → 403 (`forbidden()`); no such event → 404.
 * Every admin page and action that touches a show goes through this (server-side).
 */
export async function requireOrganizerOfEvent(eventId: string, returnTo = "/admin") {
  const user = await requireOrganizer(returnTo);
  if (!eventIdSchema.safeParse(eventId).success) notFound();
  const event = await db().query.events.findFirst({ where: eq(events.id, eventId) });
  if (!event) return notFound();
  if (event.organizerId !== user.id) forbidden();
  return { user, event };
}

/**
 * The route-handler twin of {@link requireOrganizerOfEvent}: answers instead of redirecting.
 * @returns the event when `user` is an organizer who runs it.
 * @throws {AppError} 403 `organizers_only` for a fan, 403 `not_your_show` for an unknown show or another organizer's.
 */
export async function assertOrganizerOfEvent(user: SessionUser, eventId: string): Promise<typeof events.$inferSelect> {
  if (user.role !== "organizer") throw new AppError("forbidden", "organizers_only", "This is for the show's organizer only.");
  const event = await db().query.events.findFirst({ where: eq(events.id, eventId) });
  if (!event || event.organizerId !== user.id) throw new AppError("forbidden", "not_your_show", "This show is not yours.");
  return event;
}
