/**
 * `npm run onsale`: an on-sale simulation against a running StarArena over HTTP — many
 * concurrent fans join the waiting room (a pre-queue before the on-sale, then a burst
 * with retries), poll the cacheable public status through a simulated CDN, take their
 * turn (/queue/me → admission token), hold 1–4 seats (best available or map picks
 * concentrated on the best seats), and pay through the sandbox PSP with a mix of faults
 * (abandon, decline, slow approval, webhooks duplicated / dropped / delayed past the
 * hold's expiry, a capture after the hold expired whose webhook is lost — only the PSP's
 * ledger shows it — and capture webhooks forged with a wrong secret). It runs until sold
 * out or the time limit, waits for the sweeps and the ledger reconciliation to converge,
 * then runs the invariant checker (lib/reconciliation/invariants.ts) against Postgres,
 * Redis and the sandbox PSP's own records, and checks queue fairness. Exit code 1 when
 * any count is not zero.
 *
 * Without --url it prepares its own database `stararena_onsale` (dropped afterwards
 * unless --keep), Redis prefix `onsale:`, and starts --instances copies of `next start`
 * (ports from --port) plus the local worker (scripts/worker.ts). `--help` lists the flags.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { loadProjectEnv } from "./load-env";
import type { CookieJar } from "@/lib/simulator/client";
import type { FairnessReport, TimedJoin, TimelinePoint } from "@/lib/simulator/report";
import type { FanQueueStatus, PublicQueueStatus } from "@/lib/waiting-room/queue";

loadProjectEnv();

// ---------- flags ----------
const USAGE = `npm run onsale -- [flags]
  --fans N            simulated fans (100000; --small: 5000)
  --capacity N        seats (20000; --small: 500; under 5000 a small hall)
  --small             the CI variant: 500 seats, 5,000 fans, shorter phases
  --hold-minutes N    hold time of the simulated show (1), so abandoned holds return within the run
  --rate N --cap N    admission rate (fans/min, 4800) and active cap (1500)
  --time-limit S      seconds of sale after the on-sale before stopping (480; --small: 150)
  --budget S          the whole run's time bound, setup to report (600; 0 = none): the sale stops early
                      enough to leave room for the holds to run out, the sweeps to converge and the checks
  --pre-seconds S     pre-queue window before the on-sale (45)   --pre-share F  share of fans arriving in it (0.5)
  --burst-seconds S   window of the burst after the on-sale (60)  --poll-seconds S  fans' status poll interval (3)
  --connections N     sockets per app instance (96)   --door-share F  of them for joins (0.1)   --edges N  CDN edges (4)
  --abandon --decline --slow --duplicate --drop --late-webhook --late-capture --forged F   fault shares of holds
                      (late-capture: paid after the hold expired, webhook lost; forged: a capture webhook signed with a wrong secret)
  --inject KIND       break a rule on purpose after the sale (ticket-without-payment | redis-mismatch | psp-capture-without-tickets): the run must fail
  --json FILE         write the report (and FILE.html, the chart)
  --url URL           drive an already running StarArena instead of starting one (its env must match)
  --port N (3300) --instances N (2) --build auto|always|never --keep (keep the database)
Env ONSALE_APP_NODE_ARGS: node flags for the app instances only (e.g. "--cpu-prof --cpu-prof-dir=DIR").`;
const argv = process.argv.slice(2);
const KNOWN = new Set(USAGE.match(/--[a-z-]+/g));
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
const cfg = {
  fans: num("fans", small ? 5_000 : 100_000),
  capacity: num("capacity", small ? 500 : 20_000),
  holdMinutes: num("hold-minutes", 1),
  rate: num("rate", small ? 1_500 : 4_800),
  cap: num("cap", small ? 300 : 1_500),
  timeLimit: num("time-limit", small ? 150 : 480),
  budget: num("budget", small ? 0 : 600),
  preSeconds: num("pre-seconds", small ? 8 : 45),
  preShare: num("pre-share", 0.5),
  burstSeconds: num("burst-seconds", small ? 10 : 60),
  connections: num("connections", small ? 48 : 96),
  doorShare: num("door-share", 0.1),
  edges: num("edges", 4),
  port: num("port", 3300),
  instances: num("instances", 2),
  pollSeconds: num("poll-seconds", 3),
  faults: {
    abandon: num("abandon", 0.05),
    decline: num("decline", 0.04),
    slow: num("slow", 0.04),
    duplicate: num("duplicate", 0.05),
    drop: num("drop", 0.04),
    lateWebhook: num("late-webhook", 0.03),
    lateCapture: num("late-capture", 0.02),
    forged: num("forged", 0.02),
  },
  json: str("json"),
  inject: str("inject"),
  url: str("url"),
  build: (str("build") ?? "auto") as "auto" | "always" | "never",
  keep: has("keep"),
};
const log = (s: string) => console.log(`[onsale ${new Date().toISOString().slice(11, 19)}] ${s}`);
/**
 * How often the run's worker reconciles, the PSP's ledger included (ms): a capture whose
 * webhook was lost is found by the next pass, so the end of the run waits at most this long.
 */
const RECONCILE_EVERY_MS = 10_000;


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

