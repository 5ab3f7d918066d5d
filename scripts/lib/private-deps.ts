/**
 * Dependencies a test may break (the on-sale simulator's `--outage`): a private Redis on a
 * spare port, durable (AOF, fsync on every write, as one would run the waiting room's Redis
 * in production), so killing it with SIGKILL and starting it again is a crash and a restart,
 * not a flush. Its AOF lives on tmpfs (/dev/shm) when there is one: the crash simulated is the
 * process's, not the machine's, so the file survives it, and this box's one shared disk (busy
 * with Postgres's writes during a sale) would otherwise add its fsync time — 100+ ms at the p99,
 * measured in CI — to every join, which a production Redis on a disk of its own does not pay;
 * and a cuttable TCP proxy in front of the shared Postgres
 * (lib/testing/tcp-proxy.ts), so the app's database connections can be reset and refused
 * while the simulator's own look at the database goes on.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { startTcpProxy, type TcpProxy } from "@/lib/testing/tcp-proxy";

/** The private dependencies of one run. */
export interface PrivateDeps {
  /** redis:// URL of the private Redis. */
  redisUrl: string;
  /** `databaseUrl` rewritten to go through the proxy. */
  databaseUrlViaProxy: string;
  /** SIGKILL the Redis server (a crash). */
  killRedis(): Promise<void>;
  /** Starts it again on the same port and data directory; resolves when it answers PING. */
  startRedis(): Promise<void>;
  cutPostgres(): Promise<void>;
  restorePostgres(): Promise<void>;
  stop(): Promise<void>;
}

async function sparePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

async function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = net.connect(port, "127.0.0.1");
    c.setTimeout(500);
    c.on("connect", () => c.write("PING\r\n"));
    c.on("data", (d) => {
      resolve(d.toString().startsWith("+PONG"));
      c.destroy();
    });
    c.on("error", () => resolve(false));
    c.on("timeout", () => {
      resolve(false);
      c.destroy();
    });
  });
}

/**
 * Starts the private Redis and the Postgres proxy.
 * @param databaseUrl the database the app should reach through the proxy
 * @throws when redis-server is not installed or does not answer within 10 s
 */
export async function startPrivateDeps(databaseUrl: string): Promise<PrivateDeps> {
  const dir = mkdtempSync(path.join(existsSync("/dev/shm") ? "/dev/shm" : tmpdir(), "stararena-redis-"));
  const port = await sparePort();
  let redis: ChildProcess | null = null;
  const startRedis = async () => {
    redis = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "yes", "--appendfsync", "always", "--dir", dir], { stdio: "ignore" });
    for (let i = 0; i < 100; i++) {
      if (await answersPing(port)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`the private redis-server on port ${port} did not answer`);
  };
  await startRedis();
  const pg = new URL(databaseUrl);
  const proxy: TcpProxy = await startTcpProxy({ host: pg.hostname, port: Number(pg.port || 5432) });
  const via = new URL(databaseUrl);
  via.hostname = "127.0.0.1";
  via.port = String(proxy.port);
  return {
    redisUrl: `redis://127.0.0.1:${port}`,
    databaseUrlViaProxy: via.toString(),
    async killRedis() {
      const r = redis;
      if (!r || r.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        r.once("exit", () => resolve());
        r.kill("SIGKILL");
      });
    },
    startRedis,
    cutPostgres: () => proxy.cut(),
    restorePostgres: () => proxy.restore(),
    async stop() {
      await proxy.close();
      redis?.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
