/**
 * `npm run bench:shop`: what one step of a fan's purchase costs the machine, step by step, in
 * CPU per request — the app process, Postgres (every backend) and Redis — on one production
 * server of this checkout (scripts/serve.ts) with the sandbox PSP, a 20,000-seat arena show and
 * N admitted fans. The on-sale simulation mixes every step under saturation (its report gives
 * the shop's CPU per sold seat, ±20 % from run to run); here each step runs alone, so a change
 * to one step is measured by itself, to a few per cent.
 *
 * Steps, in a fan's order (each fan once per step, `--concurrency` at a time):
 *  1. hold + checkout: POST /api/events/:id/holds?pay=1 (best available, 2 seats) — the hold and the
 *     PSP's checkout in one request, as 80 % of the simulator's fans do;
 *  2. hold refused: POST …/holds for 2 seats another fan holds (409 seat_taken);
 *  3. approve + webhook: the fan approves on the PSP's page (POST /sandbox-psp/api/checkouts/:id/approve);
 *     the PSP's dispatcher (in the app process, as in the simulator) sends the capture webhook and
 *     the app pays the order and issues its tickets — measured until every order is ticketed;
 *  4. return: GET /api/orders/:id?checkout=… (the fan back from the PSP's page);
 *  5. order status: GET /api/orders/:id;
 *  6. availability: GET /api/events/:id/availability (public; cached a second by any CDN).
 *
 * Flags: --orders N (1,000), --concurrency C (32), --rounds R (3: fresh shows; the first warms the
 * process up — it loads and compiles every module on first use — and is not counted; medians of the rest),
 * --next (Next's router serves the JSON routes: API_LANE=0, the reference for the API lane),
 * --unprepared (the server's statements are not prepared by name: DATABASE_POOLER=transaction, as behind PgBouncer).
 * CPU is read from /proc (10-ms ticks), so each step runs long enough to be resolved.
 */
import { readdirSync, readFileSync } from "node:fs";
import { cpus } from "node:os";
import { loadProjectEnv } from "./load-env";

loadProjectEnv();
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const ORDERS = arg("orders", 1_000);
const CONCURRENCY = arg("concurrency", 32);
const ROUNDS = arg("rounds", 3);
const VIA_NEXT = process.argv.includes("--next");
const UNPREPARED = process.argv.includes("--unprepared");
const PORT = 3220;
const log = (s: string) => console.log(`[bench:shop] ${s}`);

const base = new URL(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/stararena");
base.pathname = "/stararena_benchshop";
process.env.DATABASE_URL = base.toString();
process.env.REDIS_KEY_PREFIX = `benchshop:${Date.now().toString(36)}:`;
const { ensureRunSecrets } = await import("./lib/local-env");
ensureRunSecrets();
process.env.PAYMENT_PROVIDER = "sandbox";

const { buildIfNeeded, clearRenderedPages } = await import("./lib/build");
const { supervise } = await import("./lib/processes");
const { median, processCpuSeconds } = await import("./lib/bench-server");
const { dropDatabase, ensureDatabase, runMigrations } = await import("@/lib/migrations");
const { closeDb, db } = await import("@/lib/db");
const { closeRedis } = await import("@/lib/redis");
const { env } = await import("@/lib/env");
const { createSimulatedShow } = await import("@/lib/simulator/show");
const { createFansWithSessions } = await import("@/lib/simulator/sessions");
const { SESSION_COOKIE, SESSION_DATA_COOKIE } = await import("@/lib/auth/cookie-cache");

/** CPU seconds so far of each of this run's Postgres backends (their command line names the database), by pid. */
function postgresCpuByPid(): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (cmdline.startsWith("postgres: ") && cmdline.includes(" stararena_benchshop ")) byPid.set(Number(pid), processCpuSeconds(Number(pid)));
    } catch {
      // gone meanwhile
    }
  }
  return byPid;
}

/**
 * Postgres's CPU across a step (s): every backend's CPU is sampled every 100 ms, and each
 * counts from its value at the start (0 for a backend that connected during the step) to the
 * last value read. A sum of the live backends' totals at both ends would lose the work of a
 * backend that exited meanwhile (a pool closing an idle connection) and could even come out
 * negative (it did, once, for the order status step).
 */