const { eq, sql } = await import("drizzle-orm");
const { priceLevels, seats, eventSeats } = await import("@/db/schema");
const { ensureUser } = await import("@/lib/auth/users");
const { dropDatabase, ensureDatabase, runMigrations } = await import("@/lib/migrations");
const { closeDb, db } = await import("@/lib/db");
const { env } = await import("@/lib/env");
const { createEvent } = await import("@/lib/events/create");
const { closeRedis, redis } = await import("@/lib/redis");
const { checkInvariants, checkPspInvariants } = await import("@/lib/reconciliation/invariants");
const { SimClient } = await import("@/lib/simulator/client");
const { createFansWithSessions } = await import("@/lib/simulator/sessions");
const { SESSION_COOKIE, SESSION_DATA_COOKIE } = await import("@/lib/auth/cookie-cache");
const R = await import("@/lib/simulator/report");
const { arenaPlan, smallArenaPlan, ARENA_MIN_CAPACITY } = await import("@/lib/venues/plan");
const { createVenue } = await import("@/lib/venues/store");
const { queueKeys } = await import("@/lib/waiting-room/keys");
const { estimatedPreQueuePosition, pollDelayMs, preQueueTurnNear } = await import("@/lib/waiting-room/draw");
const { admissionCookieName } = await import("@/lib/waiting-room/token");
const { SANDBOX_SIGNATURE_HEADER, signWebhookBody } = await import("@/lib/payments/sandbox/psp");
const { buildIfNeeded, buildIsStale, clearRenderedPages } = await import("./lib/build");
const { deleteKeys } = await import("@/lib/redis-keys");

const children: ChildProcess[] = [];
const signalChildren = (signal: NodeJS.Signals) => {
  for (const c of children) {
    try {
      if (c.pid && c.exitCode === null && c.signalCode === null) process.kill(-c.pid, signal);
    } catch {
      // already gone
    }
  }
};
/** Stops the app instances and the worker: SIGINT (next-server ignores SIGTERM while it has work), SIGKILL after 5 s. */
const stopChildren = async () => {
  signalChildren("SIGINT");
  for (let i = 0; i < 50 && children.some((c) => c.exitCode === null && c.signalCode === null); i++) await new Promise((r) => setTimeout(r, 100));
  signalChildren("SIGKILL");
};
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    void stopChildren().then(() => process.exit(130));
  });
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const rand = (a: number, b: number) => a + Math.random() * (b - a);

async function prepareOwnServer(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL!;
  log(`preparing database stararena_onsale and Redis prefix onsale: …`);
  await dropDatabase(databaseUrl);
  await deleteKeys(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "onsale:*");
  await ensureDatabase(databaseUrl);
  await runMigrations(databaseUrl);
  // Which production build serves the simulation: a caller's NEXT_DIST_DIR (npm test runs the
  // small variant on its `.next-test`); else the app's own `.next` (made by `npm start`) when it
  // is up to date — the simulator opens API routes only, so pages rendered from the demo
  // database are never served; else a build into `.next-onsale`.
  const preset = process.env.NEXT_DIST_DIR;
  process.env.NEXT_DIST_DIR = preset || ".next";
  if (!preset && (cfg.build === "always" || buildIsStale())) process.env.NEXT_DIST_DIR = ".next-onsale";
  if (process.env.NEXT_DIST_DIR === ".next") log("  using the up-to-date production build in .next");
  else {
    if (cfg.build !== "never") buildIfNeeded(log, cfg.build === "always");
    clearRenderedPages();
    log(`  serving the production build in ${process.env.NEXT_DIST_DIR}`);
  }
  // Postgres allows 100 connections here: the app instances share 78 (2 × 39), the worker
  // 5, the simulator 4, leaving room for a running `npm start`. Under load a transaction holds
  // its connection across several event-loop turns, so the pool bounds the shop's throughput.
  const poolPerInstance = String(Math.max(4, Math.floor(78 / baseUrls.length)));
  const childEnv = { ...process.env, NODE_ENV: "production", PAYMENT_PROVIDER: "sandbox", DATABASE_POOL_MAX: poolPerInstance } as NodeJS.ProcessEnv;
  // Several instances of the app, as behind a load balancer; each sends its sandbox PSP's webhooks to itself.
  for (const [k, url] of baseUrls.entries()) {
    const port = String(cfg.port + k);
    // ONSALE_APP_NODE_ARGS: node flags for the app instances only, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile them.
    // A larger young generation (64 MB semi-spaces, as one would deploy a busy Node server) halves scavenges.
    const nodeArgs = ["--max-semi-space-size=64", ...(process.env.ONSALE_APP_NODE_ARGS ?? "").split(" ").filter(Boolean)];
    const app = spawn(process.execPath, [...nodeArgs, "node_modules/next/dist/bin/next", "start", "-p", port, "-H", "127.0.0.1"], {
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...childEnv, PORT: port, APP_URL: url },
      detached: true,
    });
    children.push(app);
  }
  const worker = spawn("npx", ["tsx", "scripts/worker.ts"], {
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...childEnv, APP_URL: baseUrl, WORKER_INTERVAL_MS: "2000", RECONCILE_EVERY_MS: String(RECONCILE_EVERY_MS), DATABASE_POOL_MAX: "5" },
    detached: true,
  });
  children.push(worker);
  for (let i = 0; i < 120; i++) {
    const up = await Promise.all(baseUrls.map((u) => fetch(`${u}/api/health`).then((r) => r.ok, () => false)));
    if (up.every(Boolean)) return log(`${baseUrls.length} app instance${baseUrls.length === 1 ? "" : "s"} up at ${baseUrls.join(", ")} (+ local worker, sweeps every 2 s)`);
    await sleep(500);
  }
  throw new Error(`the server at ${baseUrl} did not become healthy`);
}

