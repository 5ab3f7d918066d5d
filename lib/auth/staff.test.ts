/**
 * Door-staff accounts against the real better-auth, Postgres and Redis: an organizer makes one,
 * it signs in with its password, its session says who it works for, it may check that
 * organizer's tickets in — and every organizer-only route refuses it with 403.
 */
import { afterAll, describe, expect, it } from "vitest";
import { GET as liveStatsRoute } from "@/app/api/admin/events/[eventId]/live/route";
import { auth } from "@/lib/auth";
import { userFromCookieCache } from "@/lib/auth/cookie-cache";
import { assertOrganizerOfEvent, getSessionUser } from "@/lib/auth/session";
import { createDoorStaff, listDoorStaff, removeDoorStaff } from "@/lib/auth/staff";
import { checkInOrganizerOf, toSessionUser } from "@/lib/auth/user";
import { closeDb, db } from "@/lib/db";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { route } from "@/lib/http/route";
import { closeRedis } from "@/lib/redis";
import { makeStudioShow, makeUser } from "@/lib/testing/fixtures";

afterAll(async () => {
  await closeDb();
  await closeRedis();
});

const unique = () => Math.random().toString(36).slice(2, 10);

/** Signs in through better-auth and returns the Cookie header a browser would send. */
async function signedInCookies(email: string, password: string): Promise<string> {
  const { headers } = await auth().api.signInEmail({ body: { email, password }, returnHeaders: true });
  return headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}

describe("door staff", () => {
  it("an organizer makes a door-staff account; it signs in and its session names the organizer", async () => {
    const show = await makeStudioShow(db());
    const email = `Door-${unique()}@Test.StarArena`;
    const id = await createDoorStaff(db(), show.organizerId, { name: "Dana Door", email, password: "door-password-1" });
    expect(await listDoorStaff(db(), show.organizerId)).toMatchObject([{ id, name: "Dana Door", email: email.toLowerCase() }]);

    const cookie = await signedInCookies(email.toLowerCase(), "door-password-1");
    const expected = { id, email: email.toLowerCase(), name: "Dana Door", role: "door_staff", staffOf: show.organizerId };
    // Both ways the app reads a session: the signed cookie cache and better-auth itself.
    expect(userFromCookieCache(cookie, env().BETTER_AUTH_SECRET)).toEqual(expected);
    const user = (await getSessionUser(new Headers({ cookie: cookie.replace(/better-auth\.session_data=[^;]*;?\s*/, "") })))!;
    expect(user).toEqual(expected);
    expect(checkInOrganizerOf(user)).toBe(show.organizerId);
  });

  it("is refused everything organizer-only with 403", async () => {
    const show = await makeStudioShow(db());
    const email = `door-${unique()}@test.stararena`;
    await createDoorStaff(db(), show.organizerId, { name: "Door", email, password: "door-password-2" });
    const cookie = await signedInCookies(email, "door-password-2");
    const user = (await getSessionUser(new Headers({ cookie })))!;

    await expect(assertOrganizerOfEvent(user, show.eventId)).rejects.toMatchObject({ kind: "forbidden", code: "organizers_only" });
    // A real /api/admin route: the show's live stats (money) are not for the door.
    const res = await liveStatsRoute(new Request(`${env().APP_URL}/api/admin/events/${show.eventId}/live`, { headers: { cookie } }), { params: Promise.resolve({ eventId: show.eventId }) });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: "organizers_only" });
    // Any route declared for organizers.
    const organizerOnly = route({ who: "organizer" }, () => ({ secret: true }));
    expect((await organizerOnly(new Request(`${env().APP_URL}/x`, { headers: { cookie } }), { params: Promise.resolve({}) })).status).toBe(403);
    // Door staff cannot make door staff.
    await expect(createDoorStaff(db(), user.id, { name: "X", email: `x-${unique()}@test.stararena`, password: "door-password-3" })).rejects.toMatchObject({ code: "organizers_only" });
  });

  it("refuses a taken email, a fan as the organizer, and only the owner removes an account", async () => {
    const show = await makeStudioShow(db());
    const fan = await makeUser(db(), "fan");
    await expect(createDoorStaff(db(), show.organizerId, { name: "Taken", email: fan.email, password: "door-password-4" })).rejects.toMatchObject({ kind: "conflict", code: "email_taken" });
    await expect(createDoorStaff(db(), fan.id, { name: "X", email: `y-${unique()}@test.stararena`, password: "door-password-5" })).rejects.toBeInstanceOf(AppError);
    const id = await createDoorStaff(db(), show.organizerId, { name: "Temp", email: `temp-${unique()}@test.stararena`, password: "door-password-6" });
    const other = await makeUser(db(), "organizer");
    expect(await removeDoorStaff(db(), other.id, id)).toBe(false);
    expect(await removeDoorStaff(db(), show.organizerId, id)).toBe(true);
    expect(await listDoorStaff(db(), show.organizerId)).toEqual([]);
  });

  it("maps stored roles: unknown or door staff without an organizer read as fan", () => {
    expect(toSessionUser({ id: "u", email: "e", name: "n", role: "admin" })).toEqual({ id: "u", email: "e", name: "n", role: "fan" });
    expect(toSessionUser({ id: "u", email: "e", name: "n", role: "door_staff", staffOf: null })).toMatchObject({ role: "fan" });
    expect(toSessionUser({ id: "u", email: "e", role: "organizer" })).toEqual({ id: "u", email: "e", name: "", role: "organizer" });
    expect(toSessionUser({ email: "e" })).toBeNull();
  });
});
