/**
 * `npm run stack`: StarArena on the tiers an operator runs beyond one process (issue 17,
 * docs/scaling.md), from Debian packages, without Docker:
 *
 *   nginx :3400 (proxy_cache for the public queue status and availability, honouring the app's
 *     `s-maxage` / `stale-while-revalidate`; the waiting room's paths to the door)
 *     ├── 3 app instances (scripts/serve.ts) :3401–3403, round robin, no sticky sessions
 *     └── the door (scripts/door.ts) :3409
 *   2 workers (scripts/worker.ts): one sweeps, the other stands by (the lease, lib/jobs/lease.ts)
 *   PgBouncer :6436 in transaction mode → Postgres (database `stararena_stack`)
 *   Redis (REDIS_URL, prefix `stack:`), or with --redis-cluster a local 3-primary cluster :7201–7206
 *
 * Flags:
 *   --sim               run the on-sale simulation through nginx (`--fans` 20,000, `--capacity`
 *                       2,000 seats, the fault mix), report the origin's status reads as the app
 *                       counted them and which worker swept, then stop; exits non-zero on FAIL
 *   --fans N --capacity N   the simulation's size
 *   --redis-cluster     the app's Redis is a local Redis Cluster (3 primaries, 3 replicas)
 * Without --sim it serves the seeded demo at http://127.0.0.1:3400 until Ctrl-C.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadProjectEnv } from "./load-env";
import { buildIfNeeded, clearRenderedPages } from "./lib/build";
import { ensureRunSecrets } from "./lib/local-env";
import { startPgBouncer, startRedisCluster, type LocalRedisCluster } from "./lib/local-tiers";
import { supervise, type ProcessSpec } from "./lib/processes";

loadProjectEnv();
const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(`--${name}`);
const num = (name: string, fallback: number) => {
  const i = argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const n = Number(argv[i + 1]);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive whole number, got ${argv[i + 1]}`);
  return n;
};
const KNOWN = new Set(["--sim", "--fans", "--capacity", "--redis-cluster", "--help"]);
const unknown = argv.filter((a) => a.startsWith("--") && !KNOWN.has(a));
if (flag("help") || unknown.length > 0) {
  if (unknown.length) console.error(`Unknown flag(s): ${unknown.join(" ")}`);
  console.log("npm run stack -- [--sim [--fans N] [--capacity N]] [--redis-cluster]   (see scripts/stack.ts)");
  process.exit(unknown.length ? 2 : 0);
}

const log = (line: string) => console.log(`[stack ${new Date().toISOString().slice(11, 19)}] ${line}`);
const PORTS = { nginx: 3400, apps: [3401, 3402, 3403], door: 3409, pgbouncer: 6436, cluster: 7201 };
const APP_URL = `http://127.0.0.1:${PORTS.nginx}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The committed proxy configuration (deploy/nginx/), shared with docker-compose.yml's `onsale` profile. */
const NGINX_DIR = path.resolve("deploy/nginx");

/**
 * nginx's whole configuration for this machine: the main and events blocks, temp folders in
 * `dir`, and deploy/nginx/onsale.conf.template with its placeholders filled.
 */
export function nginxConfig(dir: string, ports = PORTS): string {
  const values: Record<string, string> = {
    NGINX_CACHE_DIR: `${dir}/cache`,
    NGINX_SNIPPETS: NGINX_DIR,
    APP_1: `127.0.0.1:${ports.apps[0]}`,
    APP_2: `127.0.0.1:${ports.apps[1]}`,
    APP_3: `127.0.0.1:${ports.apps[2]}`,
    DOOR: `127.0.0.1:${ports.door}`,
    LISTEN: `127.0.0.1:${ports.nginx}`,
  };
  const site = readFileSync(path.join(NGINX_DIR, "onsale.conf.template"), "utf8").replace(/\$\{([A-Z0-9_]+)\}/g, (m, name: string) => values[name] ?? m);
  return `worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 8192; }
http {
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
${site}
}
`;
}