// ---------- setup ----------
const tStart = Date.now();
if (!cfg.url) await prepareOwnServer();
const runTag = Date.now().toString(36);
const organizerId = await ensureUser(db(), { email: `onsale-organizer-${runTag}@onsale.stararena.test`, password: "onsale-organizer", name: "On-sale organizer", role: "organizer" });
const plan = cfg.capacity >= ARENA_MIN_CAPACITY ? arenaPlan({ capacity: cfg.capacity }) : smallArenaPlan(cfg.capacity);
const { venueId } = await createVenue(db(), { slug: `onsale-venue-${runTag}`, name: `${plan.name} (simulation)`, city: "Berlin", timeZone: "Europe/Berlin" }, plan);
log(`venue: ${plan.capacity.toLocaleString("en")} seats; creating ${cfg.fans.toLocaleString("en")} fans with sessions…`);
const secret = env().BETTER_AUTH_SECRET!;
const fans = await createFansWithSessions(db(), cfg.fans, { secret, runTag, onProgress: (d) => d % 25_000 === 0 && log(`  ${d.toLocaleString("en")} fans`) });

const client = new SimClient(baseUrls, cfg.connections, cfg.doorShare);
const ipOf = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
// Fans arrive signed in: the session cookie and better-auth's cookie cache, as a browser holds them.
const jars: CookieJar[] = fans.map((f) => new Map([[SESSION_COOKIE, f.sessionCookie], [SESSION_DATA_COOKIE, f.sessionDataCookie]]));

// Prove the forged session cookie is accepted, with one request, before the run.
{
  const r = await client.request<{ user?: { id: string } } | null>("/api/auth/get-session", { jar: new Map(jars[0]!), endpoint: "session-proof", headers: { "x-forwarded-for": ipOf(0) } });
  if (r.status !== 200 || r.body?.user?.id !== fans[0]!.id) throw new Error(`the signed session cookies were not accepted: ${r.status} ${JSON.stringify(r.body)}`);
  log(`session cookies accepted: /api/auth/get-session → ${r.body.user.id}`);
}

const isArena = cfg.capacity >= ARENA_MIN_CAPACITY;
const onSaleAt = Date.now() + cfg.preSeconds * 1000 + 3_000;
const { eventId } = await createEvent(db(), {
  venueId,
  organizerId,
  slug: `onsale-${runTag}`,
  name: `On-sale simulation ${runTag}`,
  status: "published",
  startsAt: new Date(Date.now() + 30 * 86_400_000),
  onSaleAt: new Date(onSaleAt),
  timeZone: "Europe/Berlin",
  holdMinutes: cfg.holdMinutes,
  perFanLimit: 4,
  admissionRatePerMinute: cfg.rate,
  activeCap: cfg.cap,
  priceLevels: isArena
    ? [
        { name: "Floor standing", priceMinor: 12_900, currency: "EUR", color: "#e11d48", seats: [{ tier: "floor" }] },
        { name: "Premium lower", priceMinor: 16_900, currency: "EUR", color: "#7c3aed", seats: [{ tier: "lower", rows: { from: 1, to: 8 } }] },
        { name: "Lower bowl", priceMinor: 11_900, currency: "EUR", color: "#2563eb", seats: [{ tier: "lower" }] },
        { name: "Upper bowl", priceMinor: 7_900, currency: "EUR", color: "#0d9488", seats: [{ tier: "upper", rows: { from: 1, to: 12 } }] },
        { name: "Upper rear", priceMinor: 4_900, currency: "EUR", color: "#ca8a04", seats: [{ tier: "upper" }] },
      ]
    : [
        { name: "Front", priceMinor: 6_900, currency: "EUR", color: "#7c3aed", seats: [{ rows: { from: 1, to: Math.max(1, Math.floor(plan.capacity / 25 / 3)) } }] },
        { name: "Rest", priceMinor: 3_900, currency: "EUR", color: "#0d9488", seats: [{ tier: "main" }] },
      ],
});
const levels = await db().select({ id: priceLevels.id, sortOrder: priceLevels.sortOrder, name: priceLevels.name }).from(priceLevels).where(eq(priceLevels.eventId, eventId)).orderBy(priceLevels.sortOrder);
const seatLevel = await db().select({ ordinal: seats.ordinal, levelId: eventSeats.priceLevelId }).from(eventSeats).innerJoin(seats, eq(eventSeats.seatId, seats.id)).where(eq(eventSeats.eventId, eventId));
const levelIndex = new Map(levels.map((l, i) => [l.id, i]));
const ordinalsByLevel: number[][] = levels.map(() => []);
for (const s of seatLevel) ordinalsByLevel[levelIndex.get(s.levelId)!]!.push(s.ordinal);
for (const o of ordinalsByLevel) o.sort((a, b) => a - b);
const capacity = seatLevel.length;
log(`show ${eventId}: ${capacity.toLocaleString("en")} seats in ${levels.length} price levels; on-sale in ${Math.round((onSaleAt - Date.now()) / 1000)} s; admission ${cfg.rate}/min, cap ${cfg.cap}, holds ${cfg.holdMinutes} min`);

