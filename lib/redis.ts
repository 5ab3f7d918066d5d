/**
 * The app's Redis: always an `@upstash/redis` client (docs/design.md, "Redis").
 * - With UPSTASH_REDIS_REST_URL + UPSTASH_REDIS_REST_TOKEN it speaks Upstash REST.
 * - Otherwise it speaks TCP to REDIS_URL through the custom requester in ./redis-tcp.
 *
 * Keys: every key starts with REDIS_KEY_PREFIX (tests use one per run), and every key
 * of one event carries the event id as a hash tag, `{evt_…}`, so one event's keys share
 * a cluster slot and one Lua script may touch them all.
 */
import { AppError } from "@/lib/errors";
import { Redis } from "@upstash/redis";
import { env } from "@/lib/env";
import { createTcpRequester, type TcpRequester } from "@/lib/redis-tcp";

type Cache = { redis: Redis; tcp?: TcpRequester; key: string };
const globalForRedis = globalThis as unknown as { __stararenaRedis?: Cache };

/** Which transport the client uses. */
export function redisTransport(): "rest" | "tcp" {
  const e = env();
  return e.UPSTASH_REDIS_REST_URL && e.UPSTASH_REDIS_REST_TOKEN ? "rest" : "tcp";
}

/** The process-wide Redis client (one connection or REST client, survives hot reload). */
export function redis(): Redis {
  const e = env();
  const key = `${e.UPSTASH_REDIS_REST_URL ?? ""}|${e.REDIS_URL}`;
  const cached = globalForRedis.__stararenaRedis;
  if (cached && cached.key === key) return cached.redis;
  let created: Cache;
  if (redisTransport() === "rest") {
    created = {
      key,
      redis: new Redis({ url: e.UPSTASH_REDIS_REST_URL!, token: e.UPSTASH_REDIS_REST_TOKEN!, enableTelemetry: false }),
    };
  } else {
    const tcp = createTcpRequester({ url: e.REDIS_URL, commandTimeoutMs: e.REDIS_COMMAND_TIMEOUT_MS });
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

const EVENT_ID = /^evt_[0-9a-z]{1,32}$/;

/** Raised for an id that cannot be part of a key (it would break the hash tag). */
export class InvalidKeyPartError extends AppError {
  constructor(what: string, value: string) {
    // Ids are validated at the edge (lib/ids.ts): reaching this is a bug, answered 500.
    super("internal", "invalid_key_part", `Invalid ${what} for a Redis key: ${JSON.stringify(value.slice(0, 80))}`);
  }
}

/**
 * Key of one event's data: `${prefix}{evt_…}:part:part`. All keys of an event share the hash tag.
 * @throws {InvalidKeyPartError} when `eventId` is not an `evt_…` id.
 */
export function eventKey(eventId: string, ...parts: (string | number)[]): string {
  if (!EVENT_ID.test(eventId)) throw new InvalidKeyPartError("event id", eventId);
  return `${env().REDIS_KEY_PREFIX}{${eventId}}:${parts.join(":")}`;
}

/** Key outside any event (e.g. rate limits): `${prefix}part:part`. */
export function globalKey(...parts: (string | number)[]): string {
  return `${env().REDIS_KEY_PREFIX}${parts.join(":")}`;
}

/** A Lua script bound to the process's client: `exec(keys, args)` runs EVALSHA, falling back to EVAL once. */
export type LuaScript<T> = { exec(keys: string[], args: string[]): Promise<T> };

const scriptCache = new WeakMap<Redis, Map<string, LuaScript<unknown>>>();

/**
 * The cached script object for `source` on the current client. Creating one per call
 * would hash the source again every time (measurable on the hold path, see bench:holds).
 */
export function luaScript<T>(source: string): LuaScript<T> {
  const client = redis();
  let byClient = scriptCache.get(client);
  if (!byClient) scriptCache.set(client, (byClient = new Map()));
  let s = byClient.get(source);
  if (!s) byClient.set(source, (s = client.createScript<T>(source) as LuaScript<unknown>));
  return s as LuaScript<T>;
}
