/**
 * Benchmark harness: a production server of this checkout on its own database and Redis
 * key prefix (freshly migrated and seeded), and autocannon runs against it.
 */
import { readFileSync } from "node:fs";
import autocannon from "autocannon";
import { buildIfNeeded, clearRenderedPages } from "./build";
import { ensureRunSecrets } from "./local-env";
import { supervise } from "./processes";
import { dropDatabase, ensureDatabase, runMigrations } from "@/lib/migrations";
import { seedDemo } from "@/scripts/lib/seed";
import { closeDb, db } from "@/lib/db";

/** A running bench server. */
export interface BenchServer {
  url: string;
  /** The standalone door (scripts/door.ts), when asked for. */
  doorUrl?: string;
  databaseUrl: string;
  /** The serving processes' ids: the app (scripts/serve.ts) and, when started, the door. */
  pids: { server: number; door?: number };
  stop(): Promise<void>;
}

/**
 * Builds if needed, prepares `stararena_bench`, starts scripts/serve.ts on `port` (and, with
 * `opts.doorPort`, the standalone door scripts/door.ts on the same database and Redis prefix)
 * and waits until they answer.
 */
export async function startBenchServer(port: number, log: (s: string) => void, opts: { doorPort?: number } = {}): Promise<BenchServer> {
  const base = new URL(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/stararena");
  base.pathname = "/stararena_bench";
  const databaseUrl = base.toString();
  process.env.DATABASE_URL = databaseUrl;
  // A production server refuses to start without secrets and a payment provider: this run's own (random, in memory).
  ensureRunSecrets();
  process.env.PAYMENT_PROVIDER = "sandbox";
  log("preparing database stararena_bench (drop, migrate, seed)…");
  await dropDatabase(databaseUrl);
  await ensureDatabase(databaseUrl);
  await runMigrations(databaseUrl);
  await seedDemo(db(), { onSaleDelayMinutes: 0 });
  await closeDb();
  buildIfNeeded(log);
  clearRenderedPages();
  const url = `http://127.0.0.1:${port}`;
  // autocannon stands in for a CDN writing each client's address into X-Forwarded-For: one trusted hop.
  const serverEnv = { ...process.env, DATABASE_URL: databaseUrl, REDIS_KEY_PREFIX: `bench:${Date.now().toString(36)}:`, APP_URL: url, PORT: String(port), SANDBOX_PSP_DISPATCHER: "0", TRUSTED_PROXY_HOPS: "1" };
  const doorUrl = opts.doorPort ? `http://127.0.0.1:${opts.doorPort}` : undefined;
  const tree = supervise(
    [
      { name: "bench server", script: "scripts/serve.ts", args: ["-p", String(port), "-H", "127.0.0.1"], output: "ignore", env: serverEnv },
      // BENCH_DOOR_NODE_ARGS: node flags for the door only, e.g. "--cpu-prof --cpu-prof-dir=DIR" to profile it.
      ...(opts.doorPort
        ? [{ name: "bench door", script: "scripts/door.ts", args: ["-p", String(opts.doorPort), "-H", "127.0.0.1"], output: "ignore" as const, env: serverEnv, nodeArgs: (process.env.BENCH_DOOR_NODE_ARGS ?? "").split(" ").filter(Boolean) }]
        : []),
    ],
    { log, signals: true },
  );
  const up = async (probe: string) => {
    for (let i = 0; i < 120; i++) {
      if (await fetch(probe).then((r) => r.status < 500, () => false)) return;
      await new Promise((r) => setTimeout(r, 500));
    }
    throw new Error(`${probe} did not answer within 60 s`);
  };
  await up(`${url}/api/health`);
  if (doorUrl) await up(`${doorUrl}/api/events/evt_0/queue`);
  log(`server up at ${url}${doorUrl ? `, door at ${doorUrl}` : ""}`);
  return {
    url,
    doorUrl,
    databaseUrl,
    pids: { server: tree.children.get("bench server")!.pid!, door: tree.children.get("bench door")?.pid },
    async stop() {
      await tree.stop();
    },
  };
}

/**
 * CPU time a process has used so far (user + system, all its threads), in seconds, from Linux's
 * `/proc/<pid>/stat` (clock ticks: 10 ms). Finer than `ps`'s `cputimes` (whole seconds,
 * scripts/lib/process-usage.ts), which is too coarse to divide by a few seconds' requests.
 * @throws when the process is gone or this is not Linux.
 */
export function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces, hence the last ')'): state is 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

/** `getconf CLK_TCK`: 100 on every Linux this runs on (the kernel's USER_HZ, fixed by its ABI). */
const CLOCK_TICKS_PER_SECOND = 100;

/** One autocannon run's figures: requests per second (mean over the run) and latency percentiles (ms). */
export interface RunResult {
  rps: number;
  /** Requests answered during the run. */
  requests: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** Runs autocannon for `seconds` with `connections`; `setup` may rewrite each request (headers, path, body). */
export async function load(opts: {
  url: string;
  method?: "GET" | "POST";
  seconds: number;
  connections: number;
  headers?: Record<string, string>;
  setupRequest?: (req: { headers?: Record<string, string>; path?: string; method?: string; body?: string }) => typeof req;
}): Promise<RunResult> {
  const result = await autocannon({
    url: opts.url,
    method: opts.method ?? "GET",
    duration: opts.seconds,
    connections: opts.connections,
    headers: opts.headers,
    requests: opts.setupRequest ? [{ setupRequest: opts.setupRequest as never }] : undefined,
  });
  return {
    rps: result.requests.average,
    requests: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** Median of numbers. */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
