/**
 * The cookie cache's pure parts (lib/auth/cookie-cache.ts): reading one cookie out of a Cookie
 * header exactly as the former split-based reader did, and the memo of verified cookie pairs,
 * which must never let a tampered, re-keyed or expired pair through because a valid one was
 * seen before. (lib/auth/session.test.ts pins the format to the real better-auth.)
 */
import { describe, expect, it } from "vitest";
import { cookieValue, SESSION_COOKIE, SESSION_DATA_COOKIE, signSessionData, signSessionToken, userFromCookieCache } from "@/lib/auth/cookie-cache";

const SECRET = "a-test-secret-that-is-long-enough-000000";
const OTHER_SECRET = "another-test-secret-that-is-long-enough-0";
const MINUTE = 60_000;

/** What cookieValue did before it walked the header in place. */
function splitReference(cookieHeader: string, name: string): string | undefined {
  for (const part of cookieHeader.split(";")) {
    const eq = part.indexOf("=");
    const key = part.slice(0, eq).trim();
    if (eq > 0 && (key === name || key === `__Secure-${name}`)) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** A deterministic pseudo-random generator (so a failure reproduces). */
function rng(seed: number) {
  return () => ((seed = (seed * 1_103_515_245 + 12_345) >>> 0) / 2 ** 32);
}

/** A fan's two session cookies as a browser sends them, the cache valid for 5 minutes from `now`. */
function sessionCookies(n: number, now: number, secret = SECRET, sessionMinutes = 7 * 24 * 60) {
  const token = `token${n}`.padEnd(32, "x");
  const session = { id: `ses_${n}`, token, userId: `usr_${n}`, expiresAt: new Date(now + sessionMinutes * MINUTE).toISOString() };
  const user = { id: `usr_${n}`, email: `fan${n}@stararena.test`, name: `Fan ${n}`, role: "fan" };
  const tokenCookie = signSessionToken(token, secret);
  const dataCookie = signSessionData(session, user, secret, { now, maxAgeSeconds: 300 });
  return { tokenCookie, dataCookie, header: `${SESSION_COOKIE}=${tokenCookie}; ${SESSION_DATA_COOKIE}=${dataCookie}` };
}

describe("cookieValue", () => {
  it("finds what the split-based reader found, in random headers and edge cases", () => {
    const random = rng(7);
    const names = ["a", "sa_queue_evt_1", "better-auth.session_token", "__Secure-a", "__Secure-sa_queue_evt_1"];
    const pieces = [";", "; ", " ;", "=", "==", " ", "\t", "x", "a", "a=", "=a", "__Secure-", "sa_queue_evt_1", "better-auth.session_token", "v%3D", "é"];
    const headers = ["", ";", "=", "a", "a=", "=a", "a=1", " a = 1 ", "a=1;a=2", "__Secure-a=1; a=2", "a=2; __Secure-a=1", "b=1;;; a=3;", "a;b;c=1; a=4", ";;;;;;;;;;a=5"];
    for (let n = 0; n < 3_000; n++) headers.push(Array.from({ length: 1 + Math.floor(random() * 12) }, () => pieces[Math.floor(random() * pieces.length)]).join(""));
    for (const header of headers) for (const name of names) expect(cookieValue(header, name), JSON.stringify([header, name])).toBe(splitReference(header, name));
  });

  it("stays linear on a header of separators without any '='", () => {
    const header = `${";".repeat(200_000)}a=1`;
    const started = performance.now();
    expect(cookieValue(header, "a")).toBe("1");
    expect(cookieValue(";".repeat(200_000), "a")).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe("verified session cookie pairs", () => {
  it("accept a valid pair again from memory, and still refuse what does not match it exactly", () => {
    const now = Date.now();
    const a = sessionCookies(1, now);
    const b = sessionCookies(2, now);
    const user = userFromCookieCache(a.header, SECRET, now);
    expect(user).toEqual({ id: "usr_1", email: "fan1@stararena.test", name: "Fan 1", role: "fan" });
    expect(userFromCookieCache(a.header, SECRET, now + MINUTE)).toEqual(user);

    // A's remembered token with a data cookie it was not verified with: B's (validly signed, another token)…
    expect(userFromCookieCache(`${SESSION_COOKIE}=${a.tokenCookie}; ${SESSION_DATA_COOKIE}=${b.dataCookie}`, SECRET, now)).toBeNull();
    // …its own, with the user changed and not re-signed…
    const payload = JSON.parse(Buffer.from(a.dataCookie, "base64url").toString()) as { session: { user: { id: string } } };
    payload.session.user.id = "usr_2";
    const tampered = Buffer.from(JSON.stringify(payload)).toString("base64url");
    expect(userFromCookieCache(`${SESSION_COOKIE}=${a.tokenCookie}; ${SESSION_DATA_COOKIE}=${tampered}`, SECRET, now)).toBeNull();
    // …or signed with another secret.
    const foreign = sessionCookies(1, now, OTHER_SECRET);
    expect(userFromCookieCache(`${SESSION_COOKIE}=${a.tokenCookie}; ${SESSION_DATA_COOKIE}=${foreign.dataCookie}`, SECRET, now)).toBeNull();
    // The remembered pair under another secret, and A's data with a token whose signature is broken.
    expect(userFromCookieCache(a.header, OTHER_SECRET, now)).toBeNull();
    const brokenToken = a.tokenCookie.replace(/(.)(%3D)?$/, (_, c: string, pad: string | undefined) => `${c === "A" ? "B" : "A"}${pad ?? ""}`);
    expect(brokenToken).not.toBe(a.tokenCookie);
    expect(userFromCookieCache(`${SESSION_COOKIE}=${brokenToken}; ${SESSION_DATA_COOKIE}=${a.dataCookie}`, SECRET, now)).toBeNull();

    // None of that displaced or changed the valid pair.
    expect(userFromCookieCache(a.header, SECRET, now)).toEqual(user);
  });

  it("refuse a remembered pair once its cache or its session has expired", () => {
    const now = Date.now();
    const a = sessionCookies(3, now);
    expect(userFromCookieCache(a.header, SECRET, now)).not.toBeNull();
    expect(userFromCookieCache(a.header, SECRET, now + 5 * MINUTE)).not.toBeNull();
    expect(userFromCookieCache(a.header, SECRET, now + 5 * MINUTE + 1)).toBeNull();
    // A session that ends before its cache does: remembered only until the session's end.
    const short = sessionCookies(4, now, SECRET, 2);
    expect(userFromCookieCache(short.header, SECRET, now)).not.toBeNull();
    expect(userFromCookieCache(short.header, SECRET, now + 2 * MINUTE + 1)).toBeNull();
  });
});
