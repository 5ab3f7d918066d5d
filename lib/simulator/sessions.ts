/**
 * Fans for the on-sale simulator, created straight in the database: 100,000 sign-ups
 * over HTTP would take longer than the sale. Each fan gets a `user` row (like
 * lib/testing/fixtures.ts makeFans) and a better-auth `session` row, and the simulator
 * presents the session the way a browser would: the `better-auth.session_token` cookie,
 * signed exactly as better-auth (better-call) signs it —
 * `encodeURIComponent(token + "." + base64(HMAC-SHA256(BETTER_AUTH_SECRET, token)))`.
 */
import { createHmac, randomBytes } from "node:crypto";
import { session as sessionTable, user as userTable } from "@/db/schema";
import type { Db } from "@/lib/db";

/** better-auth's session cookie name (no `__Secure-` prefix over plain http). */
export const SESSION_COOKIE = "better-auth.session_token";

/** One simulated fan: ids and the signed session cookie value to send. */
export interface SimFan {
  index: number;
  id: string;
  /** Value of the `better-auth.session_token` cookie (already URL-encoded). */
  sessionCookie: string;
}

/** The signed cookie value better-auth expects for a session token. */
export function signSessionToken(token: string, secret: string): string {
  const signature = createHmac("sha256", secret).update(token).digest("base64");
  return encodeURIComponent(`${token}.${signature}`);
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
  opts: { secret: string; runTag: string; onProgress?: (done: number) => void },
): Promise<SimFan[]> {
  const fans: SimFan[] = [];
  const expiresAt = new Date(Date.now() + 7 * 24 * 3_600_000);
  for (let start = 0; start < n; start += BATCH) {
    const users: (typeof userTable.$inferInsert)[] = [];
    const sessions: (typeof sessionTable.$inferInsert)[] = [];
    for (let i = start; i < Math.min(n, start + BATCH); i++) {
      const id = `usr_sim${opts.runTag}${i.toString(36)}`;
      const token = randomBytes(24).toString("base64url");
      users.push({ id, email: `sim-${opts.runTag}-${i}@onsale.stararena.test`, name: `Sim fan ${i}`, role: "fan", emailVerified: true });
      sessions.push({ id: `ses_sim${opts.runTag}${i.toString(36)}`, token, userId: id, expiresAt, ipAddress: null, userAgent: "stararena-onsale" });
      fans.push({ index: i, id, sessionCookie: signSessionToken(token, opts.secret) });
    }
    await db.transaction(async (tx) => {
      await tx.insert(userTable).values(users);
      await tx.insert(sessionTable).values(sessions);
    });
    opts.onProgress?.(fans.length);
  }
  return fans;
}