// ---------- the sale ----------
let stopped = false;
// A fan's pause ends early when the sale stops. Each pause registers its own wake-up (and
// removes it when it ends): racing every pause against one shared "stopped" promise would
// pile up millions of reactions on it over a 100,000-fan run.
const sleepers = new Set<() => void>();
const pause = (ms: number) =>
  stopped || ms <= 0
    ? Promise.resolve()
    : new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          sleepers.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, ms);
        sleepers.add(wake);
      });
const stopResolve = () => {
  for (const wake of [...sleepers]) wake();
};
const counters = { joined: 0, joinFailed: 0, admitted: 0, held: 0, seatsHeld: 0, holdRefused: 0, gaveUp: 0, checkouts: 0, approved: 0, declined: 0, abandoned: 0, ticketedSeen: 0, meCalls: 0, statusReads: 0, lateCaptures: 0, forgedSent: 0, forgedAccepted: 0 };
const fates: Record<string, number> = {};
const preJoins: { fanId: string; doneAt: number }[] = [];
const laterJoins: (TimedJoin & { fanId: string })[] = [];
let lastPublic = { servingCounter: 0, queueLength: 0, active: 0 };
let sold = 0;
let heldNow = 0;
let soldOutAt: number | null = null;

type QueueStatus = Pick<FanQueueStatus, "state" | "position" | "servingCounter" | "draw" | "admittedUntil"> & { admissionToken?: string | null };
type Availability = { available: number; bits: string };

/** Share of paying fans who come back from the PSP's page (the rest close the tab after paying). */
const RETURN_SHARE = 0.8;

function pickFate(): string {
  const f = cfg.faults;
  let x = Math.random();
  for (const [k, share] of Object.entries(f)) {
    if (x < share) return k;
    x -= share;
  }
  return "normal";
}

function pickQuantity(): number {
  const x = Math.random();
  return x < 0.15 ? 1 : x < 0.6 ? 2 : x < 0.75 ? 3 : 4;
}

/** Weighted towards the best (first) levels among those with `qty` free seats; -1 when none. */
function pickLevel(freeByLevel: number[], qty: number): number {
  const weights = freeByLevel.map((free, i) => (free >= qty ? 1 / (i + 1) : 0));
  const total = weights.reduce((a, b) => a + b, 0);
  if (total === 0) return -1;
  let x = Math.random() * total;
  for (let i = 0; i < weights.length; i++) {
    if (x < weights[i]!) return i;
    x -= weights[i]!;
  }
  return weights.length - 1;
}

// Decoded once per availability response: the simulated CDN hands every fan behind an edge
// the same body for a second, and counting 20,000 bits per fan would load the simulator.
const decoded = new WeakMap<Availability, { bytes: Buffer; freeByLevel: number[] }>();
function decodeFree(a: Availability): { bytes: Buffer; freeByLevel: number[] } {
  const known = decoded.get(a);
  if (known) return known;
  const bytes = Buffer.from(a.bits, "base64");
  const freeByLevel = ordinalsByLevel.map((ords) => ords.reduce((n, o) => n + ((bytes[o >> 3]! & (0x80 >> (o & 7))) !== 0 ? 1 : 0), 0));
  decoded.set(a, { bytes, freeByLevel });
  return { bytes, freeByLevel };
}

/** A map pick: `qty` free seats in one level, starting near the front (skewed to low ordinals = best sections). */
function mapPick(bytes: Buffer, level: number, qty: number): number[] | null {
  const free = ordinalsByLevel[level]!.filter((o) => (bytes[o >> 3]! & (0x80 >> (o & 7))) !== 0);
  if (free.length < qty) return null;
  const start = Math.floor(Math.random() ** 2 * (free.length - qty + 1));
  return free.slice(start, start + qty);
}

async function me(i: number, lane: "door" | "shop" = "shop"): Promise<QueueStatus | null> {
  counters.meCalls++;
  const r = await client.request<QueueStatus>(`/api/events/${eventId}/queue/me`, { jar: jars[i], instance: i, endpoint: "queue me", lane, headers: { "x-forwarded-for": ipOf(i) } });
  return r.status === 200 ? r.body : null;
}

async function join(i: number): Promise<QueueStatus | null> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const sentAt = performance.now();
    const r = await client.request<QueueStatus>(`/api/events/${eventId}/queue`, { method: "POST", jar: jars[i], instance: i, endpoint: "queue join", headers: { "x-forwarded-for": ipOf(i) } });
    const doneAt = performance.now();
    if (r.status === 200) {
      counters.joined++;
      if (r.body.state === "pre") preJoins.push({ fanId: fans[i]!.id, doneAt });
      else laterJoins.push({ fanId: fans[i]!.id, sentAt, doneAt, position: r.body.position });
      return r.body;
    }
    if (stopped) return null;
    const retryAfter = Number(r.headers["retry-after"] ?? 0);
    await pause(retryAfter > 0 ? retryAfter * 1000 : Math.min(8_000, 250 * 2 ** attempt) * rand(0.5, 1.5));
  }
  counters.joinFailed++;
  return null;
}

