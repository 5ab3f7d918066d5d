/**
 * Local stand-ins for the distributed tiers an operator runs (docs/scaling.md): a Redis Cluster
 * of stock `redis-server` processes and a PgBouncer in transaction mode, both from Debian's
 * packages, started on spare ports for tests (scripts/test-distributed.ts) and the on-sale stack
 * (scripts/stack.ts). Each start first stops whatever an earlier, interrupted run left on its
 * ports, and every process is stopped when this one exits.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { appendFileSync, chownSync, closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { userInfo } from "node:os";
import { tmpdir } from "node:os";
import path from "node:path";

/** A started Redis Cluster. */
export interface LocalRedisCluster {
  /** Every node as `host:port` seeds (primaries first). */
  readonly nodes: { host: string; port: number }[];
  /** `REDIS_CLUSTER_NODES` for these nodes. */
  readonly envValue: string;
  /** Folder of the nodes' configuration files (a restarted node reads its own back). */
  readonly dir: string;
  /** `cluster-node-timeout` of the nodes (ms). */
  readonly nodeTimeoutMs: number;
  stop(): Promise<void>;
}

const children = new Set<ChildProcess>();
let exitHookInstalled = false;
function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once("exit", () => children.delete(child));
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once("exit", () => {
      for (const c of children) c.kill("SIGKILL");
    });
  }
  return child;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function redisCli(args: string[], timeoutMs = 10_000): { ok: boolean; out: string } {
  const r = spawnSync("redis-cli", args, { encoding: "utf8", timeout: timeoutMs });
  return { ok: r.status === 0, out: `${r.stdout ?? ""}${r.stderr ?? ""}` };
}

function need(binary: string, pkg: string): void {
  if (spawnSync("sh", ["-c", `command -v ${binary}`]).status !== 0) {
    throw new Error(`${binary} is not installed: apt-get install -y ${pkg} (.ci/run installs it)`);
  }
}

async function waitFor(what: string, ok: () => boolean, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

/**
 * Starts one cluster-enabled `redis-server` on `port` with its configuration in `dir` (a node
 * restarted after a crash reads its cluster state back from there and rejoins), no persistence.
 * Resolves when it answers PING.
 */
export async function startRedisNode(port: number, dir: string, nodeTimeoutMs: number): Promise<void> {
  track(
    spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--cluster-enabled", "yes", "--cluster-config-file", `nodes-${port}.conf`, "--cluster-node-timeout", String(nodeTimeoutMs), "--save", "", "--appendonly", "no", "--dir", dir, "--logfile", `redis-${port}.log`],
      { stdio: "ignore" },
    ),
  );
  await waitFor(`redis-server on ${port}`, () => redisCli(["-p", String(port), "ping"], 1_000).out.includes("PONG"), 10_000);
}

/**
 * Starts `primaries` primaries with `replicas` replicas each on consecutive ports from
 * `basePort`, joins them with `redis-cli --cluster create`, and waits until every slot is
 * served and every replica is in sync.
 * @param opts.nodeTimeoutMs `cluster-node-timeout` (ms): how soon a dead primary's replica takes over (default 2,000)
 * @throws when redis-server is missing or the cluster does not form within 60 s
 */
