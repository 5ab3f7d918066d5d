/**
 * The part of the app's Redis that runs anywhere a `fetch` handler runs (Node, an edge
 * runtime with Upstash REST): key builders and Lua scripts bound to a given client. It
 * imports no Node API and no transport, so the door (lib/door/handler.ts) can use it; the
 * process's own client — TCP or REST — is built in ./redis.ts.
 *
 * Keys: every key starts with REDIS_KEY_PREFIX (tests use one per run), and every key of one
 * event carries the event id as a hash tag, `{evt_…}`, so one event's keys share a cluster
 * slot and one Lua script may touch them all.
 */
import type { Redis } from "@upstash/redis";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";

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

/** A Lua script bound to a client: `exec(keys, args)` runs EVALSHA, falling back to EVAL once. */
export type LuaScript<T> = { exec(keys: string[], args: string[]): Promise<T> };

const scriptCache = new WeakMap<Redis, Map<string, LuaScript<unknown>>>();

/**
 * The cached script object for `source` on `client`. Creating one per call would hash the
 * source again every time (measurable on the hold path, see bench:holds).
 */
export function scriptOn<T>(client: Redis, source: string): LuaScript<T> {
  let byClient = scriptCache.get(client);
  if (!byClient) scriptCache.set(client, (byClient = new Map()));
  let s = byClient.get(source);
  if (!s) byClient.set(source, (s = client.createScript<T>(source) as LuaScript<unknown>));
  return s as LuaScript<T>;
}
