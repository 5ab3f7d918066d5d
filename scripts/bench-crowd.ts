/**
 * `npm run bench:crowd`: what the on-sale simulator's crowd (scripts/lib/onsale-crowd.ts)
 * costs itself, on this machine — the crowd stands for the fans' browsers, and on one machine
 * every CPU-second it spends is taken from the servers under test.
 *
 *  - `--part http` (default): the crowd's CPU per HTTP request. A stand-in door — a bare
 *    node:http server in a process of its own, answering like lib/door/handler.ts (JSON bodies,
 *    a Set-Cookie queue ticket on a fan's first join, an admission cookie from /queue/me, a
 *    cacheable public status, `Server-Timing` on every answer) and refusing any fan request
 *    without both session cookies — is driven two ways:
 *      · "raw": SimClient requests alone (joins and /queue/me, each with a fan's ~1 kB of
 *        session cookies and its jar), as many at once as the door lane has sockets and more;
 *      · "crowd": the crowd's own code path — createCrowdSale's fanLife per fan (join, a retry for
 *        some, the poll wheel, /queue/me, the admitted hand-over as the crowd builds it).
 *    Reported: this process's CPU time (process.cpuUsage, user + system) per origin request.
 *    CPU time, not wall time, because the machine is shared with other benchmarks.
 *    (The crowd's kernel share is printed apart: mostly the socket writes, where loopback runs
 *    the receiver's TCP work inline.)
 *  - `--part fans`: createFanBook for --fans fans (100,000) on a scratch database of its own
 *    (stararena_crowdbench, created, migrated and dropped here; tables truncated each round):
 *    wall seconds, this process's CPU seconds and its Postgres backends' (from /proc), per
 *    100,000 fans.
 *
 * Flags: --part http|fans, --scenario raw|crowd|both (http), --requests N (raw, 60,000),
 * --fans N (crowd: 30,000; fans: 100,000), --door-connections N (64), --concurrency N (raw:
 * fans asking at once, 512), --rounds N (1).
 */
import { fork, type ChildProcess } from "node:child_process";
import { loadProjectEnv } from "./load-env";