function postgresCpuTracker(): { stop: () => number } {
  const first = postgresCpuByPid();
  const last = new Map(first);
  const sample = () => {
    for (const [pid, cpu] of postgresCpuByPid()) last.set(pid, cpu);
  };
  const timer = setInterval(sample, 100);
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      let total = 0;
      for (const [pid, cpu] of last) total += cpu - (first.get(pid) ?? 0);
      return total;
    },
  };
}

/** Runs `work(i)` for i in [0, n) with `concurrency` in flight. */
async function pool(n: number, concurrency: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(n, concurrency) }, async () => {
    while (next < n) await work(next++);
  }));
}

log(`preparing database stararena_benchshop…`);
await dropDatabase(base.toString());
await ensureDatabase(base.toString());
await runMigrations(base.toString());
buildIfNeeded(log);
clearRenderedPages();
const url = `http://127.0.0.1:${PORT}`;
const tree = supervise(
  // BENCH_SHOP_NODE_ARGS: node flags for the server, e.g. "--cpu-prof --cpu-prof-dir=DIR" to profile it.
  [{ name: "bench shop server", script: "scripts/serve.ts", args: ["-p", String(PORT), "-H", "127.0.0.1"], nodeArgs: (process.env.BENCH_SHOP_NODE_ARGS ?? "").split(" ").filter(Boolean), output: process.env.BENCH_SHOP_SERVER_LOG === "1" ? "stderr" : "ignore", env: { ...process.env, NODE_ENV: "production", APP_URL: url, PORT: String(PORT), TRUSTED_PROXY_HOPS: "1", API_LANE: VIA_NEXT ? "0" : "1", ...(UNPREPARED ? { DATABASE_POOLER: "transaction" } : {}) } as NodeJS.ProcessEnv }],
  { log, signals: true },
);
const appPid = () => tree.children.get("bench shop server")!.pid!;
for (let i = 0; ; i++) {
  if (await fetch(`${url}/api/health`).then((r) => r.ok, () => false)) break;
  if (i > 240) throw new Error("the server did not come up");
  await new Promise((r) => setTimeout(r, 500));
}
const redisPid = Number(readdirSync("/proc").find((d) => /^\d+$/.test(d) && (() => { try { return readFileSync(`/proc/${d}/comm`, "utf8").trim() === "redis-server" && readFileSync(`/proc/${d}/cmdline`, "utf8").includes(":6379"); } catch { return false; } })()));

type Step = "hold + checkout" | "hold refused" | "approve + webhook" | "return" | "order status" | "availability";
/** Statements this process ran during a step (its wait for tickets), taken off the step's count. */
let ownReads = 0;
/** False during the warm-up round. */
let counted = true;
const results = new Map<Step, { app: number[]; postgres: number[]; redis: number[]; statements: number[]; statuses: Map<number, number> }>();

const { sql: q } = await import("drizzle-orm");
/**
 * Postgres statements run in this database so far (pg_stat_statements, when the server loads it:
 * `shared_preload_libraries`), or null. A count, not a time: exact whatever else the machine does.
 */
async function statementsSoFar(): Promise<number | null> {
  try {
    await db().execute(q`create extension if not exists pg_stat_statements`);
    const [row] = (await db().execute(q`select coalesce(sum(calls), 0)::bigint as n from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())`)) as unknown as [{ n: string }];
    return Number(row.n);
  } catch {
    return null;
  }
}

