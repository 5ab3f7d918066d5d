/**
 * `npm run onsale`: an on-sale simulation against a running StarArena over HTTP — many
 * concurrent fans join the waiting room (a pre-queue before the on-sale, then a burst
 * with retries), poll the cacheable public status through a simulated CDN, take their
 * turn (/queue/me → admission token), hold 1–4 seats (best available or map picks
 * concentrated on the best seats), and pay through the sandbox PSP with a mix of faults
 * (abandon, decline, slow approval, webhooks duplicated / dropped / delayed past the
 * hold's expiry, a capture after the hold expired whose webhook is lost — only the PSP's
 * ledger shows it — capture webhooks forged with a wrong secret, short captures, and capture
 * webhooks forged but signed with the deployment's own secret). It runs until sold
 * out or the time limit, waits for the sweeps and the ledger reconciliation to converge,
 * then runs the invariant checker (lib/reconciliation/invariants.ts) against Postgres,
 * Redis and the sandbox PSP's own records, checks every short capture was refunded in full
 * and no signed forgery was paid (lib/simulator/psp-faults.ts), and checks queue fairness. Exit code 1 when
 * any count is not zero.
 *
 * Without --url it prepares its own database `stararena_onsale` (dropped afterwards
 * unless --keep), Redis prefix `onsale:`, and starts --instances copies of scripts/serve.ts
 * (ports from --port) plus the local worker (scripts/worker.ts). `--help` lists the flags.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { cpus, totalmem } from "node:os";
import { loadProjectEnv } from "./load-env";
import type { TimelinePoint } from "@/lib/simulator/report";

loadProjectEnv();

// ---------- flags ----------
const USAGE = `npm run onsale -- [flags]
  --fans N            simulated fans (100000; --small: 5000)
  --capacity N        seats (20000; --small: 500; under 5000 a small hall)
  --small             the CI variant: 500 seats, 5,000 fans, shorter phases
  --hold-minutes N    hold time of the simulated show (1), so abandoned holds return within the run
  --rate N --cap N    admission rate (fans/min, 4800) and active cap (1500)
  --pacing-ms N       admission pacing (ADR 0015): the run's worker keeps the hold path's p99 near N ms by lowering the admission
                      rate, from 300 fans/min at the on-sale (0 = off; default 60 on the simulator's own server, else --small
                      and --url take the environment's ADMISSION_PACING_HOLD_P99_MS)
  --time-limit S      seconds of sale after the on-sale before stopping (0 = until the --budget says; --small: 240)
  --budget S          the whole run's time bound, fans created to report written as the reference case counts it (870, inside its
                      15 minutes; 0 = none; the build and the servers' start come before): the sale stops early enough to leave
                      room for the holds to run out, the sweeps to converge and the checks
  --pre-seconds S     pre-queue window before the on-sale (45)   --pre-share F  share of fans arriving in it (0.2; --small: 0.5)
  --first-share F     share of all fans clicking in the first 10 s after the on-sale (0.3, the seed's 300,000 of 1,000,000)
  --burst-seconds S   window of the burst after the on-sale (60)  --poll-seconds S  fans' status poll interval (3)   --retries N  joins each fan of the first 10 s sends again after the first answer (2)
  --connections N     sockets per app instance (96)   --door-share F  of them for joins (0.1)   --edges N  CDN edges (4)
  --abandon --decline --slow --duplicate --drop --late-webhook --late-capture --forged --short-capture --forged-signed F   fault shares of holds
                      (late-capture: paid after the hold expired, webhook lost; forged: a capture webhook signed with a wrong secret;
                      short-capture: the PSP takes 1.50 less, which must be refunded in full; forged-signed: a capture webhook for the
                      fan's open checkout with a made-up payment id, signed with the deployment's own secret, which must issue nothing)
  --outage            kill the app's (private, durable) Redis, then cut its Postgres, each for --outage-seconds (8)
                      mid-sale; a probe checks every answer is a fast 503 with a body and that all recovers by itself
  --outage-seconds S  how long each outage lasts (8)
  --inject KIND       break a rule on purpose after the sale (ticket-without-payment | redis-mismatch | psp-capture-without-tickets): the run must fail
  --json FILE         write the report (and FILE.html, the chart)
  --url URL           drive an already running StarArena instead of starting one (its env must match)
  --real-cdn          a caching proxy is in front of --url (npm run stack's nginx): status reads go to it, no simulated CDN
  --port N (3300) --instances N (2) --build auto|always|never --keep (keep the database)
  --door-connections N sockets to the standalone door (64; the --connections are then all the shop's)
  --door-p99-ms N      the bound on the door's server-side join p99 (100): over it, the run fails
  --door-nice N       the standalone door's CPU niceness (10: in a flood it yields to the shop on one machine; --small: 0)
  --door-port N (3390) the standalone door (scripts/door.ts) serving the waiting room's paths   --no-door  Next serves them
Env ONSALE_APP_NODE_ARGS, ONSALE_DOOR_NODE_ARGS, ONSALE_CROWD_NODE_ARGS, ONSALE_WORKER_NODE_ARGS: node flags for the app instances, the door, the crowd process, the worker (e.g. "--cpu-prof --cpu-prof-dir=DIR").`;
const argv = process.argv.slice(2);
const KNOWN = new Set(USAGE.match(/--[a-z0-9-]+/g));
const unknown = argv.filter((a) => a.startsWith("--") && !KNOWN.has(a) && a !== "--help");
if (argv.includes("--help") || unknown.length > 0) {
  if (unknown.length > 0) console.error(`Unknown flag${unknown.length > 1 ? "s" : ""}: ${unknown.join(" ")}\n`);
  console.log(USAGE);
  process.exit(unknown.length > 0 ? 2 : 0);
}
const has = (name: string) => argv.includes(`--${name}`);
const str = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const num = (name: string, fallback: number) => {
  const v = str(name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new Error(`--${name} must be a number, got ${v}`);
  return n;
};
const small = has("small");
/** The hold p99 (ms) a full-size run on its own server paces admission to unless --pacing-ms says otherwise. */
const DEFAULT_PACING_MS = 60;
const cfg = {
  fans: num("fans", small ? 5_000 : 100_000),
  capacity: num("capacity", small ? 500 : 20_000),
  holdMinutes: num("hold-minutes", 1),
  rate: num("rate", small ? 1_500 : 4_800),
  cap: num("cap", small ? 300 : 1_500),
  timeLimit: num("time-limit", small ? 240 : 0),
  budget: num("budget", small ? 0 : 870),
  preSeconds: num("pre-seconds", small ? 8 : 45),
  preShare: num("pre-share", small ? 0.5 : 0.2),
  firstShare: num("first-share", 0.3),
  burstSeconds: num("burst-seconds", small ? 10 : 60),
  connections: num("connections", small ? 48 : 96),
  doorShare: num("door-share", 0.1),
  edges: num("edges", 4),
  port: num("port", 3300),
  instances: num("instances", 2),
  pollSeconds: num("poll-seconds", 3),
  retries: num("retries", 2),
  faults: {
    abandon: num("abandon", 0.05),
    decline: num("decline", 0.04),
    slow: num("slow", 0.04),
    duplicate: num("duplicate", 0.05),
    drop: num("drop", 0.04),
    lateWebhook: num("late-webhook", 0.03),
    lateCapture: num("late-capture", 0.02),
    forged: num("forged", 0.02),
    shortCapture: num("short-capture", 0.02),
    forgedSigned: num("forged-signed", 0.02),
  },
  json: str("json"),
  inject: str("inject"),
  url: str("url"),
  build: (str("build") ?? "auto") as "auto" | "always" | "never",
  keep: has("keep"),
  outage: has("outage"),
  outageSeconds: num("outage-seconds", 8),
  doorPort: num("door-port", 3390),
  doorP99Ms: num("door-p99-ms", 100),
  doorConnections: num("door-connections", 64),
  // In a flood the door yields to the shop on one machine; without one it runs as on cores of its own (scripts/lib/onsale-server.ts doorNice).
  doorNice: num("door-nice", small ? 0 : 10),
  noDoor: has("no-door"),
  realCdn: has("real-cdn"),
  // Paced by default on the simulator's own server at full size (ADR 0015, revisited 2026-12-06); --small and --url take the environment's.
  pacingMs: str("pacing-ms") === undefined ? (small || str("url") ? undefined : DEFAULT_PACING_MS) : num("pacing-ms", 0),
};
if (!Number.isInteger(cfg.doorNice) || cfg.doorNice < 0 || cfg.doorNice > 19) throw new Error(`--door-nice must be a whole number from 0 to 19 (nice -n), got ${cfg.doorNice}`);
// The worker this run starts reads it from the environment (lib/env.ts).
if (cfg.pacingMs !== undefined) process.env.ADMISSION_PACING_HOLD_P99_MS = String(cfg.pacingMs);
const log = (s: string) => console.log(`[onsale ${new Date().toISOString().slice(11, 19)}] ${s}`);
/**
 * The crowd's CPU niceness: the simulated million fans are not the system under test, and on
 * one machine they yield to it (the app, the worker, Postgres and Redis at 0, the door at 10 in a
 * flood: --door-nice, scripts/lib/onsale-server.ts), as fans' browsers do not share the servers' cores.
 */