loadProjectEnv();
const argv = process.argv.slice(2);
const str = (name: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const num = (name: string, fallback: number) => (str(name) === undefined ? fallback : Number(str(name)));
const part = str("part") ?? "http";
const rounds = num("rounds", 1);
const log = (s: string) => console.log(`[bench:crowd] ${s}`);

/** The stand-in door: plain JavaScript, run in a child process so its CPU is not counted as the crowd's. */
const DOOR_SOURCE = String.raw`
const http = require("node:http");
const EV = process.argv[2];
let next = 0;
const timing = () => "total;dur=" + (0.3 + Math.random()).toFixed(2) + ", session;dur=0.04, redis;dur=" + (0.1 + Math.random() / 2).toFixed(2);
const expires = () => new Date(Date.now() + 3600e3).toUTCString();
const pad = "x".repeat(120);
const has = (cookie, name) => cookie.includes(name + "=");
const server = http.createServer((req, res) => {
  const cookie = req.headers.cookie || "";
  const url = req.url;
  const answer = (status, body, headers) => {
    const text = JSON.stringify(body);
    res.writeHead(status, Object.assign({ "content-type": "application/json", "content-length": Buffer.byteLength(text), "server-timing": timing() }, headers));
    res.end(text);
  };
  if (req.method === "GET" && url === "/api/events/" + EV + "/queue") {
    return answer(200, { servingCounter: 1e9, queueLength: 0, active: 0, ratePerMinute: 600, activeCap: 100, pacedRate: null, paused: false, onSaleAt: 0, now: Date.now(), preQueueSize: 0, servingDraw: -1 }, { "cache-control": "public, max-age=1, s-maxage=1, stale-while-revalidate=2" });
  }
  // A fan's request: both session cookies, every time (the door's userFromCookieCache).
  if (!has(cookie, "better-auth.session_token") || !has(cookie, "better-auth.session_data")) return answer(401, { error: "sign in", code: "sign_in_required" });
  const status = (position, state) => ({ state, position, servingCounter: 0, queueLength: next, ratePerMinute: 600, paused: false, onSaleAt: 0, admittedUntil: state === "admitted" ? Date.now() + 60e3 : null, ahead: position, etaSeconds: 10, draw: null, preQueueSize: 0 });
  if (req.method === "POST" && url === "/api/events/" + EV + "/queue") {
    const ticket = /sa_queue_[^=]+=t(\d+)\./.exec(cookie);
    if (ticket) return answer(200, Object.assign(status(Number(ticket[1]), "waiting"), { admissionToken: null }), { "cache-control": "private, no-store" });
    const position = ++next;
    return answer(200, Object.assign(status(position, "waiting"), { admissionToken: null }), { "cache-control": "private, no-store", "set-cookie": "sa_queue_" + EV + "=t" + position + "." + pad + "; Path=/; Expires=" + expires() + "; HttpOnly; SameSite=Lax" });
  }
  if (req.method === "GET" && url === "/api/events/" + EV + "/queue/me") {
    const ticket = /sa_queue_[^=]+=t(\d+)\./.exec(cookie);
    if (!ticket) return answer(409, { error: "no ticket", code: "no_ticket" });
    const token = "adm." + ticket[1] + "." + pad;
    return answer(200, Object.assign(status(Number(ticket[1]), "admitted"), { admissionToken: token }), { "cache-control": "private, no-store", "set-cookie": "sa_admission_" + EV + "=" + token + "; Path=/; Expires=" + expires() + "; HttpOnly; SameSite=Lax" });
  }
  answer(404, { error: "not found", code: "not_found" });
});
server.keepAliveTimeout = 60e3;
server.listen(0, "127.0.0.1", () => process.send({ port: server.address().port }));
process.on("disconnect", () => process.exit(0));
`;

/** Starts the stand-in door; resolves with its URL and a stop function. */
async function startDoor(eventId: string): Promise<{ url: string; child: ChildProcess }> {
  const { writeFileSync, mkdtempSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const dir = mkdtempSync(`${tmpdir()}/bench-crowd-`);
  writeFileSync(`${dir}/door.cjs`, DOOR_SOURCE);
  const child = fork(`${dir}/door.cjs`, [eventId], { stdio: ["ignore", "inherit", "inherit", "ipc"], execArgv: [] });
  const port = await new Promise<number>((resolve) => child.once("message", (m: { port: number }) => resolve(m.port)));
  return { url: `http://127.0.0.1:${port}`, child };
}

/** CPU time (µs, user + system, and system alone) this process spent while `f` ran, and what `f` returned. */
async function cpuOf<T>(f: () => Promise<T>): Promise<{ cpuUs: number; systemUs: number; wallMs: number; value: T }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const value = await f();
  const c = process.cpuUsage(c0);
  return { cpuUs: c.user + c.system, systemUs: c.system, wallMs: performance.now() - t0, value };
}

if (part === "http") {
  const { SESSION_COOKIE, SESSION_DATA_COOKIE, signSessionData, signSessionToken } = await import("@/lib/auth/cookie-cache");
  const clientModule = await import("@/lib/simulator/client");
  const { FanJars, SimClient } = clientModule;
  const { createCrowdSale } = await import("@/lib/simulator/fans");
  const sessionsModule = await import("@/lib/simulator/sessions");
  const { FanBook } = sessionsModule;
  const eventId = "evt_benchcrowd";
  const door = await startDoor(eventId);
  const doorConnections = num("door-connections", 64);
  const maxFans = Math.max(num("fans", 30_000), 10_000);

  // Fans' session cookies as the crowd holds them (signed like sessions.ts, same sizes), in a FanBook.
  const secret = "bench-crowd-secret-0123456789abcdef0123456789abcdef";
  const book = new FanBook(maxFans);
  const now = Date.now();
  const at = new Date(now);
  for (let i = 0; i < maxFans; i++) {
    const id = `usr_simbench${i.toString(36)}`;
    const token = `tok${i.toString(36).padStart(8, "0")}xxxxxxxxxxxxxxxxxxxxx`;
    const u = { id, email: `sim-bench-${i}@onsale.stararena.test`, name: `Sim fan ${i}`, role: "fan", emailVerified: true, image: null, createdAt: at, updatedAt: at };
    const ses = { id: `ses_simbench${i.toString(36)}`, token, userId: id, expiresAt: new Date(now + 7 * 86_400_000), ipAddress: null, userAgent: "stararena-onsale", createdAt: at, updatedAt: at };
    book.add(i, id, signSessionToken(token, secret), signSessionData(ses, u, secret, { now, maxAgeSeconds: 1800 }));
  }
  // The crowd's glue (scripts/lib/onsale-crowd.ts): each fan's session cookies from the book.
  // (Whichever form this tree's FanBook offers: the bench runs against the code before and after.)
  const bookApi = book as unknown as { sessionCookies?: (i: number) => string; sessionRecord?: (i: number) => Record<string, string> };
  const recordOf = (i: number) => {
    const c = book.cookies(i);
    return { [SESSION_COOKIE]: c.sessionCookie, [SESSION_DATA_COOKIE]: c.sessionDataCookie };
  };
  // (Typed as the older tree's Record so the same file runs there: the string form exists only where sessionCookies does.)
  const sessionOf = (typeof bookApi.sessionCookies === "function" ? (i: number) => bookApi.sessionCookies!(i) : recordOf) as unknown as (i: number) => Record<string, string>;
  const sessionRecordOf = typeof bookApi.sessionRecord === "function" ? (i: number) => bookApi.sessionRecord!(i) : recordOf;
  const ipOf = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

  /** Raw: `n` requests through SimClient (a join, then /queue/me, per fan), `concurrency` fans at once. */
  async function raw(n: number, concurrency: number, fanBase: number) {
    const client = new SimClient([door.url], 96, 0.1, door.url, doorConnections);
    const jars = new FanJars();
    // Warm the sockets and the JIT outside the measurement.
    await Promise.all(Array.from({ length: doorConnections }, (_, k) => client.request(`/api/events/${eventId}/queue`, { method: "POST", jar: jars.get(k), session: sessionOf(k), endpoint: "warm", headers: { "x-forwarded-for": ipOf(k) } })));
    const before = client.requests;
    let next = 0;
    const r = await cpuOf(async () => {
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          // Per fan: its join (answered with a queue ticket), then /queue/me carrying the ticket.
          while (next < n / 2) {
            const i = fanBase + (next++ % (maxFans - fanBase));
            const headers = { "x-forwarded-for": ipOf(i) };
            await client.request(`/api/events/${eventId}/queue`, { method: "POST", jar: jars.get(i), session: sessionOf(i), instance: i, endpoint: "queue join", headers });
            await client.request(`/api/events/${eventId}/queue/me`, { jar: jars.get(i), session: sessionOf(i), instance: i, endpoint: "queue me", lane: "shop", headers });
          }
        }),
      );
    });
    const requests = client.requests - before;
    const errors = [...client.errors].filter(([k]) => !k.startsWith("warm"));
    client.close();
    return { ...r, requests, errors };
  }

  /** Crowd: `fans` fans' lives through createCrowdSale, launched like the crowd (a backlog of at most 4 × the door's sockets). */
  async function crowd(fans: number) {
    const client = new SimClient([door.url], 96, 0.1, door.url, doorConnections);
    const jars = new FanJars();
    let admitted = 0;
    let handedOver = 0;
    const sale = createCrowdSale({
      client,
      eventId,
      onSaleAt: Date.now() - 1_000,
      fanIds: book.ids,
      jars,
      sessionOf,
      ipOf,
      edges: 4,
      pollSeconds: 0.3,
      // What the crowd builds for the parent (the IPC send itself is left out).
      onAdmitted: (i, token) => {
        admitted++;
        const m = { type: "admitted", i, token, jar: [...jars.get(i)], session: sessionRecordOf(i) };
        handedOver += m.jar.length;
      },
    });
    const maxBacklog = 4 * doorConnections;
    const lives: Promise<void>[] = [];
    const r = await cpuOf(async () => {
      let next = 0;
      while (next < fans) {
        const t = Date.now();
        for (; next < fans && sale.joining < maxBacklog; next++) lives.push(sale.fanLife(next, t, next % 3 === 0 ? 1 : 0));
        await new Promise((res) => setTimeout(res, 5));
      }
      await Promise.all(lives);
    });
    sale.stop();
    const errors = [...client.errors];
    client.close();
    if (admitted !== fans || handedOver < fans) errors.push(["not all fans admitted", fans - admitted]);
    return { ...r, requests: client.requests, statusReads: sale.counters.statusReads, errors };
  }

  const requests = num("requests", 60_000);
  const fans = num("fans", 30_000);
  const scenario = str("scenario") ?? "both";
  for (let round = 0; round < rounds; round++) {
    if (scenario !== "crowd") {
      const a = await raw(requests, num("concurrency", 512), 0);
      log(`raw:   ${a.requests} requests, ${(a.cpuUs / a.requests).toFixed(1)} µs CPU per request, of which ${(a.systemUs / a.requests).toFixed(1)} in the kernel (${(a.requests / (a.wallMs / 1000)).toFixed(0)} req/s wall)${a.errors.length ? ` ERRORS ${JSON.stringify(a.errors)}` : ""}`);
    }
    if (scenario !== "raw") {
      const b = await crowd(fans);
      log(`crowd: ${fans} fans, ${b.requests} origin requests, ${b.statusReads} status reads, ${(b.cpuUs / b.requests).toFixed(1)} µs CPU per origin request, of which ${(b.systemUs / b.requests).toFixed(1)} in the kernel (${(b.cpuUs / fans).toFixed(1)} per fan, ${(b.wallMs / 1000).toFixed(1)} s wall)${b.errors.length ? ` ERRORS ${JSON.stringify(b.errors)}` : ""}`);
    }
  }
  door.child.kill();
} else if (part === "fans") {
  const n = num("fans", 100_000);
  const base = new URL(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/stararena");
  base.pathname = "/stararena_crowdbench";
  const url = base.toString();
  process.env.DATABASE_URL = url;
  process.env.DATABASE_POOL_MAX = "4"; // as the crowd's (scripts/onsale.ts)
  const { dropDatabase, ensureDatabase, runMigrations } = await import("@/lib/migrations");
  await dropDatabase(url);
  await ensureDatabase(url);
  await runMigrations(url);
  const { closeDb, db } = await import("@/lib/db");
  const { sql } = await import("drizzle-orm");
  const { createFanBook } = await import("@/lib/simulator/sessions");
  try {
    /**
     * CPU seconds so far of each Postgres backend serving this database (our pool's connections),
     * read from /proc (Postgres runs on this machine): the machine is shared, so wall time alone
     * says little, and Postgres's share of the work is most of it.
     */
    const backendCpu = async () => {
      const { processCpuSeconds } = await import("./lib/bench-server");
      const rows = (await db().execute(sql`select pid from pg_stat_activity where datname = current_database() and backend_type = 'client backend'`)) as unknown as { pid: number }[];
      const out = new Map<number, number>();
      for (const { pid } of rows) {
        try {
          out.set(pid, processCpuSeconds(pid));
        } catch {
          // not on this machine, or gone
        }
      }
      return out;
    };
    for (let round = 0; round < rounds; round++) {
      // Fresh tables each round, as in a run's new database (truncate gives new files and indexes).
      await db().execute(sql`truncate "session", "user" cascade`);
      await db().execute(sql`checkpoint`);
      const pg0 = await backendCpu();
      const r = await cpuOf(() => createFanBook(db(), n, { secret: "bench-crowd-secret-0123456789abcdef0123456789abcdef", runTag: `b${round}${Date.now().toString(36)}`, cookieCacheSeconds: 1800 }));
      const pg1 = await backendCpu();
      let pgCpu = 0;
      for (const [pid, s] of pg1) pgCpu += s - (pg0.get(pid) ?? 0);
      const per = 100_000 / n;
      log(`fans: ${n} fans in ${(r.wallMs / 1000).toFixed(2)} s wall; CPU ${(r.cpuUs / 1e6).toFixed(2)} s here + ${pgCpu.toFixed(2)} s in Postgres backends → per 100,000 fans: ${((r.wallMs / 1000) * per).toFixed(2)} s wall, ${((r.cpuUs / 1e6 + pgCpu) * per).toFixed(2)} CPU-s`);
    }
  } finally {
    await closeDb();
    await dropDatabase(url);
  }
} else throw new Error(`--part must be http or fans, got ${part}`);
