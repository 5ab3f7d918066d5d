/**
 * Start-up checks for the services StarArena needs (Postgres, Redis): reach them, and
 * when a local one is down and its server is installed on this machine, start it
 * (Postgres through pg_ctlcluster; Redis into the project-local .data/redis folder).
 * Otherwise say exactly what to do.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import path from "node:path";
import IORedis from "ioredis";
import postgres from "postgres";
import { maintenanceUrl } from "@/lib/migrations";

const LOCAL = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function which(bin: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${bin}`], { stdio: "ignore" }).status === 0;
}

/** Resolves to null when Postgres answers at `url`'s server, else the error text. */
async function pingPostgres(url: string): Promise<string | null> {
  const client = postgres(maintenanceUrl(url), { max: 1, connect_timeout: 3, onnotice: () => {} });
  try {
    await client`select 1`;
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end({ timeout: 1 }).catch(() => {});
  }
}

/** Resolves to null when Redis answers PING at `url`, else the error text. */
async function pingRedis(url: string): Promise<string | null> {
  const client = new IORedis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 2_000, retryStrategy: () => null });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.ping();
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    client.disconnect();
  }
}

/** Tries to start a locally installed Postgres cluster (Debian's pg_ctlcluster). */
function startLocalPostgres(): boolean {
  if (!which("pg_ctlcluster") || !existsSync("/etc/postgresql")) return false;
  for (const version of readdirSync("/etc/postgresql")) {
    const r = spawnSync("pg_ctlcluster", ["--skip-systemctl-redirect", version, "main", "start"], { stdio: "inherit" });
    if (r.status === 0) return true;
  }
  return false;
}

/** Starts redis-server without persistence, its files in `<project>/.data/redis`. */
function startLocalRedis(port: number): boolean {
  if (!which("redis-server")) return false;
  const dir = path.join(process.cwd(), ".data", "redis");
  mkdirSync(dir, { recursive: true });
  try {
    execFileSync("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "yes", "--dir", dir, "--logfile", path.join(dir, "redis.log")]);
    return true;
  } catch {
    return false;
  }
}

/** Raised when a service stays unreachable; the message says what to do. */
export class ServiceUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ServiceUnavailableError";
  }
}

async function retry(ping: () => Promise<string | null>, tries: number): Promise<string | null> {
  let last: string | null = "not tried";
  for (let i = 0; i < tries && last; i++) {
    last = await ping();
    if (last) await sleep(500);
  }
  return last;
}

/**
 * Makes sure Postgres answers at `url`, starting the local server when possible.
 * @throws {ServiceUnavailableError} with instructions when it cannot be reached.
 */
export async function ensurePostgres(url: string, log: (line: string) => void): Promise<void> {
  let problem = await pingPostgres(url);
  if (!problem) return;
  const u = new URL(url);
  if (LOCAL.has(u.hostname) && startLocalPostgres()) {
    log("  started the local PostgreSQL cluster");
    problem = await retry(() => pingPostgres(url), 20);
    if (!problem) return;
  }
  throw new ServiceUnavailableError(
    [
      `Postgres is not reachable at ${u.host} (${problem}).`,
      "StarArena needs PostgreSQL 15 or newer. Do one of:",
      "  • start the local server:   pg_ctlcluster 15 main start   (Debian/Ubuntu: apt-get install postgresql)",
      "  • with Docker:              docker compose up -d postgres",
      "  • or point DATABASE_URL at a server you have (see .env.example).",
    ].join("\n"),
  );
}

/**
 * Makes sure Redis answers at `url`, starting a project-local redis-server when possible.
 * @throws {ServiceUnavailableError} with instructions when it cannot be reached.
 */
export async function ensureRedis(url: string, log: (line: string) => void): Promise<void> {
  let problem = await pingRedis(url);
  if (!problem) return;
  const u = new URL(url);
  if (LOCAL.has(u.hostname) && startLocalRedis(Number(u.port || 6379))) {
    log(`  started redis-server on port ${u.port || 6379} (data folder .data/redis, no persistence)`);
    problem = await retry(() => pingRedis(url), 20);
    if (!problem) return;
  }
  throw new ServiceUnavailableError(
    [
      `Redis is not reachable at ${u.host} (${problem}).`,
      "StarArena needs Redis 7. Do one of:",
      "  • install and start it:  apt-get install redis-server && redis-server --daemonize yes --save ''",
      "  • with Docker:           docker compose up -d redis",
      "  • or set REDIS_URL, or UPSTASH_REDIS_REST_URL + UPSTASH_REDIS_REST_TOKEN (see .env.example).",
    ].join("\n"),
  );
}
