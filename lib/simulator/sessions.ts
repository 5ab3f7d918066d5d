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
import { SESSION_COOKIE, SESSION_DATA_COOKIE, signSessionData, signSessionToken } from "@/lib/auth/cookie-cache";
import type { Sql, TransactionSql } from "postgres";
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

/**
 * Fans per COPY batch: big enough that a million fans are a few dozen statements, small enough
 * that the session rows wait in memory for their users' COPY only briefly; 100,000 is a
 * multiple (the crowd logs progress every 100,000).
 */
const BATCH = 25_000;
/** Fans signed between two turns of the event loop, so the COPYs in flight keep streaming while the next batch is made. */
const SLICE = 1_000;

/** The columns written, in order (the rows below are built for exactly these). */
const USER_COLUMNS = ["id", "name", "email", "email_verified", "image", "role", "created_at", "updated_at"];
const SESSION_COLUMNS = ["id", "expires_at", "token", "ip_address", "user_agent", "user_id", "created_at", "updated_at"];

/**
 * COPY FROM STDIN of `text` (rows in COPY's text format) into `table`. With `skipTriggers`, in a
 * transaction under `session_replication_role = replica`, which fires no triggers — the session
 * rows' foreign-key check (a lookup and a row lock on `user` per session, half the COPY's time)
 * — for rows whose users the caller has just written.
 */
async function copyText(table: string, columns: string[], text: string[], skipTriggers: boolean): Promise<void> {
  const write = async (client: Sql | TransactionSql) => {
    const stream = await client`copy ${client(table)} (${client(columns)}) from stdin`.writable();
    await new Promise<void>((resolve, reject) => {
      stream.on("error", reject);
      stream.on("finish", resolve);
      for (const chunk of text) stream.write(chunk);
      stream.end();
    });
  };
  if (!skipTriggers) return write(sql());
  await sql().begin(async (tx) => {
    await tx`set local session_replication_role = replica`;
    await write(tx);
  });
}

/** Whether this connection's role may set `session_replication_role` (a superuser: a local or scratch Postgres). */
async function maySkipTriggers(): Promise<boolean> {
  const [row] = await sql()<{ on: string }[]>`select current_setting('is_superuser') as on`;
  return row?.on === "on";
}

/** How to create fans (see {@link createFansWithSessions}). */
export interface FanOptions {
  /** BETTER_AUTH_SECRET, which signs the cookies. */
  secret: string;
  /** Distinguishes this run's emails and ids: letters and digits only. */
  runTag: string;
  /** How long the session cookie cache is valid (s; lib/auth's SESSION_CACHE_SECONDS when omitted). */
  cookieCacheSeconds?: number;
  /** Called after each batch with the number created so far (in order). */
  onProgress?: (done: number) => void;
  /** Fans per COPY batch (25,000; tests use small ones). */
  batchSize?: number;
}

/**
 * Inserts `n` fans and one session each (valid for 7 days) with COPY, in batches: a million
 * fans take tens of seconds, not the sale's length. `db` is the caller's database (the same
 * pool). Fan `i`'s ids are `usr_sim<runTag><i>` and `ses_sim<runTag><i>` (i in base 36, zero-padded
 * to one width per call), its email `sim-<runTag>-<i>@onsale.stararena.test`.
 * @returns the fans, each with its signed cookies (for a million fans, {@link createFanBook} keeps them compact).
 * @throws when `runTag` is not letters and digits, or for the database's errors (a batch
 *   written before stays written).
 */
export async function createFansWithSessions(
  db: Db,
  n: number,
  opts: FanOptions,
): Promise<SimFan[]> {
  const fans: SimFan[] = [];
  await insertFans(db, n, opts, (index, id, sessionCookie, sessionDataCookie) => fans.push({ index, id, sessionCookie, sessionDataCookie }));
  return fans;
}

/**
 * A million fans' ids and signed session cookies, compact: the cookies (~0.9 kB a fan, set
 * once at sign-in and never changed by the run) live off the JavaScript heap in large
 * buffers, so a million of them neither fill the heap nor slow every garbage collection.
 * Each fan's are kept written as a Cookie header writes them
 * (`better-auth.session_token=…; better-auth.session_data=…`), so a request takes them in one
 * piece ({@link FanBook.sessionCookies}).
 */