const CROWD_NICE = 15;
/**
 * How often the run's worker reconciles, the PSP's ledger included (ms): a capture whose
 * webhook was lost is found by the next pass, so the end of the run waits at most this long.
 */
const RECONCILE_EVERY_MS = Number(process.env.ONSALE_RECONCILE_EVERY_MS ?? 10_000);
if (!(RECONCILE_EVERY_MS > 0)) throw new Error(`ONSALE_RECONCILE_EVERY_MS must be a positive number of ms, got ${process.env.ONSALE_RECONCILE_EVERY_MS}`);


// Own database and Redis prefix unless --url points at a running server (then the environment must match it).
if (!cfg.url) {
  const base = new URL(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/stararena");
  base.pathname = "/stararena_onsale";
  process.env.DATABASE_URL = base.toString();
  process.env.REDIS_KEY_PREFIX = "onsale:";
  process.env.DATABASE_POOL_MAX ??= "4"; // the simulator's own look at the database (setup, the monitor, the checks)
  // This run's own secrets (random, in memory): the app instances, the worker and the
  // simulator's signed session cookies share them. The sandbox PSP is the run's provider.
  const { ensureRunSecrets } = await import("./lib/local-env");
  ensureRunSecrets();
  process.env.PAYMENT_PROVIDER = "sandbox";
}
const baseUrls = cfg.url ? [cfg.url] : Array.from({ length: Math.max(1, cfg.instances) }, (_, k) => `http://127.0.0.1:${cfg.port + k}`);
const baseUrl = baseUrls[0]!;
process.env.APP_URL ??= baseUrl;

const { sql } = await import("drizzle-orm");
const { closeDb, db } = await import("@/lib/db");
const { closeRedis } = await import("@/lib/redis");
const { checkInvariants, redisMismatchSet } = await import("@/lib/reconciliation/invariants");
const { FanJars, SimClient } = await import("@/lib/simulator/client");
const { waitForConvergence } = await import("@/lib/simulator/converge");
const { createSale } = await import("@/lib/simulator/fans");
const { createSimulatedShow } = await import("@/lib/simulator/show");
const R = await import("@/lib/simulator/report");
const { deleteKeys } = await import("@/lib/redis-keys");
const { rateInForce } = await import("@/lib/waiting-room/rate");
const { dropDatabase } = await import("@/lib/migrations");
const { prepareOwnServer, stopChildren } = await import("./lib/onsale-server");

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Gives the planner its statistics before the on-sale, as a production database has them:
 * there the show was set up days ahead and autovacuum analyzed it. This machine's Postgres
 * runs with `autovacuum = off`, and a never-analyzed `seats` made the order view scan every
 * seat per request (BENCHMARKS.md, "Where an on-sale's CPU goes"). Warns when autovacuum is
 * off: an operator's database must not run so.
 */
async function analyzeLikeAutovacuum(): Promise<void> {
  const [{ autovacuum }] = (await db().execute(sql`show autovacuum`)) as unknown as [{ autovacuum: string }];
  const t = Date.now();
  await db().execute(sql`analyze`);
  log(`analyzed the database in ${Date.now() - t} ms${autovacuum === "on" ? "" : " — this Postgres runs with autovacuum off: the sale's new rows are never analyzed (production needs autovacuum on)"}`);
}

// ---------- setup ----------
const tStart = Date.now();
// Peak resident memory and CPU time of every process of the run (app instances, door, worker, Redis, Postgres, this simulator).
const usage = await import("./lib/process-usage");
const memory = usage.watchProcesses();
if (cfg.outage && cfg.url) throw new Error("--outage needs the simulator's own server (no --url): it breaks that server's dependencies");
const doorUrl = cfg.url || cfg.noDoor ? undefined : `http://127.0.0.1:${cfg.doorPort}`;
const deps = cfg.url ? undefined : await prepareOwnServer({ baseUrls, port: cfg.port, build: cfg.build, reconcileEveryMs: RECONCILE_EVERY_MS, log, outage: cfg.outage, doorUrl, doorNice: cfg.doorNice });
const runTag = Date.now().toString(36);

// The crowd (scripts/lib/onsale-crowd.ts, lib/simulator/crowd.ts): the fans from arrival to
// their turn, in a process of their own at a lower CPU priority, as the door's flood would
// be on machines of its own. It creates the fans (COPY, signed cookies) and hands over each
// admitted fan; this process shops for them, watches, and checks.
const { startProcess } = await import("./lib/processes");
const { mergeCrowdStats, sumCounters } = await import("@/lib/simulator/crowd");
const { arrivalShares } = await import("@/lib/simulator/arrivals");
type CrowdEvent = import("@/lib/simulator/crowd").CrowdEvent;
type CrowdProgress = import("@/lib/simulator/crowd").CrowdProgress;
// ONSALE_CROWD_NODE_ARGS: node flags for the crowd only (e.g. "--cpu-prof --cpu-prof-dir=DIR").
const crowd = startProcess({ name: "crowd", script: "scripts/lib/onsale-crowd.ts", nice: CROWD_NICE, nodeArgs: ["--max-old-space-size=16384", "--max-semi-space-size=64", ...(process.env.ONSALE_CROWD_NODE_ARGS ?? "").split(" ").filter(Boolean)] });
const crowdSend = (m: import("@/lib/simulator/crowd").CrowdCommand) => crowd.send(m);
let crowdProgress: CrowdProgress | undefined;
let crowdResult: Extract<CrowdEvent, { type: "result" }> | undefined;
const crowdWaiters: { type: CrowdEvent["type"]; resolve: (m: CrowdEvent) => void }[] = [];
const crowdNext = <T extends CrowdEvent["type"]>(type: T) => new Promise<Extract<CrowdEvent, { type: T }>>((resolve) => crowdWaiters.push({ type, resolve: resolve as (m: CrowdEvent) => void }));
let crowdFailed: string | undefined;
crowd.on("exit", (code) => {
  // (Messages still on the channel are delivered after the exit is seen: give them a moment.)
  setTimeout(() => {
    if (crowdResult) return;
    crowdFailed ??= `the crowd process exited (${code}) before its result`;
    console.error(crowdFailed);
    process.exit(1);
  }, 3_000);
});

const client = new SimClient(baseUrls, cfg.connections, cfg.doorShare, doorUrl, cfg.doorConnections);
client.realCdn = cfg.realCdn;
client.onDependencyDown = (down) => crowdSend({ type: "dependency-down", down });
const ipOf = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
// Admitted fans arrive from the crowd with their session cookies and what the app set in their browser.
const sessions = new Map<number, Record<string, string>>();
const sessionOf = (i: number) => sessions.get(i) ?? {};
const jars = new FanJars();
const lives: Promise<void>[] = [];
crowd.on("message", (m: CrowdEvent) => {
  if (m.type === "log") log(m.line);
  else if (m.type === "progress") crowdProgress = m.progress;
  else if (m.type === "admitted") {
    sessions.set(m.i, m.session);
    const jar = jars.get(m.i);
    for (const [k, v] of m.jar) jar.set(k, v);
    // (Only after "start", so `sale` exists.)
    lives.push(sale.shopFor(m.i, m.token).catch((e: unknown) => client.countError(`fan crash:${e instanceof Error ? e.message : String(e)}`)));
  } else if (m.type === "result") {
    crowdResult = m;
    crowdProgress = m.progress;
  } else if (m.type === "failed") {
    crowdFailed = m.error;
    console.error(`the crowd failed: ${m.error}`);
  }
  for (let k = crowdWaiters.length - 1; k >= 0; k--) if (crowdWaiters[k]!.type === m.type) crowdWaiters.splice(k, 1)[0]!.resolve(m);
});
const created = crowdNext("created");
/** The reference case's clock starts here: "the whole run (fans created to report written) within 15 minutes" (issue 15). */
const tFans = Date.now();
crowdSend({ type: "create", setup: { fans: cfg.fans, probeFan: cfg.outage, runTag, baseUrls, doorUrl, connections: cfg.connections, doorShare: cfg.doorShare, doorConnections: cfg.doorConnections, edges: cfg.edges, pollSeconds: cfg.pollSeconds, realCdn: cfg.realCdn } });
const createdFans = await created;
log(`session cookies accepted: /api/auth/get-session → ${createdFans.firstFanId}`);
// With --outage, one more fan, created by the crowd beside the others: the probe fan, who never queues.
const probeJar = cfg.outage ? new Map(Object.entries(createdFans.probeSession ?? {})) : undefined;


const show = await createSimulatedShow(db(), { capacity: cfg.capacity, holdMinutes: cfg.holdMinutes, rate: cfg.rate, cap: cfg.cap, onSaleInMs: cfg.preSeconds * 1000 + 3_000, runTag });
const { eventId, onSaleAt, capacity } = show;
await analyzeLikeAutovacuum();
log(`show ${eventId}: ${capacity.toLocaleString("en")} seats in ${show.levels.length} price levels; on-sale in ${Math.round((onSaleAt - Date.now()) / 1000)} s; admission ${cfg.rate}/min, cap ${cfg.cap}${Number(process.env.ADMISSION_PACING_HOLD_P99_MS ?? 0) > 0 ? ` (paced to a hold p99 of ${process.env.ADMISSION_PACING_HOLD_P99_MS} ms)` : ""}, holds ${cfg.holdMinutes} min`);

// ---------- the sale ----------
const sale = createSale({ client, eventId, onSaleAt, levels: show.levels, ordinalsByLevel: show.ordinalsByLevel, fanIds: [], jars, sessionOf, ipOf, faults: cfg.faults, edges: cfg.edges, pollSeconds: cfg.pollSeconds });
const { fates } = sale;
/** Both sides' counters: the crowd's (joins, waiting, admissions) and this process's (shopping). */
const counters = () => sumCounters(sale.counters, crowdProgress?.counters);
let stopped = false;
/** Sold out: the shop's fans stopped, the crowd told (it keeps asking the door for first answers). */
let shopClosed = false;
/** Fans the door has not answered yet: arrived and not sent, sent and not answered, not arrived yet. */
const owedAnswers = () => (crowdProgress ? crowdProgress.arrivedNotLaunched + crowdProgress.joining + crowdProgress.yetToArrive : 0);
let lastPublic = { servingCounter: 0, queueLength: 0, active: 0, activeCap: cfg.cap, ratePerMinute: cfg.rate, pacedRate: null as number | null };

let sold = 0;
let heldNow = 0;
let soldOutAt: number | null = null;

// Arrivals shaped like the seed's case (lib/simulator/arrivals.ts): the crowd walks them.
const { nPre, nFirst, nLater, firstMs: FIRST_MS } = arrivalShares(cfg.fans, cfg);
const t0Pre = Date.now();
crowdSend({ type: "start", start: { eventId, onSaleAt, preFrom: t0Pre, preShare: cfg.preShare, firstShare: cfg.firstShare, burstSeconds: cfg.burstSeconds, retries: cfg.retries } });
log(
  `phase pre-queue: ${nPre.toLocaleString("en")} fans arrive before the on-sale, ${nFirst.toLocaleString("en")} in its first ${FIRST_MS / 1000} s (each sending its join ${cfg.retries} more times), ` +
    `${nLater.toLocaleString("en")} over the rest of a ${cfg.burstSeconds}-s burst`,
);

// Monitor: timeline every second, progress every 5 s, stop on sold out or the time limit.
const timeline: TimelinePoint[] = [];
let lastReq = 0;
let lastReqAt = Date.now();
let tick = 0;
// Time the end needs at worst: fans finishing their requests (≤ 10 s), every hold running out
// and the sweeps converging (hold time + 20 s), the checks and the report (~10 s). (At a sell-out
// nothing is held any more, so the end takes seconds.)
const endAllowanceMs = (10 + cfg.holdMinutes * 60 + 20 + RECONCILE_EVERY_MS / 1000 + 10) * 1000;
const budgetAt = cfg.budget > 0 ? tFans + cfg.budget * 1000 - endAllowanceMs : Infinity;
// CPU by process during the sale (from the on-sale to the stop): what the shop spent per sold seat.
let cpuAtOnSale: import("./lib/process-usage").CpuSeconds | null = null;
setTimeout(() => void memory.sample().then(() => (cpuAtOnSale = memory.cpu())), Math.max(0, onSaleAt - Date.now())).unref();
/**
 * The last call: seats free when the sale should stop (a hold that had just run out, swept back
 * or not yet) are offered to the fans still shopping for up to this long — they see them within
 * seconds (the availability's 1-s cache, a look every 2–4 s) — rather than counted unsold
 * because the run stopped first. Under a --budget it comes out of the budget (the sale stops
 * this much earlier when nothing is free), so the whole run still ends within it.
 */
const LAST_CALL_MS = 10_000;
const deadline = Math.min(cfg.timeLimit > 0 ? onSaleAt + cfg.timeLimit * 1000 : Infinity, budgetAt - LAST_CALL_MS);
const lastCallEnds = Math.min(deadline + LAST_CALL_MS, budgetAt);
let lastCall = false;
if (cfg.budget > 0) log(`the sale stops by t=${Math.round((deadline - onSaleAt) / 1000)} s (a last call for seats free then runs to t=${Math.round((lastCallEnds - onSaleAt) / 1000)} s) to finish within the ${cfg.budget}-s budget`);
// Outages (--outage): Redis dies 8 s into the sale and comes back; then Postgres is cut. Each is probed (lib/simulator/outage.ts).
const { outageViolations, probeTargets, runOutage } = await import("@/lib/simulator/outage");
const outages: Promise<Awaited<ReturnType<typeof runOutage>>[]> = cfg.outage
  ? (async () => {
      await sleep(Math.max(0, onSaleAt + 8_000 - Date.now()));
      const targets = probeTargets(eventId, show.slug);
      const downForMs = cfg.outageSeconds * 1000;
      const redis = await runOutage(client, { dependency: "redis", targets, jar: probeJar!, downForMs, down: () => deps!.killRedis(), up: () => deps!.startRedis(), log });
      await sleep(4_000);
      const postgres = await runOutage(client, { dependency: "postgres", targets, jar: probeJar!, downForMs, down: () => deps!.cutPostgres(), up: () => deps!.restorePostgres(), log });
      return [redis, postgres];
    })()
  : Promise.resolve([]);
let outagesDone = !cfg.outage;
void outages.then(() => (outagesDone = true));
/** The hold path's p50/p99 (ms) over the app's last complete 5-s window of hold metrics, read once per window (nothing while Redis is out). */
const { quantile: q, recentHoldLatencies } = await import("@/lib/metrics/holds");
let holdWindowAt = 0;
let holdWindowStats: { holdP50Ms?: number; holdP99Ms?: number } = {};
async function holdWindow(): Promise<{ holdP50Ms?: number; holdP99Ms?: number }> {
  const w = Math.floor(Date.now() / 5_000);
  if (w === holdWindowAt) return holdWindowStats;
  holdWindowAt = w;
  const ms = (await recentHoldLatencies(eventId).catch(() => [] as number[])).sort((a, b) => a - b);
  holdWindowStats = ms.length === 0 ? {} : { holdP50Ms: q(ms, 0.5)!, holdP99Ms: q(ms, 0.99)! };
  return holdWindowStats;
}
while (!stopped) {
  await sleep(1_000);
  tick++;
  const pub = await client.request<{ servingCounter: number; queueLength: number; active: number; activeCap: number; ratePerMinute: number; pacedRate: number | null }>(`/api/events/${eventId}/queue`, { endpoint: "monitor", lane: "monitor", headers: { "x-forwarded-for": "192.0.2.250" } });
  if (pub.status === 200) lastPublic = pub.body;
  // Held = a hold still running: a seat whose hold ran out is free to the sale (the sweep returns it within a pass, every 2 s here), so it can call the last call.
  const rows = (await db().execute(
    sql`select li.status, count(*)::int as n from line_items li join orders o on o.id = li.order_id
        where li.event_id = ${eventId} and li.status in ('held','sold') and (li.status = 'sold' or o.hold_expires_at > now()) group by li.status`,
  )) as unknown as { status: string; n: number }[];
  sold = rows.find((r) => r.status === "sold")?.n ?? 0;
  heldNow = rows.find((r) => r.status === "held")?.n ?? 0;
  const t = Math.round((Date.now() - onSaleAt) / 100) / 10;
  const inForce = rateInForce(lastPublic);
  timeline.push({ t, queueLength: lastPublic.queueLength, serving: lastPublic.servingCounter, sold, held: heldNow, active: lastPublic.active, cap: lastPublic.activeCap, rate: inForce.rate, ...(await holdWindow()) });
  if (sold >= capacity && soldOutAt === null) soldOutAt = Date.now();
  if (tick % 5 === 0) {
    const now = Date.now();
    const requests = client.requests + (crowdProgress?.requests ?? 0);
    const rps = Math.round(((requests - lastReq) * 1000) / (now - lastReqAt));
    lastReq = requests;
    lastReqAt = now;
    const errs = [...client.errors.values()].reduce((a, b) => a + b, 0) + (crowdProgress?.errors ?? 0);
    const c = counters();
    log(
      `${t < 0 ? "pre-queue" : "on sale"} t=${t}s queue ${lastPublic.queueLength} serving ${lastPublic.servingCounter} active ${lastPublic.active}/${lastPublic.activeCap} rate ${inForce.rate}/min${inForce.paced ? " (paced)" : ""} | joined ${c.joined} (${crowdProgress?.arrivedNotLaunched ?? 0} still clicking) waiting ${crowdProgress?.waiting ?? 0} admitted ${c.admitted} holds ${c.held} (refused ${c.holdRefused}) paid ${c.approved} | seats held ${heldNow} sold ${sold}/${capacity} | ${rps} req/s, CDN hits ${client.cdnHits + (crowdProgress?.cdnHits ?? 0)}, errors ${errs}`,
    );
  }
  // (A sale that sells out during an outage still waits for the outage to end and be judged.)
  // Sold out, the shop closes, but the door still owes every fan who clicked an answer: the run
  // goes on until the crowd has none left to ask (or the time limit), so a door that never served
  // its fans fails the run whenever the shop sold out.
  if (soldOutAt !== null && outagesDone && !shopClosed) {
    shopClosed = true;
    sale.stop();
    crowdSend({ type: "sold-out" });
    log(`SOLD OUT ${((soldOutAt - onSaleAt) / 1000).toFixed(1)} s after the on-sale; the door still owes ${owedAnswers().toLocaleString("en")} fans their first answer`);
  }
  const freeNow = capacity - sold - heldNow;
  const offering = freeNow > 0 && !shopClosed && lastPublic.servingCounter < lastPublic.queueLength && Date.now() <= lastCallEnds;
  if (Date.now() > deadline && offering && !lastCall) {
    lastCall = true;
    log(`${Date.now() > budgetAt - LAST_CALL_MS ? "budget" : "time limit"}: ${freeNow} seat(s) free right now — a last call of up to ${LAST_CALL_MS / 1000} s for the fans still shopping`);
  }
  if ((shopClosed && crowdProgress?.soldOut && owedAnswers() === 0) || (Date.now() > deadline && !offering)) {
    stopped = true;
    sale.stop();
    crowdSend({ type: "stop" });
  }
}
const saleEndedAt = Date.now();
await memory.sample();
const cpuDuringSale = usage.cpuBetween(cpuAtOnSale ?? {}, memory.cpu());
const soldDuringSale = sold;
if (!soldOutAt) log(`time limit reached with ${sold}/${capacity} sold`);
else log(`every fan who clicked has had the door's answer ${((saleEndedAt - soldOutAt) / 1000).toFixed(1)} s after the sell-out${owedAnswers() > 0 ? ` — except ${owedAnswers().toLocaleString("en")}, at the time limit` : ""}`);
await Promise.race([Promise.all(lives), sleep(10_000)]); // requests still in flight after that are abandoned, as by fans closing the page
// The crowd's statistics and its fairness check (it saw the joins), within a minute.
const crowdDone = crowdResult ?? (await Promise.race([crowdNext("result"), sleep(60_000).then(() => undefined)]));
if (!crowdDone) throw new Error(`the crowd sent no result${crowdFailed ? `: ${crowdFailed}` : ""}`);
mergeCrowdStats(client, crowdDone.stats, crowdDone.errors, crowdDone.progress);

// ---------- convergence ----------
log("waiting for the sweeps and the ledger reconciliation to converge (no pending holds, no captured payment — ours or the PSP's — on an order without tickets)…");
const converged = await waitForConvergence(db(), eventId, Date.now() + (cfg.holdMinutes * 60 + 20 + RECONCILE_EVERY_MS / 1000) * 1000);
const convergedAt = Date.now();
log(`${converged ? "converged" : "NOT converged"} ${((convergedAt - saleEndedAt) / 1000).toFixed(1)} s after the sale ended`);

if (cfg.inject) {
  const { INJECTABLE_VIOLATIONS, injectViolation } = await import("@/lib/simulator/inject");
  const kind = INJECTABLE_VIOLATIONS.find((k) => k === cfg.inject);
  if (!kind) throw new Error(`--inject must be one of ${INJECTABLE_VIOLATIONS.join(", ")}`);
  log(`INJECTED on purpose: ${await injectViolation(db(), eventId, kind)} — this run must fail`);
}
const invariants = await checkInvariants(db(), { eventId, graceMs: 0 });
if (invariants.redisMismatches > 0) {
  log(`Redis contradicts Postgres on: ${[...(await redisMismatchSet(db(), eventId))].slice(0, 20).join(", ")}`);
}
// Seats unsold in the end whose last hold was still running when the sale stopped (it ran out
// after the stop, unpaid): by a fan the fault mix made a non-payer, nobody else could have bought
// them within the sale (explained); by a fan who meant to pay, they are a failure like any other.
const heldAtStop = { byNonPayers: 0, byPayers: 0 };
{
  const expiredAfterStop = (await db().execute(
    sql`select o.id, array_agg(distinct li.seat_id) as seats from orders o join line_items li on li.order_id = o.id
        where o.event_id = ${eventId} and o.status = 'expired' and o.hold_expires_at > ${new Date(saleEndedAt).toISOString()}
          and not exists (select 1 from line_items s where s.event_id = li.event_id and s.seat_id = li.seat_id and s.status = 'sold')
        group by o.id`,
  )) as unknown as { id: string; seats: number[] }[];
  const seatsOf = (rows: typeof expiredAfterStop) => new Set(rows.flatMap((r) => r.seats)).size;
  heldAtStop.byNonPayers = seatsOf(expiredAfterStop.filter((r) => sale.unpaidByDesign.has(r.id)));
  heldAtStop.byPayers = seatsOf(expiredAfterStop.filter((r) => !sale.unpaidByDesign.has(r.id)));
}
// Fairness from the waiting room's own records (Redis): the pre-queue draw and the later positions (checked by the crowd, who saw the joins).
const fairness = crowdDone.fairness;
const finalCounters = counters();
// A forged capture webhook the app accepted is a hole, even if reconciliation voided it later.
const outageReports = await outages;
// Seats sold once everything settled (payments in flight when the sale stopped may have completed since).
{
  const [{ n } = { n: 0 }] = (await db().execute(sql`select count(*)::int as n from line_items where event_id = ${eventId} and status = 'sold'`)) as unknown as { n: number }[];
  sold = n;
}
// The job itself: sold out (or every queued fan had its turn), every fan who tried got a place, a door within its bound.
const joinServerTimes = client.stats.get("queue join")?.server ?? [];
const job = R.jobViolations({
  capacity,
  sold,
  queueExhausted: lastPublic.servingCounter >= lastPublic.queueLength,
  heldAtStopByNonPayers: heldAtStop.byNonPayers,
  // Fans who tried and never got a place: joins that failed for good, and those the door had not answered when the sale stopped.
  fansNeverQueued: finalCounters.joinFailed + crowdDone.progress.arrivedNotLaunched + crowdDone.progress.joining,
  doorJoinP99Ms: R.percentile(joinServerTimes, 0.99),
  doorP99BoundMs: cfg.doorP99Ms,
});
// The money faults against the PSP's own records: short captures refunded in full, signed forgeries never paid.
const { checkPspFaults } = await import("@/lib/simulator/psp-faults");
const pspFaults = await checkPspFaults(db(), { shortCaptured: sale.shortCaptured, forgedSigned: sale.forgedSigned, requested: { shortCapture: cfg.faults.shortCapture, forgedSigned: cfg.faults.forgedSigned } });
const violations = { ...R.violations(invariants, fairness), ...pspFaults.violations, forgedWebhooksAccepted: finalCounters.forgedAccepted, retriesAnsweredWrong: finalCounters.retriesAnsweredWrong, ...job, ...(cfg.outage ? outageViolations(outageReports) : {}) };
const ok = R.passed(violations) && converged;

// ---------- report ----------
const ordersByStatus = Object.fromEntries(
  ((await db().execute(sql`select status, count(*)::int as n from orders where event_id = ${eventId} group by status`)) as unknown as { status: string; n: number }[]).map((r) => [r.status, r.n]),
);
// What the sweeps and reconciliation found and repaired on the way (discrepancies by kind, e.g. redis_drift).
const repairs = Object.fromEntries(
  ((await db().execute(sql`select kind, count(*)::int as n from discrepancies where event_id = ${eventId} group by kind`)) as unknown as { kind: string; n: number }[]).map((r) => [r.kind, r.n]),
);
const [{ tickets } = { tickets: 0 }] = (await db().execute(sql`select count(*)::int as tickets from tickets t join orders o on o.id = t.order_id where o.event_id = ${eventId} and t.status = 'valid'`)) as unknown as { tickets: number }[];
const endpointStats = Object.fromEntries(
  [...client.stats].map(([name, s]) => [
    name,
    {
      requests: s.count,
      perSecond: Math.round((s.count / Math.max(1, (s.lastAt - s.firstAt) / 1000)) * 10) / 10,
      p50: R.percentile(s.latencies, 0.5),
      p95: R.percentile(s.latencies, 0.95),
      p99: R.percentile(s.latencies, 0.99),
      server: { p50: R.percentile(s.server, 0.5), p95: R.percentile(s.server, 0.95), p99: R.percentile(s.server, 0.99) },
      queuedInSimulator: { p50: R.percentile(s.queued, 0.5), p95: R.percentile(s.queued, 0.95), p99: R.percentile(s.queued, 0.99) },
      serverParts: Object.fromEntries(Object.entries(s.serverParts).map(([part, xs]) => [part, { p50: R.percentile(xs, 0.5), p99: R.percentile(xs, 0.99) }])),
    },
  ]),
);
const saleSeconds = (saleEndedAt - onSaleAt) / 1000;
const fmtMs = (v: number | null | undefined) => (v === null || v === undefined ? "–" : `${Math.round(v)} ms`);
// The organizer's dashboard measures the hold path itself (lib/metrics/holds.ts, in Redis): its
// p99 over the whole sale, beside the server's (Server-Timing) and the fans' own figure.
const { holdStats } = await import("@/lib/metrics/holds");
const dashboardHolds = await holdStats(eventId, Math.ceil((Date.now() - onSaleAt) / 60_000) + 1);
/**
 * Hold latency, ms. Most fans pay at once (`?pay=1`): their hold request also starts the checkout,
 * and the report counts it as its own endpoint, "hold + checkout". `serverHoldPath` is the hold
 * itself in every hold request, from the request's arrival until the seats were held
 * (Server-Timing `hold`, what the dashboard measures); `serverHoldAlone` is the whole request of a hold
 * alone, `serverWithCheckout` that of a hold + checkout; `fan` is every hold request as the fan
 * waited for it, the checkout included where it was asked for.
 */
const holdSamples = ["hold", "hold + checkout"].flatMap((name) => {
  const s = client.stats.get(name);
  return s ? [s] : [];
});
const spread = (xs: number[]) => (xs.length === 0 ? null : { p50: R.percentile(xs, 0.5), p95: R.percentile(xs, 0.95), p99: R.percentile(xs, 0.99) });
const holdLatency = {
  dashboard: { p50: dashboardHolds.p50, p99: dashboardHolds.p99, attempts: dashboardHolds.attempts },
  requests: holdSamples.reduce((n, s) => n + s.count, 0),
  withCheckout: client.stats.get("hold + checkout")?.count ?? 0,
  serverHoldPath: spread(holdSamples.flatMap((s) => s.serverParts.hold ?? [])),
  serverHoldAlone: endpointStats.hold?.server ?? null,
  serverWithCheckout: endpointStats["hold + checkout"]?.server ?? null,
  fan: spread(holdSamples.flatMap((s) => s.latencies)),
};
// Status reads that reached the origin, as the door and the app counted them (lib/door/origin-reads.ts), not modelled.
const { originStatusReads } = await import("@/lib/door/origin-reads");
const { redis } = await import("@/lib/redis");
const originSeconds = await originStatusReads(redis(), eventId).catch(() => [] as [number, number][]);
const inSale = originSeconds.filter(([sec]) => sec * 1000 >= onSaleAt && sec * 1000 < saleEndedAt);
const originStatus = {
  reads: originSeconds.reduce((n, [, r]) => n + r, 0),
  perSecondDuringSale: Math.round((inSale.reduce((n, [, r]) => n + r, 0) / Math.max(1, saleSeconds)) * 10) / 10,
  peakPerSecond: originSeconds.reduce((m, [, r]) => Math.max(m, r), 0),
};
/**
 * CPU seconds by process during the sale and over the whole run, and the shop's share per sold
 * seat: the shop is the app instances, the worker, Postgres and Redis (the door and the
 * simulator's processes are not). `seatsPerShopCpuSecond` is seats sold per second per core
 * of the shop's tiers (issue 15's "seats sold per second per core").
 */
function cpuReport() {
  const round = (o: Record<string, number>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Math.round(v * 10) / 10]));
  const shopNames = (k: string) => k.startsWith("app ") || k === "worker" || k === "postgres" || k.startsWith("redis-server");
  const shopCpu = Object.entries(cpuDuringSale).reduce((n, [k, v]) => n + (shopNames(k) ? v : 0), 0);
  return {
    duringSaleSeconds: round(cpuDuringSale),
    wholeRunSeconds: round(memory.cpu()),
    saleSeconds: Math.round((saleEndedAt - onSaleAt) / 100) / 10,
    soldDuringSale,
    shopCpuSecondsDuringSale: Math.round(shopCpu * 10) / 10,
    shopCpuMsPerSoldSeat: soldDuringSale > 0 ? Math.round((shopCpu * 1000) / soldDuringSale) : null,
    seatsPerShopCpuSecond: shopCpu > 0 ? Math.round((soldDuringSale / shopCpu) * 100) / 100 : null,
  };
}
const report = {
  ok,
  originStatus,
  holdLatency,
  event: eventId,
  seats: capacity,
  sold,
  ticketsIssued: tickets,
  timeToSellOutSeconds: soldOutAt ? Math.round((soldOutAt - onSaleAt) / 100) / 10 : null,
  saleSeconds: Math.round(saleSeconds * 10) / 10,
  convergeSeconds: Math.round((convergedAt - saleEndedAt) / 100) / 10,
  converged,
  /** Fans created to report written (s): the reference case's 15 minutes. */
  totalSeconds: Math.round((Date.now() - tFans) / 1000),
  /** Before that: the database, the build when stale, the servers' start (s). */
  setupSeconds: Math.round((tFans - tStart) / 1000),
  peakRssMiB: memory.stop(),
  cpu: cpuReport(),
  violations,
  invariants,
  fairness,
  throughput: {
    joinsPerSecond: endpointStats["queue join"]?.perSecond ?? 0,
    statusReadsByFansPerSecond: Math.round((finalCounters.statusReads / Math.max(1, saleSeconds)) * 10) / 10,
    statusOriginPerSecond: endpointStats["queue status"]?.perSecond ?? 0,
    // Both hold endpoints (a hold alone, a hold + checkout), over the time between their first and last request.
    holdsPerSecond: holdSamples.length === 0 ? 0 : Math.round((holdLatency.requests / Math.max(1, (Math.max(...holdSamples.map((s) => s.lastAt)) - Math.min(...holdSamples.map((s) => s.firstAt))) / 1000)) * 10) / 10,
    paymentsPerSecond: endpointStats["psp approve"]?.perSecond ?? 0,
    originRequests: client.requests,
    originRequestsPerSecond: Math.round(client.requests / Math.max(1, (saleEndedAt - t0Pre) / 1000)),
    cdnHits: client.cdnHits,
  },
  endpoints: endpointStats,
  errors: Object.fromEntries([...client.errors].sort((a, b) => b[1] - a[1])),
  repairs,
  outages: outageReports,
  counters: finalCounters,
  /** The money faults as the PSP's records show them (lib/simulator/psp-faults.ts). */
  pspFaults: pspFaults.counted,
  fates,
  /** Seats unsold in the end, and those whose last hold was still running when the sale stopped (by non-paying fans: explained). */
  unsold: { seats: capacity - sold, heldAtStopByNonPayers: heldAtStop.byNonPayers, heldAtStopByPayers: heldAtStop.byPayers },
  ordersByStatus,
  config: { ...cfg, holdSeconds: cfg.holdMinutes * 60, url: baseUrl },
  fans: cfg.fans,
  machine: { cores: cpus().length, cpu: cpus()[0]?.model ?? "unknown", memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version },
  timeline,
};