/** A secret that is not the PSP's: what a forger signs with. */
const FORGER_SECRET = randomBytes(32).toString("hex");

async function pay(i: number, order: { orderId: string; holdExpiresAt: string; totalMinor: number; currency: string }): Promise<void> {
  const fate = pickFate();
  fates[fate] = (fates[fate] ?? 0) + 1;
  if (fate === "abandon") {
    counters.abandoned++;
    return;
  }
  const headers = { "x-forwarded-for": ipOf(i) };
  const checkout = async () => {
    const r = await client.request<{ url: string }>(`/api/orders/${order.orderId}/checkout`, { method: "POST", jar: jars[i], instance: i, endpoint: "checkout", lane: "shop", headers });
    if (r.status !== 200) return null;
    counters.checkouts++;
    return /sbx_cs_[0-9a-z]+/.exec(r.body.url)?.[0] ?? null;
  };
  const act = async (id: string, action: "approve" | "decline") => {
    const r = await client.request<{ outcome: string }>(`/sandbox-psp/api/checkouts/${id}/${action}`, { method: "POST", instance: i, endpoint: `psp ${action}`, lane: "shop", timeoutMs: 120_000 });
    if (r.body?.outcome === "captured") counters.approved++;
    if (r.body?.outcome === "declined") counters.declined++;
    return r.body?.outcome;
  };
  const setFaults = (id: string, knobs: Record<string, unknown>) =>
    client.request(`/sandbox-psp/api/faults?checkout=${id}`, { method: "PUT", body: knobs, instance: i, endpoint: "psp faults", lane: "shop" });

  await pause(rand(500, 3_000)); // the fan looks at the order page
  let id = await checkout();
  if (!id) return;
  const untilExpiry = Date.parse(order.holdExpiresAt) - Date.now();
  if (fate === "slow") await setFaults(id, { slowApprovalMs: Math.round(rand(2_000, 10_000)) });
  if (fate === "duplicate") await setFaults(id, { duplicate: 2 });
  if (fate === "drop") await setFaults(id, { drop: true });
  if (fate === "lateWebhook") await setFaults(id, { webhookDelayMs: Math.max(1_000, untilExpiry + 15_000) });
  if (fate === "lateCapture") {
    // The PSP takes the money after the hold expired and the webhook is lost: only the
    // PSP's ledger shows it (reconciliation must re-claim the seats or refund).
    await setFaults(id, { captureAfterExpiry: true, drop: true });
    await sleep(Math.max(0, untilExpiry) + rand(3_000, 8_000));
    if (stopped) return;
    if ((await act(id, "approve")) === "captured") counters.lateCaptures++;
    return;
  }
  if (fate === "forged") {
    // Someone posts a capture webhook for this checkout, signed with a secret that is not the PSP's.
    const body = JSON.stringify({
      id: `sbx_evt_forged${i}x${Date.now().toString(36)}`,
      object: "event",
      type: "payment.captured",
      created: Math.floor(Date.now() / 1000),
      data: { checkout: { id, object: "checkout", order_id: order.orderId, status: "captured", amount_minor: order.totalMinor, currency: order.currency, payment_id: `sbx_pay_forged${i}`, captured_at: new Date().toISOString() } },
    });
    counters.forgedSent++;
    const r = await client.request(`/api/payments/webhooks/sandbox`, {
      method: "POST",
      rawBody: body,
      instance: i,
      endpoint: "forged webhook",
      lane: "shop",
      headers: { "content-type": "application/json", [SANDBOX_SIGNATURE_HEADER]: signWebhookBody(body, { secret: FORGER_SECRET }) },
    });
    if (r.status >= 200 && r.status < 300) counters.forgedAccepted++;
    return; // and never pays: the hold expires
  }
  await sleep(rand(1_000, 4_000)); // typing the card number
  if (fate === "decline") {
    await act(id, "decline");
    if (Math.random() < 0.5) return; // gives up: the hold expires and the seats go back on sale
    await sleep(rand(1_000, 3_000));
    id = await checkout(); // tries another card
    if (!id) return;
  }
  await act(id, "approve");
  // The PSP sends the fan back to the order page, which asks the PSP first (`?checkout=`,
  // racing a late or lost webhook), then follows the order. Some fans close the tab
  // instead, and so do all whose webhook comes after the hold's expiry (that fault is
  // about the sweeps): their orders are settled by the webhook or the sweeps alone.
  if (fate !== "lateWebhook" && Math.random() < RETURN_SHARE) {
    for (let k = 0; k < 4; k++) {
      const r = await client.request<{ status: string }>(`/api/orders/${order.orderId}${k === 0 ? `?checkout=${id}` : ""}`, { jar: jars[i], instance: i, endpoint: k === 0 ? "order return" : "order status", lane: "shop", headers });
      if (r.body?.status === "ticketed") {
        counters.ticketedSeen++;
        return;
      }
      await sleep(2_000);
    }
  }
}

