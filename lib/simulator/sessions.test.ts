import { sql as dsql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { SESSION_COOKIE, SESSION_DATA_COOKIE, signSessionData, signSessionToken, userFromCookieCache } from "@/lib/auth/cookie-cache";
import { closeDb, db } from "@/lib/db";
import { createFanBook, FanBook } from "@/lib/simulator/sessions";

afterAll(async () => {
  await closeDb();
});

describe("FanBook", () => {
  it("gives back each fan's id and cookies exactly, across its off-heap chunks", () => {
    const book = new FanBook(3);
    const data = (i: number) => `eyJ${"x".repeat(800 + i)}.${i}`;
    // Added out of order, as a caller may.
    for (const i of [2, 0, 1]) book.add(i, `usr_${i}`, `tok${i}.sig%3D`, data(i));
    for (const i of [0, 1, 2]) {
      expect(book.ids[i]).toBe(`usr_${i}`);
      expect(book.cookies(i)).toEqual({ sessionCookie: `tok${i}.sig%3D`, sessionDataCookie: data(i) });
      expect(book.sessionRecord(i)).toEqual({ [SESSION_COOKIE]: `tok${i}.sig%3D`, [SESSION_DATA_COOKIE]: data(i) });
      // The pairs a request sends: the same cookies, in the same order, as the Cookie header writes them.
      expect(book.sessionCookies(i)).toBe(`${SESSION_COOKIE}=tok${i}.sig%3D; ${SESSION_DATA_COOKIE}=${data(i)}`);
    }
  });
});

describe("createFanBook", () => {
  it("writes every fan's user and session, batch after batch, with cookies the door accepts, signed as from the rows", async () => {
    const secret = "fan-book-test-secret-0123456789abcdef0123456789";
    const runTag = `fb${Date.now().toString(36)}`;
    const progress: number[] = [];
    const n = 1_234;
    const book = await createFanBook(db(), n, { secret, runTag, cookieCacheSeconds: 600, batchSize: 500, onProgress: (d) => progress.push(d) });
    expect(progress).toEqual([500, 1_000, 1_234]);

    const [counts] = (await db().execute(dsql`
      select (select count(*)::int from "user" where id like ${`usr_sim${runTag}%`}) as users,
             (select count(*)::int from "session" s join "user" u on u.id = s.user_id where s.id like ${`ses_sim${runTag}%`}) as sessions
    `)) as unknown as { users: number; sessions: number }[];
    expect(counts).toEqual({ users: n, sessions: n });
    // Ids ascend with the fan's index (every insert appends to the indexes), and are unique.
    expect([...book.ids].sort()).toEqual(book.ids);
    expect(new Set(book.ids).size).toBe(n);

    for (const i of [0, 499, 500, 1_233]) {
      const { sessionCookie, sessionDataCookie } = book.cookies(i);
      // The door's fast path takes the pair for this fan.
      expect(userFromCookieCache(book.sessionCookies(i), secret)?.id).toBe(book.ids[i]);
      // The token cookie is the session row's token, signed.
      const token = decodeURIComponent(sessionCookie).split(".")[0]!;
      const [row] = (await db().execute(dsql`select token, expires_at, created_at from "session" where user_id = ${book.ids[i]!}`)) as unknown as { token: string; expires_at: string; created_at: string }[];
      expect(row!.token).toBe(token);
      expect(sessionCookie).toBe(signSessionToken(token, secret));
      // The cookie cache is what signSessionData makes of the rows with their Date fields
      // (as the simulator signed them before it passed the dates as JSON's strings).
      const cached = JSON.parse(Buffer.from(sessionDataCookie, "base64url").toString()) as { session: { session: Record<string, unknown>; user: Record<string, unknown>; updatedAt: number } };
      const { session, user, updatedAt } = cached.session;
      const dated = (r: Record<string, unknown>, keys: string[]) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, keys.includes(k) ? new Date(v as string) : v]));
      expect(sessionDataCookie).toBe(signSessionData(dated(session, ["expiresAt", "createdAt", "updatedAt"]), dated(user, ["createdAt", "updatedAt"]), secret, { now: updatedAt, maxAgeSeconds: 600 }));
      expect(new Date(session.expiresAt as string).getTime()).toBe(new Date(row!.expires_at).getTime());
      expect(new Date(session.createdAt as string).getTime()).toBe(new Date(row!.created_at).getTime());
    }
  });

  it("refuses a run tag it could not write as it is", async () => {
    await expect(createFanBook(db(), 1, { secret: "s", runTag: "a\tb" })).rejects.toThrow(/letters and digits/);
  });
});