console.log("\n=== on-sale simulation ===");
console.log(
  `ran: ${cfg.fans.toLocaleString("en")} fans (${nPre.toLocaleString("en")} in a ${cfg.preSeconds}-s pre-queue, ${nFirst.toLocaleString("en")} in the first ${FIRST_MS / 1000} s after the on-sale, the rest over a ${cfg.burstSeconds}-s burst), ${capacity.toLocaleString("en")} seats, holds ${cfg.holdMinutes} min (the simulated show's hold time; real shows hold 15), admission ${cfg.rate}/min, active cap ${cfg.cap}${Number(process.env.ADMISSION_PACING_HOLD_P99_MS ?? 0) > 0 ? `, paced to a hold p99 of ${process.env.ADMISSION_PACING_HOLD_P99_MS} ms` : ""}; ` +
    `${cfg.url ? cfg.url : `${baseUrls.length} app instance(s)`} + local worker, simulator on the same machine: ${report.machine.cores} × ${report.machine.cpu}, ${report.machine.memoryGiB} GiB, Node ${report.machine.node}`,
);
console.log(`sold ${sold}/${capacity}${report.timeToSellOutSeconds !== null ? ` in ${report.timeToSellOutSeconds} s` : ""}; tickets ${tickets}; orders ${JSON.stringify(ordersByStatus)}; converged in ${report.convergeSeconds} s`);
if (sold < capacity) {
  console.log(
    `unsold ${capacity - sold}: ${heldAtStop.byNonPayers} held when the sale stopped by fans who never paid, their holds still running (explained)` +
      `${heldAtStop.byPayers > 0 ? `, ${heldAtStop.byPayers} held then by fans who meant to pay` : ""}${lastPublic.servingCounter >= lastPublic.queueLength ? "; every queued fan had a turn" : ""}`,
  );
}
console.log(`violations: ${Object.entries(violations).map(([k, v]) => `${k} ${v}`).join(", ")}`);
console.log(
  `fairness: pre-queue ${fairness.preQueueFans} fans, permutation ${fairness.preQueuePermutation}, rho ${fairness.preQueueRho.toFixed(4)} (|rho| ≤ ${fairness.preQueueRhoBound.toFixed(4)}); later ${fairness.laterFans} fans, FIFO violations ${fairness.fifoViolations}, rho ${fairness.laterRho.toFixed(4)}`,
);
console.log(`throughput: ${JSON.stringify(report.throughput)}`);
console.log(
  `status reads: fans ${report.throughput.statusReadsByFansPerSecond}/s during the sale, ${report.throughput.cdnHits} answered by the ${cfg.realCdn ? "cache in front (X-Cache-Status)" : "simulated CDN"}; ` +
    `at the origin, as the app counted them: ${originStatus.perSecondDuringSale}/s during the sale (peak ${originStatus.peakPerSecond} in one second, ${originStatus.reads} in all)`,
);
console.log(
  `hold p99: ${fmtMs(holdLatency.serverHoldPath?.p99)} server-side (Server-Timing, the hold from the request's arrival until the seats were held, in all ${holdLatency.requests} hold requests) — ${fmtMs(holdLatency.dashboard.p99)} on the organizer's dashboard (${holdLatency.dashboard.attempts} attempts); ${fmtMs(holdLatency.fan?.p99)} as fans saw it; targets < 100 ms server-side, < 800 ms fan-observed. Whole requests: a hold alone ${fmtMs(holdLatency.serverHoldAlone?.p99)}, a hold + checkout (${holdLatency.withCheckout} requests, from fans paying at once) ${fmtMs(holdLatency.serverWithCheckout?.p99)}`,
);
const ms = (v: number | null) => (v === null ? "–" : v < 10 ? v.toFixed(1) : String(Math.round(v)));
console.log("Latency per endpoint (ms): what the fan saw; the server's own time (Server-Timing); the time the request waited inside the simulator for a socket.");
console.log("| endpoint | requests | req/s | fan p50 | fan p95 | fan p99 | server p50 | server p95 | server p99 | of which p99: redis · postgres | queued p50 | queued p99 |\n|---|---|---|---|---|---|---|---|---|---|---|---|");
for (const [name, s] of Object.entries(endpointStats))
  console.log(
    `| ${name} | ${s.requests} | ${s.perSecond} | ${ms(s.p50)} | ${ms(s.p95)} | ${ms(s.p99)} | ${ms(s.server.p50)} | ${ms(s.server.p95)} | ${ms(s.server.p99)} | ${ms(s.serverParts.redis?.p99 ?? null)} · ${ms(s.serverParts.postgres?.p99 ?? null)} | ${ms(s.queuedInSimulator.p50)} | ${ms(s.queuedInSimulator.p99)} |`,
  );