async function shop(i: number, token: string | null): Promise<void> {
  let qty = pickQuantity();
  let map = Math.random() < 0.5;
  const edge = i % cfg.edges;
  const headers: Record<string, string> = { "x-forwarded-for": ipOf(i) };
  if (token) headers.authorization = `Bearer ${token}`;
  for (let attempt = 0; attempt < 8 && !stopped; attempt++) {
    const av = await client.cachedGet<Availability>(`/api/events/${eventId}/availability`, edge, "availability");
    if (av.status !== 200) {
      await pause(1_000);
      continue;
    }
    const { bytes, freeByLevel } = decodeFree(av.body);
    const totalFree = freeByLevel.reduce((a, b) => a + b, 0);
    if (totalFree === 0) {
      await pause(rand(2_000, 4_000)); // "no seats right now": held seats may come back
      continue;
    }
    qty = Math.min(qty, Math.max(...freeByLevel));
    const level = pickLevel(freeByLevel, qty);
    if (level < 0) continue;
    const ordinals = map ? mapPick(bytes, level, qty) : null;
    const body = ordinals ? { kind: "seats", ordinals } : { kind: "best", priceLevelId: levels[level]!.id, quantity: qty };
    const r = await client.request<{ orderId: string; seats: unknown[]; holdExpiresAt: string; totalMinor: number; currency: string; error?: string; code?: string }>(`/api/events/${eventId}/holds`, {
      method: "POST",
      body,
      jar: jars[i],
      instance: i,
      endpoint: "hold", lane: "shop",
      headers,
    });
    if (r.status === 201) {
      counters.held++;
      counters.seatsHeld += r.body.seats.length;
      return pay(i, r.body);
    }
    counters.holdRefused++;
    if (r.status === 429) await pause(Number(r.headers["retry-after"] ?? 1) * 1000);
    else if (r.status === 409) {
      map = false; // someone was faster: let the server pick
      if (r.body?.code === "not_together" || r.body?.code === "not_enough") qty = Math.max(1, qty - 1);
      await pause(rand(300, 1_200));
    } else if (r.status === 401 || r.status === 403) return;
    else await pause(1_000);
  }
  counters.gaveUp++;
  await client.request(`/api/events/${eventId}/queue/me`, { method: "DELETE", jar: jars[i], instance: i, endpoint: "queue leave", lane: "shop", headers: { "x-forwarded-for": ipOf(i) } });
}

async function fanLife(i: number, arriveAt: number): Promise<void> {
  await pause(arriveAt - Date.now());
  if (stopped) return;
  let s = await join(i);
  if (!s) return;
  // A pre-queue fan waits for the on-sale, then learns from the public status (its draw against
  // servingDraw) when to ask for its exact place — as the queue page does (lib/waiting-room/draw.ts).
  if (s.state === "pre") await pause(onSaleAt - Date.now());
  const edge = i % cfg.edges;
  let delay = cfg.pollSeconds * 1000;
  while (!stopped && s.state !== "admitted") {
    if (s.state === "expired" || s.state === "none") return;
    await pause(rand(0.75, 1.25) * delay);
    if (stopped) return;
    counters.statusReads++;
    const pub = await client.cachedGet<PublicQueueStatus>(`/api/events/${eventId}/queue`, edge, "queue status", { "x-forwarded-for": `192.0.2.${edge + 1}` });
    if (pub.status !== 200) continue;
    if (!(s.state === "pre" ? preQueueTurnNear(s.draw, pub.body) : pub.body.servingCounter >= s.position)) {
      // Poll like the queue page: less often while the turn is far away (lib/waiting-room/draw.ts).
      const mine = s.state === "pre" && s.draw !== null ? estimatedPreQueuePosition(s.draw, pub.body.preQueueSize) : s.position;
      delay = pollDelayMs(mine - pub.body.servingCounter - 1, pub.body.paused ? 0 : pub.body.ratePerMinute, cfg.pollSeconds * 1000);
      continue;
    }
    s = (await me(i)) ?? s; // the turn is near: on the shop's connections, not behind the door's backlog of joins
  }
  if (stopped) return;
  counters.admitted++;
  await shop(i, s.admissionToken ?? jars[i]!.get(admissionCookieName(eventId)) ?? null);
}

// Arrivals: a share before the on-sale (spread over the pre-queue window), the rest in a burst after it.
const order = fans.map((_, i) => i).sort(() => Math.random() - 0.5);
const nPre = Math.round(cfg.fans * cfg.preShare);
const t0Pre = Date.now();
const arrivals = order.map((i, k) =>
  k < nPre ? t0Pre + (k / Math.max(1, nPre)) * (onSaleAt - t0Pre - 1_000) : onSaleAt + Math.random() ** 1.5 * cfg.burstSeconds * 1000,
);
log(`phase pre-queue: ${nPre.toLocaleString("en")} fans arrive before the on-sale, ${(cfg.fans - nPre).toLocaleString("en")} in a ${cfg.burstSeconds}-s burst after it`);
const lives = order.map((i, k) => fanLife(i, arrivals[k]!).catch((e: unknown) => client.countError(`fan crash:${e instanceof Error ? e.message : String(e)}`)));

