/** The signed-in user as the app sees it (from the session cookie cache or better-auth). */
export interface SessionUser {
  id: string;
  email: string;
  name: string;
  role: UserRole;
  /** Door staff only: the organizer whose shows they check tickets in for (`user.staff_of`). */
  staffOf?: string;
}

/**
 * Roles (db/schema.ts `user_role`): fans buy; organizers run shows and reach /admin; door staff
 * check tickets in at /admin/scan for one organizer's shows and reach nothing else.
 */
export type UserRole = "fan" | "organizer" | "door_staff";

/**
 * The one mapping from a stored user (a better-auth user object or the cookie cache's copy of
 * it) to a {@link SessionUser}: an unknown role reads as "fan" (no rights), and so does
 * "door_staff" without the organizer it works for.
 * @param u the user's `id`, `email`, `name`, `role` and `staffOf` fields, as stored.
 * @returns the session user, or null when `id` or `email` is not a string.
 */
export function toSessionUser(u: Record<string, unknown>): SessionUser | null {
  if (typeof u.id !== "string" || typeof u.email !== "string") return null;
  const base = { id: u.id, email: u.email, name: typeof u.name === "string" ? u.name : "" };
  if (u.role === "organizer") return { ...base, role: "organizer" };
  if (u.role === "door_staff" && typeof u.staffOf === "string" && u.staffOf !== "") return { ...base, role: "door_staff", staffOf: u.staffOf };
  return { ...base, role: "fan" };
}

/**
 * Whose shows this user may check tickets in for: an organizer's own, door staff's organizer's.
 * @returns the organizer's user id, or null for anyone else (a fan).
 */
export function checkInOrganizerOf(user: SessionUser): string | null {
  if (user.role === "organizer") return user.id;
  if (user.role === "door_staff" && user.staffOf) return user.staffOf;
  return null;
}
