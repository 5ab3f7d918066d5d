/**
 * The app's Redis: always an `@upstash/redis` client (docs/design.md, "Redis").
 * - With UPSTASH_REDIS_REST_URL + UPSTASH_REDIS_REST_TOKEN it speaks Upstash REST.
 * - Otherwise it speaks TCP through the custom requester in ./redis-tcp: to REDIS_URL, or to
 *   the Redis Cluster whose seed nodes REDIS_CLUSTER_NODES lists.
 *
 * Keys and scripts: ./redis-core.ts (every key of one event shares the event's hash tag).
 */
import { Redis } from "@upstash/redis";
import { env } from "@/lib/env";
import { scriptOn, type LuaScript } from "@/lib/redis-core";
import { createTcpRequester, type TcpRequester } from "@/lib/redis-tcp";

type Cache = { redis: Redis; tcp?: TcpRequester; key: string };
const globalForRedis = globalThis as unknown as { __stararenaRedis?: Cache };

/** Which transport the client uses. */
export function redisTransport(): "rest" | "tcp" {
  const e = env();
  return e.UPSTASH_REDIS_REST_URL && e.UPSTASH_REDIS_REST_TOKEN ? "rest" : "tcp";
}

/** What the process's Redis client is built from: a new value means a new client (tests change it). */
export function redisConfigKey(): string {
  const e = env();
  return `${e.UPSTASH_REDIS_REST_URL ?? ""}|${e.REDIS_URL}|${(e.REDIS_CLUSTER_NODES ?? []).map((n) => `${n.host}:${n.port}`).join(",")}`;
}

/** The process-wide Redis client (one connection or REST client, survives hot reload). */
export function redis(): Redis {
  const e = env();
  const key = redisConfigKey();
  const cached = globalForRedis.__stararenaRedis;
  if (cached && cached.key === key) return cached.redis;
  let created: Cache;
  if (redisTransport() === "rest") {
    created = {
      key,
      redis: new Redis({ url: e.UPSTASH_REDIS_REST_URL!, token: e.UPSTASH_REDIS_REST_TOKEN!, enableTelemetry: false }),
    };
  } else {
    const tcp = createTcpRequester({ url: e.REDIS_URL, clusterNodes: e.REDIS_CLUSTER_NODES, commandTimeoutMs: e.REDIS_COMMAND_TIMEOUT_MS });
    created = { key, tcp, redis: new Redis(tcp) };
  }
  globalForRedis.__stararenaRedis = created;
  return created.redis;
}

/** Closes the TCP connection, if any (scripts and tests call this before exiting). */
export async function closeRedis(): Promise<void> {
  const cached = globalForRedis.__stararenaRedis;
  globalForRedis.__stararenaRedis = undefined;
  await cached?.tcp?.close();
}

/** Key builders and the Lua binding live in ./redis-core.ts (runtime-neutral); re-exported for the app's Node code. */
export { eventKey, globalKey, hashTagged, InvalidKeyPartError, type LuaScript } from "@/lib/redis-core";

/** The cached script object for `source` on the process's client (lib/redis-core.ts `scriptOn`). */
export function luaScript<T>(source: string): LuaScript<T> {
  return scriptOn<T>(redis(), source);
}