/** Measures one step: CPU of the app, Postgres and Redis across `run`, per request. */
async function measure(step: Step, requests: number, run: (count: (status: number) => void) => Promise<void>): Promise<void> {
  const r = results.get(step) ?? { app: [], postgres: [], redis: [], statements: [], statuses: new Map<number, number>() };
  if (counted) results.set(step, r);
  const listing = process.env.BENCH_SHOP_STATEMENTS === "1" && counted;
  if (listing) await db().execute(q`select pg_stat_statements_reset()`).catch(() => undefined);
  const s0 = await statementsSoFar();
  const from = process.hrtime.bigint() / 1000n;
  const pg = postgresCpuTracker();
  const [a0, r0] = [processCpuSeconds(appPid()), redisPid ? processCpuSeconds(redisPid) : 0];
  await run((status) => r.statuses.set(status, (r.statuses.get(status) ?? 0) + 1));
  const [a1, pgSeconds, r1] = [processCpuSeconds(appPid()), pg.stop(), redisPid ? processCpuSeconds(redisPid) : 0];
  const s1 = await statementsSoFar();
  // The step's window on the monotonic clock (µs) a CPU profile of the server uses too, to read one step's samples.
  if (process.env.BENCH_SHOP_NODE_ARGS) log(`  ${step}: monotonic µs ${from}–${process.hrtime.bigint() / 1000n}`);
  // The two counting statements themselves (and the bench's own waiting reads) are not the step's.
  if (s0 !== null && s1 !== null) r.statements.push((s1 - s0 - 2 - ownReads) / requests);
  ownReads = 0;
  // BENCH_SHOP_STATEMENTS=1: the step's statements, most frequent first (calls per request), to see what a change would cut.
  if (listing) {
    const top = (await db().execute(q`select calls, regexp_replace(query, '[[:space:]]+', ' ', 'g') as query from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database()) order by calls desc limit 40`)) as unknown as { calls: string; query: string }[];
    for (const t of top) if (Number(t.calls) >= requests / 10) log(`    ${(Number(t.calls) / requests).toFixed(2)}  ${t.query.slice(0, 160)}`);
  }
  r.app.push(((a1 - a0) * 1e6) / requests);
  r.postgres.push((pgSeconds * 1e6) / requests);
  r.redis.push(((r1 - r0) * 1e6) / requests);
  log(`  ${step}: app ${Math.round(r.app.at(-1)!)} µs, Postgres ${Math.round(r.postgres.at(-1)!)} µs, Redis ${Math.round(r.redis.at(-1)!)} µs${r.statements.length ? `, ${r.statements.at(-1)!.toFixed(1)} statements` : ""} per request`);
}