export class FanBook {
  /** Fan ids by index. */
  readonly ids: string[] = [];
  private readonly chunks: Buffer[] = [];
  private used = 0;
  /** Per fan: chunk, offset of its cookie pairs and the two cookies' value lengths. */
  private readonly where: { chunk: Uint16Array; offset: Uint32Array; tokenLength: Uint16Array; dataLength: Uint16Array };
  private static readonly CHUNK = 64 * 2 ** 20;
  private static readonly TOKEN_PREFIX = `${SESSION_COOKIE}=`;
  private static readonly DATA_PREFIX = `; ${SESSION_DATA_COOKIE}=`;

  constructor(readonly size: number) {
    this.where = { chunk: new Uint16Array(size), offset: new Uint32Array(size), tokenLength: new Uint16Array(size), dataLength: new Uint16Array(size) };
  }

  /** Records fan `index` (indexes 0…size-1, each once). Cookie values are ASCII. */
  add(index: number, id: string, sessionCookie: string, sessionDataCookie: string): void {
    const pairs = `${FanBook.TOKEN_PREFIX}${sessionCookie}${FanBook.DATA_PREFIX}${sessionDataCookie}`;
    if (this.chunks.length === 0 || this.used + pairs.length > FanBook.CHUNK) {
      this.chunks.push(Buffer.allocUnsafe(FanBook.CHUNK));
      this.used = 0;
    }
    this.chunks[this.chunks.length - 1]!.write(pairs, this.used, "latin1");
    this.where.chunk[index] = this.chunks.length - 1;
    this.where.offset[index] = this.used;
    this.where.tokenLength[index] = sessionCookie.length;
    this.where.dataLength[index] = sessionDataCookie.length;
    this.used += pairs.length;
    this.ids[index] = id;
  }

  /** Fan `index`'s cookies: `better-auth.session_token` and `better-auth.session_data` values. */
  cookies(index: number): { sessionCookie: string; sessionDataCookie: string } {
    const chunk = this.chunks[this.where.chunk[index]!]!;
    const token = this.where.offset[index]! + FanBook.TOKEN_PREFIX.length;
    const data = token + this.where.tokenLength[index]! + FanBook.DATA_PREFIX.length;
    return { sessionCookie: chunk.toString("latin1", token, token + this.where.tokenLength[index]!), sessionDataCookie: chunk.toString("latin1", data, data + this.where.dataLength[index]!) };
  }

  /** Fan `index`'s cookies by name (`better-auth.session_token`, `better-auth.session_data`). */
  sessionRecord(index: number): Record<string, string> {
    const c = this.cookies(index);
    return { [SESSION_COOKIE]: c.sessionCookie, [SESSION_DATA_COOKIE]: c.sessionDataCookie };
  }

  /**
   * Fan `index`'s cookies as a Cookie header's pairs, `better-auth.session_token=…; better-auth.session_data=…`
   * (the same cookies, in the same order, as {@link FanBook.sessionRecord}): one string copied
   * out of the book, what a request sends (lib/simulator/client.ts `SessionCookies`).
   */
  sessionCookies(index: number): string {
    const at = this.where.offset[index]!;
    const length = FanBook.TOKEN_PREFIX.length + this.where.tokenLength[index]! + FanBook.DATA_PREFIX.length + this.where.dataLength[index]!;
    return this.chunks[this.where.chunk[index]!]!.toString("latin1", at, at + length);
  }
}

/** {@link createFansWithSessions}, into a {@link FanBook}. */
export async function createFanBook(
  db: Db,
  n: number,
  opts: FanOptions,
): Promise<FanBook> {
  const book = new FanBook(n);
  await insertFans(db, n, opts, (index, id, sessionCookie, sessionDataCookie) => book.add(index, id, sessionCookie, sessionDataCookie));
  return book;
}

/**
 * Writes fans `0…n-1` and their sessions, calling `onFan` with each fan's signed cookies.
 * Where the time went before (a million fans: ~130 s, `npm run bench:crowd -- --part fans`):
 * ~65 µs a fan of JavaScript (JSON.stringify of rows holding Dates, random bytes drawn one call
 * a fan), then ~30 CPU-s of Postgres (the session rows' foreign-key checks; index inserts at
 * random places — ids and emails numbered without padding, random tokens), one after the
 * other. Now the keys ascend (ids, emails and tokens begin with the fan's zero-padded number:
 * inserts append to the indexes), the dates are signed as the strings JSON makes of them, and
 * the work overlaps: a batch's users are written while the next batch is made, its sessions as
 * soon as those users are in.
 */