/** Starts nginx in the foreground as a child, with its files in a temporary folder. */
async function startNginx(): Promise<{ child: ChildProcess; dir: string }> {
  if (spawnSync("sh", ["-c", "command -v nginx"]).status !== 0) throw new Error("nginx is not installed: apt-get install -y nginx (.ci/run installs it)");
  const dir = mkdtempSync(path.join(tmpdir(), "stararena-nginx-"));
  // nginx's workers run as an unprivileged user when started as root: the cache must be theirs too.
  for (const sub of ["cache", "body", "proxy", "fastcgi", "uwsgi", "scgi"]) mkdirSync(path.join(dir, sub));
  chmodSync(dir, 0o777);
  for (const sub of ["cache", "body", "proxy", "fastcgi", "uwsgi", "scgi"]) chmodSync(path.join(dir, sub), 0o777);
  writeFileSync(path.join(dir, "nginx.conf"), nginxConfig(dir));
  const test = spawnSync("nginx", ["-t", "-p", dir, "-c", path.join(dir, "nginx.conf")], { encoding: "utf8" });
  if (test.status !== 0) throw new Error(`nginx -t failed:\n${test.stderr}`);
  const child = spawn("nginx", ["-p", dir, "-c", path.join(dir, "nginx.conf"), "-g", "daemon off;"], { stdio: ["ignore", "inherit", "inherit"] });
  process.once("exit", () => child.kill("SIGKILL"));
  return { child, dir };
}

// ---------- the tiers ----------
ensureRunSecrets();
const base = new URL(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/stararena");
base.pathname = "/stararena_stack";
const directUrl = base.toString();
process.env.DATABASE_URL = directUrl;
process.env.REDIS_KEY_PREFIX = "stack:";
process.env.PAYMENT_PROVIDER = "sandbox";
process.env.APP_URL = APP_URL;

log("database stararena_stack (fresh), Redis prefix stack:");
const { dropDatabase, ensureDatabase, runMigrations } = await import("@/lib/migrations");
const { deleteKeys } = await import("@/lib/redis-keys");
let cluster: LocalRedisCluster | undefined;
if (flag("redis-cluster")) {
  cluster = await startRedisCluster({ basePort: PORTS.cluster, log });
  process.env.REDIS_CLUSTER_NODES = cluster.envValue;
}
await dropDatabase(directUrl);
await deleteKeys(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "stack:*");
await ensureDatabase(directUrl);
await runMigrations(directUrl);
if (!flag("sim")) {
  const { seedDemo } = await import("@/scripts/lib/seed");
  const { closeDb, db } = await import("@/lib/db");
  const seeded = await seedDemo(db(), { onSaleDelayMinutes: 5 });
  for (const line of seeded.created) log(`  ${line}`);
  await closeDb();
}
/**
 * Client pools sized so that together they fit the pooler's server pool (3 × 12 + 3 + 2 × 4 =
 * 47, plus each process's one health-probe connection: 53 ≤ 60): a request then never queues inside PgBouncer, where the health probe would wait
 * too, call Postgres troubled and cut every query to the outage deadline (seen in the first
 * runs, with pools of 3 × 16 against 60). Two cores run a few transactions at once anyway.
 */
const POOL = { app: 12, door: 3, worker: 4, server: 60 };
const bouncer = await startPgBouncer({ port: PORTS.pgbouncer, upstream: `${base.hostname}:${base.port || 5432}`, poolSize: POOL.server, log });
const pooled = new URL(directUrl);
pooled.host = bouncer.address;

log("build");
buildIfNeeded(log);
clearRenderedPages();

const tierEnv: NodeJS.ProcessEnv = {
  ...process.env,
  NODE_ENV: "production",
  DATABASE_URL: pooled.toString(),
  DATABASE_POOLER: "transaction",
  TRUSTED_PROXY_HOPS: "2",
};
// nginx routes the waiting room's paths to the door; the app instances do not forward them.
delete tierEnv.DOOR_URL;
const specs: ProcessSpec[] = [
  ...PORTS.apps.map((port) => ({
    name: `app ${port}`,
    script: "scripts/serve.ts",
    args: ["-p", String(port), "-H", "127.0.0.1"],
    nodeArgs: ["--max-semi-space-size=64"],
    output: "stderr" as const,
    env: { ...tierEnv, PORT: String(port), DATABASE_POOL_MAX: String(POOL.app) },
  })),
  { name: "door", script: "scripts/door.ts", args: ["-p", String(PORTS.door), "-H", "127.0.0.1"], output: "stderr", env: { ...tierEnv, DATABASE_POOL_MAX: String(POOL.door) } },
  // Two workers on purpose: the lease lets one sweep; the other stands by and takes over if it dies.
  ...["worker A", "worker B"].map((name) => ({ name, script: "scripts/worker.ts", output: "stderr" as const, restart: true, env: { ...tierEnv, WORKER_INTERVAL_MS: "2000", RECONCILE_EVERY_MS: "10000", DATABASE_POOL_MAX: String(POOL.worker) } })),
];
const tree = supervise(specs, { log, signals: false });
const nginx = await startNginx();

let stopping = false;
async function stopAll(code: number): Promise<never> {
  stopping = true;
  nginx.child.kill("SIGTERM");
  await tree.stop();
  await bouncer.stop();
  await cluster?.stop();
  rmSync(nginx.dir, { recursive: true, force: true });
  process.exit(code);
}
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => void stopAll(130));
void tree.done.then(() => {
  if (!stopping) {
    log("✗ a process of the stack died (see above)");
    void stopAll(1);
  }
});

