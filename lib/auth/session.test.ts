/**
 * The door's session fast path (userFromCookieCache) against the real better-auth: it
 * accepts the cookies a real sign-in sets, exactly when better-auth itself would answer
 * from its cache, and refuses anything tampered with, mismatched or expired (the caller
 * then falls back to better-auth). Real Postgres.
 */
import { afterAll, describe, expect, it } from "vitest";
import { auth } from "@/lib/auth";
import { userFromCookieCache } from "@/lib/auth/cookie-cache";
import { getSessionUser } from "@/lib/auth/session";
import { ensureUser } from "@/lib/auth/users";
import { closeDb, db } from "@/lib/db";
import { env } from "@/lib/env";
import { closeRedis } from "@/lib/redis";

afterAll(async () => {
  await closeDb();
  await closeRedis();
});

/** A new (confirmed) fan signs in through better-auth; returns the Cookie header a browser would send. */
async function signedUpCookies(): Promise<{ cookie: string; userId: string; email: string }> {
  const email = `fast-path-${Date.now()}-${Math.random().toString(36).slice(2)}@stararena.test`;
  await ensureUser(db(), { email, password: "fast-path-password", name: "Fast Path", role: "fan" });
  const { headers, response } = await auth().api.signInEmail({ body: { email, password: "fast-path-password" }, returnHeaders: true });
  const cookie = headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  return { cookie, userId: response.user.id, email };
}

const swap = (cookie: string, name: string, value: string) => cookie.replace(new RegExp(`${name}=[^;]*`), `${name}=${value}`);

describe("session cookie cache fast path", () => {
  it("accepts a real sign-in's cookies, as better-auth does", async () => {
    const { cookie, userId, email } = await signedUpCookies();
    expect(cookie).toContain("better-auth.session_data=");
    expect(userFromCookieCache(cookie, env().BETTER_AUTH_SECRET)).toEqual({ id: userId, email, name: "Fast Path", role: "fan" });
    const lib = await auth().api.getSession({ headers: new Headers({ cookie }) });
    expect(lib?.user.id).toBe(userId);
    expect((await getSessionUser(new Headers({ cookie })))?.id).toBe(userId);
  });

  it("refuses a tampered token, tampered data, another session's cache, the wrong secret and an expired cache", async () => {
    const a = await signedUpCookies();
    const b = await signedUpCookies();
    const secret = env().BETTER_AUTH_SECRET;
    const tokenOf = (c: string) => /better-auth\.session_token=([^;]*)/.exec(c)![1]!;
    const dataOf = (c: string) => /better-auth\.session_data=([^;]*)/.exec(c)![1]!;

    // A's session token with B's (validly signed) cache: the tokens differ.
    expect(userFromCookieCache(swap(a.cookie, "better-auth.session_data", dataOf(b.cookie)), secret)).toBeNull();
    // The token's signature broken: its last base64 character changed (to another one, whatever it was).
    const broken = tokenOf(a.cookie).replace(/(.)%3D$/, (_, c: string) => `${c === "A" ? "B" : "A"}%3D`);
    expect(broken).not.toBe(tokenOf(a.cookie));
    expect(userFromCookieCache(swap(a.cookie, "better-auth.session_token", broken), secret)).toBeNull();
    // The cached user changed to B without re-signing.
    const payload = JSON.parse(Buffer.from(dataOf(a.cookie), "base64url").toString()) as { session: { user: { id: string } } };
    payload.session.user.id = b.userId;
    expect(userFromCookieCache(swap(a.cookie, "better-auth.session_data", Buffer.from(JSON.stringify(payload)).toString("base64url")), secret)).toBeNull();
    expect(userFromCookieCache(a.cookie, "another-secret-of-at-least-32-characters")).toBeNull();
    // Past the cache's 5 minutes: null here, and better-auth falls back to Postgres.
    expect(userFromCookieCache(a.cookie, secret, Date.now() + 5 * 60_000 + 1_000)).toBeNull();
    // Garbage never throws.
    for (const junk of ["", "better-auth.session_token=%E0%A4%A", "better-auth.session_token=x.y; better-auth.session_data=!!!", "a=b"]) {
      expect(userFromCookieCache(junk, secret)).toBeNull();
    }
  });
});