async function insertFans(
  db: Db,
  n: number,
  opts: FanOptions,
  onFan: (index: number, id: string, sessionCookie: string, sessionDataCookie: string) => void,
): Promise<void> {
  void db; // COPY goes through the raw client of the same pool (lib/db.ts `sql`)
  // The rows are written without COPY escaping: every value below is letters, digits and `-_.@: `.
  if (!/^[A-Za-z0-9]+$/.test(opts.runTag)) throw new Error(`runTag must be letters and digits, got ${JSON.stringify(opts.runTag)}`);
  const tag = opts.runTag;
  const expiresAt = new Date(Date.now() + 7 * 24 * 3_600_000).toISOString();
  const maxAgeSeconds = opts.cookieCacheSeconds ?? SESSION_CACHE_SECONDS;
  // Fixed widths, so that string order is number order (the database's collation is C or
  // treats these characters alike) and every insert lands at the end of its index.
  const idWidth = Math.max(1, (n - 1).toString(36).length);
  const emailWidth = Math.max(1, String(n - 1).length);
  const skipTriggers = n > 0 && (await maySkipTriggers());
  let users = Promise.resolve();
  let sessions = Promise.resolve();
  const batch = opts.batchSize ?? BATCH;
  if (!(batch >= 1)) throw new Error(`batchSize must be at least 1, got ${batch}`);
  for (let start = 0; start < n; start += batch) {
    const end = Math.min(n, start + batch);
    const now = new Date();
    const at = now.toISOString();
    // 24 random bytes a fan, drawn at once: a call per fan cost more than the bytes.
    const random = randomBytes(24 * (end - start));
    const userRows: string[] = [];
    const sessionRows: string[] = [];
    for (let from = start; from < end; from += SLICE) {
      let userText = "";
      let sessionText = "";
      for (let i = from; i < Math.min(end, from + SLICE); i++) {
        const key = i.toString(36).padStart(idWidth, "0");
        const id = `usr_sim${tag}${key}`;
        // 32 characters like before (better-auth's are 32 too): the fan's number, then ≥ 26 random base64url characters.
        const token = key + random.toString("base64url", 24 * (i - start), 24 * (i - start + 1)).slice(key.length);
        const email = `sim-${tag}-${String(i).padStart(emailWidth, "0")}@onsale.stararena.test`;
        const name = `Sim fan ${i}`;
        const sessionId = `ses_sim${tag}${key}`;
        userText += `${id}\t${name}\t${email}\tt\t\\N\tfan\t${at}\t${at}\n`;
        sessionText += `${sessionId}\t${expiresAt}\t${token}\t\\N\t${USER_AGENT}\t${id}\t${at}\t${at}\n`;
        // The rows as the app reads them, dates as the ISO strings JSON writes for Dates: the
        // same cookie, without JSON.stringify's slow path for objects with toJSON.
        const user = { id, email, name, role: "fan", emailVerified: true, image: null, createdAt: at, updatedAt: at };
        const session = { id: sessionId, token, userId: id, expiresAt, ipAddress: null, userAgent: USER_AGENT, createdAt: at, updatedAt: at };
        onFan(i, id, signSessionToken(token, opts.secret), signSessionData(session, user, opts.secret, { now: now.getTime(), maxAgeSeconds }));
      }
      userRows.push(userText);
      sessionRows.push(sessionText);
      // Let the COPYs in flight write what they have.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    // A batch's users follow the previous batch's; its sessions follow its users (their
    // foreign key) and the previous sessions. The next batch is made meanwhile, and waits only
    // when two batches' sessions are still pending.
    const previousSessions = sessions;
    users = users.then(() => copyText("user", USER_COLUMNS, userRows, skipTriggers));
    sessions = Promise.all([users, previousSessions]).then(async () => {
      await copyText("session", SESSION_COLUMNS, sessionRows, skipTriggers);
      opts.onProgress?.(end);
    });
    // (A failure is awaited below; until then it must not count as unhandled.)
    users.catch(() => {});
    sessions.catch(() => {});
    await previousSessions;
  }
  await users;
  await sessions;
}

/** The sessions' user agent. */
const USER_AGENT = "stararena-onsale";