console.log(`errors: ${JSON.stringify(report.errors)}`);
console.log(`discrepancies found and handled during the run: ${JSON.stringify(repairs)}`);
for (const o of outageReports) {
  console.log(
    `outage ${o.dependency} (${o.downForMs / 1000} s): ${o.probes} probes, 503s ${JSON.stringify(o.unavailable)}, slowest answer ${o.maxMs} ms, wrong answers ${o.wrong.length}, ` +
      `reported by /api/health ${o.observed}, recovered ${o.recoveredInMs === null ? "NOT within 20 s" : `${(o.recoveredInMs / 1000).toFixed(1)} s after it came back`}`,
  );
}
console.log(`fates: ${JSON.stringify(fates)}; counters: ${JSON.stringify(finalCounters)}`);
console.log(
  `PSP money faults: ${pspFaults.counted.shortCaptures} short capture(s), ${pspFaults.counted.shortCapturesRefundedInFull} refunded in full at the PSP; ` +
    `${pspFaults.counted.forgedSignedWebhooks} forged but signed webhook(s), ${pspFaults.violations.forgedSignedPaid} of them paid or ticketed`,
);
console.log(
  `CPU during the sale (s, ${report.cpu.saleSeconds} s of sale): ${Object.entries(report.cpu.duringSaleSeconds).map(([k, v]) => `${k} ${v}`).join(", ")}; ` +
    `the shop (apps, worker, Postgres, Redis) ${report.cpu.shopCpuSecondsDuringSale} s for ${report.cpu.soldDuringSale} seats sold: ${report.cpu.shopCpuMsPerSoldSeat ?? "–"} ms a seat, ${report.cpu.seatsPerShopCpuSecond ?? "–"} seats per core-second`,
);
console.log(`peak RSS (MiB): ${Object.entries(report.peakRssMiB).map(([k, v]) => `${k} ${v}`).join(", ")}; whole run ${report.totalSeconds} s from the fans' creation to this report (${report.setupSeconds} s of set-up before it)`);
if (cfg.json) {
  mkdirSync(dirname(cfg.json), { recursive: true }); // test-results/ does not exist on a fresh clone
  writeFileSync(cfg.json, JSON.stringify(report, null, 2));
  const html = cfg.json.replace(/\.json$/i, "") + ".html";
  writeFileSync(html, R.chartHtml(`StarArena on-sale: ${cfg.fans.toLocaleString("en")} fans, ${capacity.toLocaleString("en")} seats`, timeline, capacity));
  log(`report written to ${cfg.json}, chart to ${html}`);
}
console.log(ok ? "RESULT: PASS (every count zero)" : "RESULT: FAIL");

// ---------- clean-up ----------
client.close();
await stopChildren();
await closeDb();
await closeRedis();
if (!cfg.url && !cfg.keep) {
  await sleep(1_000);
  await dropDatabase(process.env.DATABASE_URL!).catch((e: unknown) => log(`could not drop stararena_onsale: ${String(e)}`));
  // (With --outage the Redis was the run's own, and went with it.)
  if (!cfg.outage) await deleteKeys(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "onsale:*");
  log(`dropped stararena_onsale${cfg.outage ? " and the private Redis" : " and the onsale: Redis keys"}`);
}
process.exit(ok ? 0 : 1);
