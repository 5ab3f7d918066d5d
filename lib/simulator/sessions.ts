/**
 * Fans for the on-sale simulator, created straight in the database: 100,000 sign-ups
 * over HTTP would take longer than the sale. Each fan gets a `user` row (like
 * lib/testing/fixtures.ts makeFans) and a better-auth `session` row, and the simulator
 * presents the session the way a browser would: the `better-auth.session_token` cookie,
 * signed exactly as better-auth (better-call) signs it —
 * `encodeURIComponent(token + "." + base64(HMAC-SHA256(BETTER_AUTH_SECRET, token)))` —
 * plus the session cookie cache (`better-auth.session_data`, better-auth's default "compact"
 * strategy: base64url JSON of the session, its expiry and an HMAC-SHA256 signature), as a
 * browser holds it right after signing in or loading a page. Fans arrive signed in, as at a
 * real on-sale; once the cache expires (lib/auth: 5 min) the app looks the session up in
 * Postgres and refreshes the cookie, as for any fan. `report.test.ts` proves better-auth
 * accepts both cookies (the cache even with the session row gone).
 */
import { randomBytes } from "node:crypto";
import { session as sessionTable, user as userTable } from "@/db/schema";
import { SESSION_CACHE_SECONDS } from "@/lib/auth";
import { signSessionData, signSessionToken } from "@/lib/auth/cookie-cache";
import type { Db } from "@/lib/db";

/** One simulated fan: ids and the signed session cookie value to send. */
export interface SimFan {
  index: number;
  id: string;
  /** Value of the `better-auth.session_token` cookie (already URL-encoded). */
  sessionCookie: string;
  /** Value of the `better-auth.session_data` cookie (base64url). */
  sessionDataCookie: string;
}

const BATCH = 5_000;

/**
 * Inserts `n` fans and one session each (valid for 7 days), in batches.
 * @param opts.runTag distinguishes this run's emails and ids (letters and digits).
 * @param opts.onProgress called after each batch with the number created so far.
 */
export async function createFansWithSessions(
  db: Db,
  n: number,
  opts: { secret: string; runTag: string; cookieCacheSeconds?: number; onProgress?: (done: number) => void },
): Promise<SimFan[]> {
  const fans: SimFan[] = [];
  const expiresAt = new Date(Date.now() + 7 * 24 * 3_600_000);
  for (let start = 0; start < n; start += BATCH) {
    const users: (typeof userTable.$inferInsert)[] = [];
    const sessions: (typeof sessionTable.$inferInsert)[] = [];
    for (let i = start; i < Math.min(n, start + BATCH); i++) {
      const id = `usr_sim${opts.runTag}${i.toString(36)}`;
      const token = randomBytes(24).toString("base64url");
      const now = new Date();
      const u = { id, email: `sim-${opts.runTag}-${i}@onsale.stararena.test`, name: `Sim fan ${i}`, role: "fan" as const, emailVerified: true, image: null, createdAt: now, updatedAt: now };
      const ses = { id: `ses_sim${opts.runTag}${i.toString(36)}`, token, userId: id, expiresAt, ipAddress: null, userAgent: "stararena-onsale", createdAt: now, updatedAt: now };
      users.push(u);
      sessions.push(ses);
      fans.push({
        index: i,
        id,
        sessionCookie: signSessionToken(token, opts.secret),
        sessionDataCookie: signSessionData(ses, u, opts.secret, { now: now.getTime(), maxAgeSeconds: opts.cookieCacheSeconds ?? SESSION_CACHE_SECONDS }),
      });
    }
    await db.transaction(async (tx) => {
      await tx.insert(userTable).values(users);
      await tx.insert(sessionTable).values(sessions);
    });
    opts.onProgress?.(fans.length);
  }
  return fans;
}