for (let i = 0; ; i++) {
  const probes = [...PORTS.apps.map((p) => `http://127.0.0.1:${p}/api/health`), `http://127.0.0.1:${PORTS.door}/api/events/evt_0/queue`, `${APP_URL}/api/health`];
  const up = await Promise.all(probes.map((u) => fetch(u).then((r) => r.status < 500, () => false)));
  if (up.every(Boolean)) break;
  if (i > 120) {
    log("✗ the stack did not become healthy within a minute");
    await stopAll(1);
  }
  await sleep(500);
}
log(`up: nginx ${APP_URL} → apps ${PORTS.apps.join(", ")} + door ${PORTS.door}; 2 workers; PgBouncer ${bouncer.address}; Redis ${cluster ? `cluster ${cluster.envValue}` : process.env.REDIS_URL ?? "redis://127.0.0.1:6379"}`);

if (!flag("sim")) {
  log(`serving the demo at ${APP_URL} — Ctrl-C stops everything`);
  await new Promise(() => {});
}

// ---------- the simulation through nginx ----------
const workerPids = new Map([...tree.children].filter(([name]) => name.startsWith("worker")).map(([name, c]) => [String(c.pid), name]));
const { sql } = await import("drizzle-orm");
const { closeDb, db } = await import("@/lib/db");
/** Every holder of the sweeps' lease seen during the run, by worker name (the holder id carries the pid). */
const leaders = new Map<string, number>();
const watch = setInterval(() => {
  void db()
    .execute(sql`select holder from worker_leases where name = 'local-worker' and expires_at > now()`)
    .then((rows) => {
      for (const r of rows as unknown as { holder: string }[]) {
        const pid = r.holder.split(":")[1] ?? "";
        const name = workerPids.get(pid) ?? `unknown (${r.holder})`;
        leaders.set(name, (leaders.get(name) ?? 0) + 1);
      }
    })
    .catch(() => {});
}, 1_000);

const fans = num("fans", 20_000);
const capacity = num("capacity", 2_000);
log(`on-sale simulation through nginx: ${fans.toLocaleString("en")} fans, ${capacity.toLocaleString("en")} seats`);
// Asynchronously: the lease watch above must keep running meanwhile.
const simStatus = await new Promise<number>((resolve) => {
  const args = ["tsx", "scripts/onsale.ts", "--url", APP_URL, "--real-cdn", "--fans", String(fans), "--capacity", String(capacity), "--edges", "64", "--pre-seconds", "20", "--burst-seconds", "30", "--budget", "600", "--door-p99-ms", "300", "--json", "test-results/stack-onsale.json"];
  // The door's bound is npm test's 300 ms, not the reference run's 100: here it shares 2 cores with
  // 3 app instances, nginx, PgBouncer, Postgres, the simulator (and with --redis-cluster 6 Redis nodes).
  const child = spawn("npx", args, { stdio: "inherit", env: { ...process.env, DATABASE_URL: directUrl, DATABASE_POOL_MAX: "4" } });
  child.once("exit", (code) => resolve(code ?? 1));
});
clearInterval(watch);
await closeDb();
const sweepers = [...leaders.keys()];
log(`the sweeps' lease was held by: ${[...leaders].map(([name, s]) => `${name} (${s} s)`).join(", ") || "nobody"}; ${sweepers.length === 1 ? "exactly one worker swept, the other stood by" : "✗ more than one worker (or none) held it"}`);
// The cache must have done its job, as the app measured it: status reads did reach the origin
// (the counter works) but at most a few a second (s-maxage=1 behind one nginx: ~1/s), while
// the simulator sent many times more through the cache.
const { readCacheVerdict } = await import("./lib/stack-verdict");
const cache = readCacheVerdict("test-results/stack-onsale.json");
log(cache.line);
const ok = simStatus === 0 && sweepers.length === 1 && cache.ok;
log(ok ? "STACK: PASS" : "STACK: FAIL");
await stopAll(ok ? 0 : 1);
