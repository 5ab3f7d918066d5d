/**
 * The on-sale simulator's own StarArena (when no --url is given): a fresh database
 * `stararena_onsale` and Redis prefix `onsale:`, the production build, several instances of
 * scripts/serve.ts as behind a load balancer, the standalone door (scripts/door.ts) unless
 * --no-door, and the local worker, in one process tree
 * (scripts/lib/processes.ts): none outlives the run, and a dead one ends it.
 */
import { deleteKeys } from "@/lib/redis-keys";
import { dropDatabase, ensureDatabase, runMigrations } from "@/lib/migrations";
import { existsSync } from "node:fs";
import { buildIfNeeded, buildIsStale, clearRenderedPages } from "./build";
import { startPrivateDeps, type PrivateDeps } from "./private-deps";
import { supervise, type ProcessSpec, type Supervisor } from "./processes";

/** What the server needs from the run's flags. */
export interface OnsaleServerOptions {
  baseUrls: string[];
  port: number;
  build: "auto" | "always" | "never";
  /** How often the run's worker reconciles, the PSP ledger included (ms). */
  reconcileEveryMs: number;
  /** Also run the standalone door (scripts/door.ts) at this URL, for the waiting room's paths. */
  doorUrl?: string;
  /**
   * The standalone door's CPU niceness (`nice -n`, 0–19; the shop runs at 0). In a flood it is 10
   * (scripts/onsale.ts `--door-nice`): the door yields to the shop, and the crowd (CROWD_NICE, 15)
   * yields to it. On one machine a flood of joins otherwise takes the cores the shop's holds wait
   * for; in the reference case it runs on cores of its own (docs/scaling.md). At 5 (weight 335
   * against the shop's 1,024) the shop's holds still waited on it: on a slower host the hold path's
   * p99 kept the pacer at 200–550 fans/min through a flood of ~560 s (BENCHMARKS.md, 2026-12-06
   * night). Without a flood (the small runs) it is 0, as on cores of its own: at 10 its p99 there
   * is the wait for a core the apps hold (379 ms on the slowest host's CI, 2026-12-07).
   */
  doorNice: number;
  /** Give the app a private Redis and a cuttable Postgres proxy (scripts/lib/private-deps.ts), for outages. */
  outage?: boolean;
  log: (line: string) => void;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

let tree: Supervisor | undefined;
let deps: PrivateDeps | undefined;
let stopping = false;

/** Stops the app instances and the worker (SIGTERM, SIGKILL after 10 s: scripts/lib/processes.ts), then any private dependencies. */
const stopChildren = async () => {
  stopping = true;
  await tree?.stop();
  await deps?.stop();
};
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    void stopChildren().then(() => process.exit(130));
  });
}

/** Stops the app instances and the worker (exported for the run's clean-up). */
export { stopChildren };

/**
 * Prepares the database and the build, starts the instances and the worker, and waits until every instance is healthy.
 * @throws when the build fails or an instance does not become healthy within a minute.
 */