export async function startRedisCluster(opts: { basePort: number; primaries?: number; replicas?: number; nodeTimeoutMs?: number; log?: (line: string) => void }): Promise<LocalRedisCluster> {
  need("redis-server", "redis-server");
  const primaries = opts.primaries ?? 3;
  const replicas = opts.replicas ?? 1;
  const ports = Array.from({ length: primaries * (1 + replicas) }, (_, i) => opts.basePort + i);
  const dir = mkdtempSync(path.join(tmpdir(), "stararena-cluster-"));
  const log = opts.log ?? (() => {});
  for (const port of ports) redisCli(["-p", String(port), "shutdown", "nosave"], 2_000);

  const startNode = (port: number) => startRedisNode(port, dir, opts.nodeTimeoutMs ?? 2_000);
  await Promise.all(ports.map(startNode));
  const create = redisCli(["--cluster", "create", ...ports.map((p) => `127.0.0.1:${p}`), "--cluster-replicas", String(replicas), "--cluster-yes"], 30_000);
  if (!create.ok) throw new Error(`redis-cli --cluster create failed:\n${create.out}`);
  await waitFor(
    "the cluster to cover every slot",
    () => ports.every((p) => redisCli(["-p", String(p), "cluster", "info"], 1_000).out.includes("cluster_state:ok")) && redisCli(["--cluster", "check", `127.0.0.1:${ports[0]}`], 5_000).out.includes("All 16384 slots covered"),
    60_000,
  );
  log(`  Redis Cluster: ${primaries} primaries + ${primaries * replicas} replicas on ${ports[0]}–${ports.at(-1)} (${dir})`);
  const nodes = ports.map((port) => ({ host: "127.0.0.1", port }));
  return {
    nodes,
    envValue: nodes.map((n) => `${n.host}:${n.port}`).join(","),
    dir,
    nodeTimeoutMs: opts.nodeTimeoutMs ?? 2_000,
    async stop() {
      for (const port of ports) redisCli(["-p", String(port), "shutdown", "nosave"], 2_000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A started PgBouncer. */
export interface LocalPgBouncer {
  /** `host:port` to put in a postgres:// URL instead of Postgres's own. */
  readonly address: string;
  stop(): Promise<void>;
}

/**
 * Starts PgBouncer in transaction mode on `port`, in front of the Postgres at
 * `upstream` (`host:port`, trust auth as on this machine), for any database name.
 * @param opts.poolSize server connections per database/user pair (`default_pool_size`)
 * @param opts.logFile where `stop()` appends PgBouncer's log (its logins, pool waits and errors)
 * @throws when pgbouncer is missing or does not accept connections within 10 s
 */
export async function startPgBouncer(opts: { port: number; upstream?: string; poolSize?: number; maxClients?: number; logFile?: string; log?: (line: string) => void }): Promise<LocalPgBouncer> {
  need("pgbouncer", "pgbouncer");
  const [host, upstreamPort] = (opts.upstream ?? "127.0.0.1:5432").split(":");
  const dir = mkdtempSync(path.join(tmpdir(), "stararena-pgbouncer-"));
  const ini = path.join(dir, "pgbouncer.ini");
  const logFile = path.join(dir, "pgbouncer.log");
  const asRoot = userInfo().uid === 0;
  writeFileSync(path.join(dir, "userlist.txt"), `"postgres" ""\n`);
  writeFileSync(
    ini,
    [
      "[databases]",
      `* = host=${host} port=${upstreamPort}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${opts.port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${path.join(dir, "userlist.txt")}`,
      "pool_mode = transaction",
      `default_pool_size = ${opts.poolSize ?? 20}`,
      `max_client_conn = ${opts.maxClients ?? 1_000}`,
      // postgres.js sends none of these; other drivers and psql do.
      "ignore_startup_parameters = extra_float_digits,options",
      "server_reset_query =",
      // A failed server login (a database just created or just dropped) is retried after 1 s, not 15.
      "server_login_retry = 1",
      `pidfile = ${path.join(dir, "pgbouncer.pid")}`,
      // PgBouncer refuses to run as root; started as root it switches to this user.
      ...(asRoot ? ["user = postgres"] : []),
      "",
    ].join("\n"),
  );
  if (asRoot) {
    const pg = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
    const gid = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
    const uid = Number(pg.stdout.trim());
    if (Number.isFinite(uid)) for (const f of ["", "userlist.txt", "pgbouncer.ini"]) chownSync(path.join(dir, f), uid, Number(gid.stdout.trim()));
  }
  // A PgBouncer an interrupted run left on this port would answer instead of ours.
  spawnSync("sh", ["-c", `pkill -f "pgbouncer.*stararena-pgbouncer" || true`]);
  // Its log goes to a file, never to a pipe: a parent that blocks its event loop (spawnSync of
  // Vitest in scripts/test-distributed.ts) stops draining a pipe, and once 64 KiB of log filled
  // it PgBouncer blocked on write(2) and froze — logins then timed out until the parent woke.
  const logFd = openSync(logFile, "a");
  const child = track(spawn("pgbouncer", [ini], { stdio: ["ignore", "ignore", logFd] }));
  closeSync(logFd);
  const stderrTail = () => readFileSync(logFile, "utf8").slice(-500);
  await waitFor(
    `pgbouncer on ${opts.port}`,
    () => {
      if (child.exitCode !== null) throw new Error(`pgbouncer exited (${child.exitCode}): ${stderrTail()}`);
      return spawnSync("pg_isready", ["-h", "127.0.0.1", "-p", String(opts.port), "-t", "1"]).status === 0;
    },
    10_000,
  );
  opts.log?.(`  PgBouncer (transaction mode, pool ${opts.poolSize ?? 20}) on 127.0.0.1:${opts.port} → ${host}:${upstreamPort}`);
  return {
    address: `127.0.0.1:${opts.port}`,
    async stop() {
      child.kill("SIGTERM");
      await new Promise((r) => (child.exitCode !== null ? r(null) : child.once("exit", r)));
      // The folder goes; the log is kept where the caller asked.
      if (opts.logFile && existsSync(logFile)) appendFileSync(opts.logFile, readFileSync(logFile));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