try {
  for (let round = 1; round <= ROUNDS; round++) {
    counted = ROUNDS === 1 || round > 1;
    const runTag = `r${round}${Date.now().toString(36)}`;
    log(`round ${round}/${ROUNDS}: a 20,000-seat show, ${ORDERS.toLocaleString("en")} fans…`);
    const show = await createSimulatedShow(db(), { capacity: 20_000, holdMinutes: 15, rate: 1_000_000, cap: 1_000_000, onSaleInMs: 2_000, runTag });
    const fans = await createFansWithSessions(db(), ORDERS, { secret: env().BETTER_AUTH_SECRET, runTag });
    const cookie = (i: number) => `${SESSION_COOKIE}=${fans[i]!.sessionCookie}; ${SESSION_DATA_COOKIE}=${fans[i]!.sessionDataCookie}`;
    const ip = (i: number) => `10.${round}.${(i >> 8) & 255}.${i & 255}`;
    const headers = (i: number, extra: Record<string, string> = {}) => ({ cookie: cookie(i), origin: url, "x-forwarded-for": ip(i), "content-type": "application/json", ...extra });
    await new Promise((r) => setTimeout(r, Math.max(0, show.onSaleAt - Date.now() + 100)));
    // Every fan joins and takes its turn (not measured): the door's work is bench:queue's.
    const tokens: string[] = [];
    await pool(ORDERS, CONCURRENCY, async (i) => {
      await fetch(`${url}/api/events/${show.eventId}/queue`, { method: "POST", headers: headers(i) });
      // Admission advances with time (the rate is a million a minute): ask until the turn has come.
      for (let k = 0; ; k++) {
        const me = (await (await fetch(`${url}/api/events/${show.eventId}/queue/me`, { headers: headers(i) })).json()) as { admissionToken?: string };
        if (me.admissionToken) {
          tokens[i] = me.admissionToken;
          break;
        }
        if (k > 100) throw new Error(`fan ${i} was not admitted: ${JSON.stringify(me)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    });
    const orders: { orderId: string; checkoutId: string; ordinals: number[] }[] = [];
    await measure("hold + checkout", ORDERS, (count) =>
      pool(ORDERS, CONCURRENCY, async (i) => {
        const res = await fetch(`${url}/api/events/${show.eventId}/holds?pay=1`, { method: "POST", headers: headers(i, { authorization: `Bearer ${tokens[i]}` }), body: JSON.stringify({ kind: "best", priceLevelId: show.levels[i % show.levels.length]!.id, quantity: 2 }) });
        count(res.status);
        const body = (await res.json()) as { orderId: string; checkoutUrl?: string; seats: { ordinal: number }[] };
        if (res.status !== 201 || !body.checkoutUrl) throw new Error(`hold failed: ${res.status} ${JSON.stringify(body)}`);
        orders[i] = { orderId: body.orderId, checkoutId: /sbx_cs_[0-9a-z]+/.exec(body.checkoutUrl)![0], ordinals: body.seats.map((s) => s.ordinal) };
      }),
    );
    await measure("hold refused", ORDERS, (count) =>
      pool(ORDERS, CONCURRENCY, async (i) => {
        const taken = orders[(i + 1) % ORDERS]!.ordinals;
        const res = await fetch(`${url}/api/events/${show.eventId}/holds`, { method: "POST", headers: headers(i, { authorization: `Bearer ${tokens[i]}` }), body: JSON.stringify({ kind: "seats", ordinals: taken }) });
        count(res.status);
        await res.arrayBuffer();
      }),
    );
    await measure("approve + webhook", ORDERS, async (count) => {
      await pool(ORDERS, CONCURRENCY, async (i) => {
        const res = await fetch(`${url}/sandbox-psp/api/checkouts/${orders[i]!.checkoutId}/approve`, { method: "POST", headers: { "content-type": "application/json" } });
        count(res.status);
        await res.arrayBuffer();
      });
      // Until the PSP's webhooks have paid every order and its tickets exist (the dispatcher runs in the app).
      for (let k = 0; ; k++) {
        ownReads++;
        const [{ n }] = (await db().execute(q`select count(*)::int as n from orders where event_id = ${show.eventId} and status = 'ticketed'`)) as unknown as [{ n: number }];
        if (n >= ORDERS) break;
        if (k > 600) {
          const stuck = (await db().execute(q`select o.id, o.status, (select json_agg(json_build_object('status', p.status, 'checkout', p.checkout_session_id)) from payments p where p.order_id = o.id) as payments from orders o where o.event_id = ${show.eventId} and o.status <> 'ticketed' limit 5`)) as unknown as unknown[];
          throw new Error(`only ${n} of ${ORDERS} orders ticketed after 60 s: ${JSON.stringify(stuck)}`);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    });
    await measure("return", ORDERS, (count) =>
      pool(ORDERS, CONCURRENCY, async (i) => {
        const res = await fetch(`${url}/api/orders/${orders[i]!.orderId}?checkout=${orders[i]!.checkoutId}`, { headers: headers(i) });
        count(res.status);
        await res.arrayBuffer();
      }),
    );
    await measure("order status", ORDERS, (count) =>
      pool(ORDERS, CONCURRENCY, async (i) => {
        const res = await fetch(`${url}/api/orders/${orders[i]!.orderId}`, { headers: headers(i) });
        count(res.status);
        await res.arrayBuffer();
      }),
    );
    await measure("availability", ORDERS, (count) =>
      pool(ORDERS, CONCURRENCY, async (i) => {
        const res = await fetch(`${url}/api/events/${show.eventId}/availability`, { headers: { "x-forwarded-for": ip(i) } });
        count(res.status);
        await res.arrayBuffer();
      }),
    );
  }

  console.log(`\nMachine: ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, Node ${process.version}; one app process (${VIA_NEXT ? "JSON routes through Next's router, API_LANE=0" : "the API lane"}${UNPREPARED ? ", statements not prepared by name" : ""}), Postgres and Redis on the same machine; the load generator is this process.`);
  console.log(`${ORDERS.toLocaleString("en")} fans × ${ROUNDS} round(s)${ROUNDS > 1 ? " (the first a warm-up)" : ""}, ${CONCURRENCY} requests in flight; CPU per request, median of the counted rounds (µs):\n`);
  console.log("| step | answers | app | Postgres | Redis | all three | Postgres statements per request |");
  console.log("|---|---|---|---|---|---|---|");
  let perOrder = 0;
  for (const [step, r] of results) {
    const [a, p, rd] = [median(r.app), median(r.postgres), median(r.redis)];
    perOrder += a + p + rd;
    console.log(`| ${step} | ${[...r.statuses].map(([s, n]) => `${s}×${n}`).join(" ")} | ${Math.round(a)} | ${Math.round(p)} | ${Math.round(rd)} | ${Math.round(a + p + rd)} | ${r.statements.length ? median(r.statements).toFixed(1) : "–"} |`);
  }
  console.log(`\nOne pass through every step (one of each request): ${(perOrder / 1000).toFixed(1)} ms of CPU.`);
} finally {
  await tree.stop();
  await closeDb();
  await closeRedis();
  await dropDatabase(base.toString()).catch(() => {});
}
process.exit(0);