export async function prepareOwnServer(opts: OnsaleServerOptions): Promise<PrivateDeps | undefined> {
  const { baseUrls, log } = opts;
  const baseUrl = baseUrls[0]!;
  const databaseUrl = process.env.DATABASE_URL!;
  if (opts.outage) {
    // The simulator reads this Redis too (fairness, invariants); the app reaches Postgres through the proxy.
    deps = await startPrivateDeps(databaseUrl);
    process.env.REDIS_URL = deps.redisUrl;
    log(`  private Redis at ${deps.redisUrl} (AOF), the app's Postgres through a proxy: ${new URL(deps.databaseUrlViaProxy).host}`);
  }
  log(`preparing database stararena_onsale and Redis prefix onsale: …`);
  await dropDatabase(databaseUrl);
  await deleteKeys(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "onsale:*");
  await ensureDatabase(databaseUrl);
  await runMigrations(databaseUrl);
  // Which production build serves the simulation: a caller's NEXT_DIST_DIR (npm test runs the
  // small variant on its `.next-test`); else the app's own `.next` (made by `npm start`) when it
  // is up to date — the simulator opens API routes only, so pages rendered from the demo
  // database are never served; else a build into `.next-onsale`.
  // `--build never` serves `.next` as it is, stale or not (it used to switch to a `.next-onsale`
  // that was never built, and every instance died at start-up).
  const preset = process.env.NEXT_DIST_DIR;
  process.env.NEXT_DIST_DIR = preset || ".next";
  const ownBuild = !preset && opts.build !== "never" && (opts.build === "always" || buildIsStale());
  if (ownBuild) process.env.NEXT_DIST_DIR = ".next-onsale";
  if (!preset && opts.build === "never") {
    if (!existsSync(".next/BUILD_ID")) throw new Error("--build never: there is no production build in .next (run `npx next build`, or leave out --build never)");
    log(`  --build never: serving the production build in .next${buildIsStale() ? ", although sources changed after it was built" : ""}`);
  } else if (process.env.NEXT_DIST_DIR === ".next") log("  using the up-to-date production build in .next");
  else {
    if (opts.build !== "never") buildIfNeeded(log, opts.build === "always");
    clearRenderedPages();
    log(`  serving the production build in ${process.env.NEXT_DIST_DIR}`);
  }
  // Postgres allows 100 connections here: the app instances share at most 48 (2 × 24), the
  // worker 5, the door 3, the simulator and its crowd 4 each, leaving room for a running `npm
  // start` (and for connections the pools are still closing). Two cores cannot run more than a
  // few transactions at once: with 39 a pool, a 300,000-fan run met "too many clients".
  const poolPerInstance = String(Math.max(4, Math.min(24, Math.floor(48 / baseUrls.length))));
  const childEnv = { ...process.env, NODE_ENV: "production", PAYMENT_PROVIDER: "sandbox", DATABASE_POOL_MAX: poolPerInstance, ...(deps ? { DATABASE_URL: deps.databaseUrlViaProxy } : {}) } as NodeJS.ProcessEnv;
  // Several instances of the app, as behind a load balancer; each sends its sandbox PSP's webhooks
  // to itself. The simulator stands in for the CDN in front of them: it writes each fan's address
  // into X-Forwarded-For, so the instances trust one proxy hop (lib/client-ip.ts).
  const specs: ProcessSpec[] = baseUrls.map((url, k) => {
    const port = String(opts.port + k);
    return {
      name: `app ${port}`,
      script: "scripts/serve.ts",
      args: ["-p", port, "-H", "127.0.0.1"],
      // ONSALE_APP_NODE_ARGS: node flags for the app instances only, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile them.
      // A larger young generation (64 MB semi-spaces, as one would deploy a busy Node server) halves scavenges.
      nodeArgs: ["--max-semi-space-size=64", ...(process.env.ONSALE_APP_NODE_ARGS ?? "").split(" ").filter(Boolean)],
      output: "stderr",
      env: { ...childEnv, PORT: port, APP_URL: url, TRUSTED_PROXY_HOPS: "1" },
    };
  });
  if (opts.doorUrl) {
    const port = new URL(opts.doorUrl).port;
    // The door needs Postgres only to restore a lost queue configuration and for sessions the cookie cache cannot vouch for.
    // ONSALE_DOOR_NODE_ARGS: node flags for the door only (e.g. "--cpu-prof --cpu-prof-dir=DIR").
    // In a flood below the shop's priority, above the crowd's (opts.doorNice): the door's flood yields to the
    // shop, as it would on cores of its own (docs/scaling.md counts six door processes for the
    // reference case), and its backlog waits in the queue where the report shows it.
    specs.push({ name: `door ${port}`, script: "scripts/door.ts", nice: opts.doorNice, args: ["-p", port, "-H", "127.0.0.1"], nodeArgs: (process.env.ONSALE_DOOR_NODE_ARGS ?? "").split(" ").filter(Boolean), output: "stderr", env: { ...childEnv, DOOR_PORT: port, APP_URL: baseUrl, TRUSTED_PROXY_HOPS: "1", DATABASE_POOL_MAX: "3" } });
  }
  specs.push({
    name: "worker",
    script: "scripts/worker.ts",
    // ONSALE_WORKER_NODE_ARGS: node flags for the worker only (e.g. "--cpu-prof --cpu-prof-dir=DIR").
    nodeArgs: (process.env.ONSALE_WORKER_NODE_ARGS ?? "").split(" ").filter(Boolean),
    output: "stderr",
    env: { ...childEnv, APP_URL: baseUrl, WORKER_INTERVAL_MS: "2000", RECONCILE_EVERY_MS: String(opts.reconcileEveryMs), DATABASE_POOL_MAX: "5" },
  });
  tree = supervise(specs, { log, signals: false });
  void tree.done.then(() => {
    if (stopping) return;
    log("✗ a StarArena process of this run died (see above): the simulation cannot go on");
    process.exit(1);
  });
  for (let i = 0; i < 120; i++) {
    const probes = [...baseUrls.map((u) => `${u}/api/health`), ...(opts.doorUrl ? [`${opts.doorUrl}/api/events/evt_0/queue`] : [])];
    const up = await Promise.all(probes.map((u) => fetch(u).then((r) => r.status < 500, () => false)));
    if (up.every(Boolean)) {
      log(`${baseUrls.length} app instance${baseUrls.length === 1 ? "" : "s"} up at ${baseUrls.join(", ")}${opts.doorUrl ? `, the door at ${opts.doorUrl}` : ""} (+ local worker, sweeps every 2 s)`);
      return deps;
    }
    await sleep(500);
  }
  throw new Error(`the server at ${baseUrl} did not become healthy`);
}