// Monitor: timeline every second, progress every 5 s, stop on sold out or the time limit.
const timeline: TimelinePoint[] = [];
let lastReq = 0;
let lastReqAt = Date.now();
let tick = 0;
// Time the end needs at worst: fans finishing their requests (≤ 10 s), every hold running out
// and the sweeps converging (hold time + 20 s), the checks and the report (~10 s). (At a sell-out
// nothing is held any more, so the end takes seconds.)
const endAllowanceMs = (10 + cfg.holdMinutes * 60 + 20 + RECONCILE_EVERY_MS / 1000 + 10) * 1000;
const deadline = Math.min(onSaleAt + cfg.timeLimit * 1000, cfg.budget > 0 ? tStart + cfg.budget * 1000 - endAllowanceMs : Infinity);
if (cfg.budget > 0) log(`the sale stops by t=${Math.round((deadline - onSaleAt) / 1000)} s to finish within the ${cfg.budget}-s budget`);
while (!stopped) {
  await sleep(1_000);
  tick++;
  const pub = await client.request<{ servingCounter: number; queueLength: number; active: number }>(`/api/events/${eventId}/queue`, { endpoint: "monitor", lane: "monitor", headers: { "x-forwarded-for": "192.0.2.250" } });
  if (pub.status === 200) lastPublic = pub.body;
  const rows = (await db().execute(sql`select status, count(*)::int as n from line_items where event_id = ${eventId} and status in ('held','sold') group by status`)) as unknown as { status: string; n: number }[];
  sold = rows.find((r) => r.status === "sold")?.n ?? 0;
  heldNow = rows.find((r) => r.status === "held")?.n ?? 0;
  const t = Math.round((Date.now() - onSaleAt) / 100) / 10;
  timeline.push({ t, queueLength: lastPublic.queueLength, serving: lastPublic.servingCounter, sold, held: heldNow });
  if (sold >= capacity && soldOutAt === null) soldOutAt = Date.now();
  if (tick % 5 === 0) {
    const now = Date.now();
    const rps = Math.round(((client.requests - lastReq) * 1000) / (now - lastReqAt));
    lastReq = client.requests;
    lastReqAt = now;
    const errs = [...client.errors.values()].reduce((a, b) => a + b, 0);
    log(
      `${t < 0 ? "pre-queue" : "on sale"} t=${t}s queue ${lastPublic.queueLength} serving ${lastPublic.servingCounter} active ${lastPublic.active} | joined ${counters.joined} admitted ${counters.admitted} holds ${counters.held} (refused ${counters.holdRefused}) paid ${counters.approved} | seats held ${heldNow} sold ${sold}/${capacity} | ${rps} req/s, CDN hits ${client.cdnHits}, errors ${errs}`,
    );
  }
  if (soldOutAt !== null || Date.now() > deadline) {
    stopped = true;
    stopResolve();
  }
}
const saleEndedAt = Date.now();
log(soldOutAt ? `SOLD OUT ${((soldOutAt - onSaleAt) / 1000).toFixed(1)} s after the on-sale` : `time limit reached with ${sold}/${capacity} sold`);
await Promise.race([Promise.all(lives), sleep(10_000)]); // requests still in flight after that are abandoned, as by fans closing the page

// ---------- convergence ----------
log("waiting for the sweeps and the ledger reconciliation to converge (no pending holds, no captured payment — ours or the PSP's — on an order without tickets)…");
const convergeDeadline = Date.now() + (cfg.holdMinutes * 60 + 20 + RECONCILE_EVERY_MS / 1000) * 1000;
let converged = false;
while (Date.now() < convergeDeadline) {
  const [pending] = (await db().execute(sql`select count(*)::int as n from orders where event_id = ${eventId} and status = 'pending_payment'`)) as unknown as { n: number }[];
  const [paidNoTickets] = (await db().execute(
    sql`select count(*)::int as n from payments p join orders o on o.id = p.order_id where o.event_id = ${eventId} and p.status = 'captured' and o.status <> 'ticketed'`,
  )) as unknown as { n: number }[];
  // The PSP's side: money it holds for an order that is not ticketed, tickets it holds no money for.
  const psp = pending!.n === 0 && paidNoTickets!.n === 0 ? await checkPspInvariants(db(), { eventId, graceMs: 0 }) : null;
  if (psp && psp.pspCapturedWithoutTickets === 0 && psp.pspTicketsWithoutCapture === 0 && psp.pspDoubleCharged === 0) {
    converged = true;
    break;
  }
  await sleep(2_000);
}
const convergedAt = Date.now();
log(`${converged ? "converged" : "NOT converged"} ${((convergedAt - saleEndedAt) / 1000).toFixed(1)} s after the sale ended`);

if (cfg.inject) {
  const { INJECTABLE_VIOLATIONS, injectViolation } = await import("@/lib/simulator/inject");
  const kind = INJECTABLE_VIOLATIONS.find((k) => k === cfg.inject);
  if (!kind) throw new Error(`--inject must be one of ${INJECTABLE_VIOLATIONS.join(", ")}`);
  log(`INJECTED on purpose: ${await injectViolation(db(), eventId, kind)} — this run must fail`);
}
const invariants = await checkInvariants(db(), { eventId, graceMs: 0 });

