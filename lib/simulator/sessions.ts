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
import { SESSION_CACHE_SECONDS } from "@/lib/auth";
import { signSessionData, signSessionToken } from "@/lib/auth/cookie-cache";
import { sql, type Db } from "@/lib/db";

/** One simulated fan: ids and the signed session cookie value to send. */
export interface SimFan {
  index: number;
  id: string;
  /** Value of the `better-auth.session_token` cookie (already URL-encoded). */
  sessionCookie: string;
  /** Value of the `better-auth.session_data` cookie (base64url). */
  sessionDataCookie: string;
}

/** Fans per COPY batch: big enough that a million fans are a few hundred statements, small enough to report progress. */
const BATCH = 50_000;

/** A value in COPY's text format (tab-separated; backslash, tab and newline escaped; \N is NULL). */
const copyText = (v: string | null) => (v === null ? "\\N" : v.replace(/[\\\t\n\r]/g, (c) => (c === "\\" ? "\\\\" : c === "\t" ? "\\t" : c === "\n" ? "\\n" : "\\r")));

/** Streams `rows` into `table` with COPY FROM STDIN (one statement, no parameters). */
async function copyRows(table: string, columns: string[], rows: (string | null)[][]): Promise<void> {
  const stream = await sql()`copy ${sql()(table)} (${sql()(columns)}) from stdin`.writable();
  await new Promise<void>((resolve, reject) => {
    stream.on("error", reject);
    stream.on("finish", resolve);
    let chunk = "";
    for (const row of rows) {
      chunk += row.map(copyText).join("\t") + "\n";
      if (chunk.length > 1 << 20) {
        stream.write(chunk);
        chunk = "";
      }
    }
    stream.end(chunk);
  });
}

/**
 * Inserts `n` fans and one session each (valid for 7 days) with COPY, in batches: a million
 * fans take seconds, not the sale's length. `db` is the caller's database (the same pool).
 * @param opts.runTag distinguishes this run's emails and ids (letters and digits).
 * @param opts.onProgress called after each batch with the number created so far.
 * @returns the fans, each with its signed cookies (for a million fans, {@link createFanBook} keeps them compact).
 */
export async function createFansWithSessions(
  db: Db,
  n: number,
  opts: { secret: string; runTag: string; cookieCacheSeconds?: number; onProgress?: (done: number) => void },
): Promise<SimFan[]> {
  const fans: SimFan[] = [];
  await insertFans(db, n, opts, (index, id, sessionCookie, sessionDataCookie) => fans.push({ index, id, sessionCookie, sessionDataCookie }));
  return fans;
}

/**
 * A million fans' ids and signed session cookies, compact: the cookies (~0.9 kB a fan, set
 * once at sign-in and never changed by the run) live off the JavaScript heap in large
 * buffers, so a million of them neither fill the heap nor slow every garbage collection.
 */
export class FanBook {
  /** Fan ids by index. */
  readonly ids: string[] = [];
  private readonly chunks: Buffer[] = [];
  private used = 0;
  /** Per fan: chunk, offset and the two cookies' lengths. */
  private readonly where: { chunk: Uint16Array; offset: Uint32Array; tokenLength: Uint16Array; dataLength: Uint16Array };
  private static readonly CHUNK = 64 * 2 ** 20;

  constructor(readonly size: number) {
    this.where = { chunk: new Uint16Array(size), offset: new Uint32Array(size), tokenLength: new Uint16Array(size), dataLength: new Uint16Array(size) };
  }

  /** Records fan `index` (indexes 0…size-1, each once). Cookie values are ASCII. */
  add(index: number, id: string, sessionCookie: string, sessionDataCookie: string): void {
    const bytes = sessionCookie.length + sessionDataCookie.length;
    if (this.chunks.length === 0 || this.used + bytes > FanBook.CHUNK) {
      this.chunks.push(Buffer.allocUnsafe(FanBook.CHUNK));
      this.used = 0;
    }
    const chunk = this.chunks[this.chunks.length - 1]!;
    chunk.write(sessionCookie, this.used, "latin1");
    chunk.write(sessionDataCookie, this.used + sessionCookie.length, "latin1");
    this.where.chunk[index] = this.chunks.length - 1;
    this.where.offset[index] = this.used;
    this.where.tokenLength[index] = sessionCookie.length;
    this.where.dataLength[index] = sessionDataCookie.length;
    this.used += bytes;
    this.ids[index] = id;
  }

  /** Fan `index`'s cookies: `better-auth.session_token` and `better-auth.session_data` values. */
  cookies(index: number): { sessionCookie: string; sessionDataCookie: string } {
    const chunk = this.chunks[this.where.chunk[index]!]!;
    const at = this.where.offset[index]!;
    const mid = at + this.where.tokenLength[index]!;
    return { sessionCookie: chunk.toString("latin1", at, mid), sessionDataCookie: chunk.toString("latin1", mid, mid + this.where.dataLength[index]!) };
  }
}

/** {@link createFansWithSessions}, into a {@link FanBook}. */
export async function createFanBook(
  db: Db,
  n: number,
  opts: { secret: string; runTag: string; cookieCacheSeconds?: number; onProgress?: (done: number) => void },
): Promise<FanBook> {
  const book = new FanBook(n);
  await insertFans(db, n, opts, (index, id, sessionCookie, sessionDataCookie) => book.add(index, id, sessionCookie, sessionDataCookie));
  return book;
}

async function insertFans(
  db: Db,
  n: number,
  opts: { secret: string; runTag: string; cookieCacheSeconds?: number; onProgress?: (done: number) => void },
  onFan: (index: number, id: string, sessionCookie: string, sessionDataCookie: string) => void,
): Promise<void> {
  void db; // COPY goes through the raw client of the same pool (lib/db.ts `sql`)
  const expiresAt = new Date(Date.now() + 7 * 24 * 3_600_000);
  for (let start = 0; start < n; start += BATCH) {
    const users: (string | null)[][] = [];
    const sessions: (string | null)[][] = [];
    const now = new Date();
    const at = now.toISOString();
    for (let i = start; i < Math.min(n, start + BATCH); i++) {
      const id = `usr_sim${opts.runTag}${i.toString(36)}`;
      const token = randomBytes(24).toString("base64url");
      const u = { id, email: `sim-${opts.runTag}-${i}@onsale.stararena.test`, name: `Sim fan ${i}`, role: "fan" as const, emailVerified: true, image: null, createdAt: now, updatedAt: now };
      const ses = { id: `ses_sim${opts.runTag}${i.toString(36)}`, token, userId: id, expiresAt, ipAddress: null, userAgent: "stararena-onsale", createdAt: now, updatedAt: now };
      users.push([u.id, u.name, u.email, "t", null, u.role, at, at]);
      sessions.push([ses.id, expiresAt.toISOString(), token, null, ses.userAgent, id, at, at]);
      onFan(
        i,
        id,
        signSessionToken(token, opts.secret),
        signSessionData(ses, u, opts.secret, { now: now.getTime(), maxAgeSeconds: opts.cookieCacheSeconds ?? SESSION_CACHE_SECONDS }),
      );
    }
    await copyRows("user", ["id", "name", "email", "email_verified", "image", "role", "created_at", "updated_at"], users);
    await copyRows("session", ["id", "expires_at", "token", "ip_address", "user_agent", "user_id", "created_at", "updated_at"], sessions);
    opts.onProgress?.(Math.min(n, start + BATCH));
  }
}