// Fairness from the waiting room's own records (Redis): the pre-queue draw and the later positions.
const [, preKey, posKey] = queueKeys(eventId);
const preMembers = (await redis().zrange<string[]>(preKey!, 0, -1)) ?? [];
const prePos = new Map(preMembers.map((id, k) => [id, k + 1]));
const laterPos = new Map(Object.entries((await redis().hgetall<Record<string, string | number>>(posKey!)) ?? {}).map(([k, v]) => [k, Number(v)]));
const preSorted = [...preJoins].sort((a, b) => a.doneAt - b.doneAt);
const preWithPos = preSorted.filter((p) => prePos.has(p.fanId));
const laterValues = [...laterPos.values()];
const fairness: FairnessReport = {
  preQueueFans: prePos.size,
  preQueuePermutation: R.isPermutation([...prePos.values()]),
  preQueueRho: R.spearman(preWithPos.map((_, k) => k), preWithPos.map((p) => prePos.get(p.fanId)!)),
  preQueueRhoBound: R.rhoBound(preWithPos.length),
  laterFans: laterPos.size,
  fifoViolations: R.fifoViolations(laterJoins.map((j) => ({ ...j, position: laterPos.get(j.fanId) ?? j.position }))),
  laterRho: R.spearman(laterJoins.map((j) => j.sentAt), laterJoins.map((j) => laterPos.get(j.fanId) ?? j.position)),
  duplicatePositions: laterValues.length - new Set(laterValues).size + [...laterPos.keys()].filter((id) => prePos.has(id)).length,
};
// A forged capture webhook the app accepted is a hole, even if reconciliation voided it later.
const violations = { ...R.violations(invariants, fairness), forgedWebhooksAccepted: counters.forgedAccepted };
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
    },
  ]),
);
const saleSeconds = (saleEndedAt - onSaleAt) / 1000;
const report = {
  ok,
  event: eventId,
  seats: capacity,
  sold,
  ticketsIssued: tickets,
  timeToSellOutSeconds: soldOutAt ? Math.round((soldOutAt - onSaleAt) / 100) / 10 : null,
  saleSeconds: Math.round(saleSeconds * 10) / 10,
  convergeSeconds: Math.round((convergedAt - saleEndedAt) / 100) / 10,
  converged,
  totalSeconds: Math.round((Date.now() - tStart) / 1000),
  violations,
  invariants,
  fairness,
  throughput: {
    joinsPerSecond: endpointStats["queue join"]?.perSecond ?? 0,
    statusReadsByFansPerSecond: Math.round((counters.statusReads / Math.max(1, saleSeconds)) * 10) / 10,
    statusOriginPerSecond: endpointStats["queue status"]?.perSecond ?? 0,
    holdsPerSecond: endpointStats.hold?.perSecond ?? 0,
    paymentsPerSecond: endpointStats["psp approve"]?.perSecond ?? 0,
    originRequests: client.requests,
    originRequestsPerSecond: Math.round(client.requests / Math.max(1, (saleEndedAt - t0Pre) / 1000)),
    cdnHits: client.cdnHits,
  },
  endpoints: endpointStats,
  errors: Object.fromEntries([...client.errors].sort((a, b) => b[1] - a[1])),
  repairs,
  counters,
  fates,
  ordersByStatus,
  config: { ...cfg, holdSeconds: cfg.holdMinutes * 60, url: baseUrl },
  fans: cfg.fans,
  machine: { cores: cpus().length, cpu: cpus()[0]?.model ?? "unknown", memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version },
  timeline,
};

console.log("\n=== on-sale simulation ===");
console.log(
  `ran: ${cfg.fans.toLocaleString("en")} fans (${nPre.toLocaleString("en")} in a ${cfg.preSeconds}-s pre-queue, the rest in a ${cfg.burstSeconds}-s burst), ${capacity.toLocaleString("en")} seats, holds ${cfg.holdMinutes} min (the simulated show's hold time; real shows hold 15), admission ${cfg.rate}/min, active cap ${cfg.cap}; ` +
    `${cfg.url ? cfg.url : `${baseUrls.length} app instance(s)`} + local worker, simulator on the same machine: ${report.machine.cores} × ${report.machine.cpu}, ${report.machine.memoryGiB} GiB, Node ${report.machine.node}`,
);
console.log(`sold ${sold}/${capacity}${report.timeToSellOutSeconds !== null ? ` in ${report.timeToSellOutSeconds} s` : ""}; tickets ${tickets}; orders ${JSON.stringify(ordersByStatus)}; converged in ${report.convergeSeconds} s`);
console.log(`violations: ${Object.entries(violations).map(([k, v]) => `${k} ${v}`).join(", ")}`);
console.log(
  `fairness: pre-queue ${fairness.preQueueFans} fans, permutation ${fairness.preQueuePermutation}, rho ${fairness.preQueueRho.toFixed(4)} (|rho| ≤ ${fairness.preQueueRhoBound.toFixed(4)}); later ${fairness.laterFans} fans, FIFO violations ${fairness.fifoViolations}, rho ${fairness.laterRho.toFixed(4)}`,
);
console.log(`throughput: ${JSON.stringify(report.throughput)}`);
console.log("| endpoint | requests | req/s | p50 ms | p95 ms | p99 ms |\n|---|---|---|---|---|---|");
for (const [name, s] of Object.entries(endpointStats)) console.log(`| ${name} | ${s.requests} | ${s.perSecond} | ${s.p50} | ${s.p95} | ${s.p99} |`);
console.log(`errors: ${JSON.stringify(report.errors)}`);
console.log(`discrepancies found and handled during the run: ${JSON.stringify(repairs)}`);
console.log(`fates: ${JSON.stringify(fates)}; counters: ${JSON.stringify(counters)}`);
if (cfg.json) {
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
  await deleteKeys(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "onsale:*");
  log("dropped stararena_onsale and the onsale: Redis keys");
}
process.exit(ok ? 0 : 1);
