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
import { Redis, type Requester } from "@upstash/redis";
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

/**
 * `{id}`: an identifier as a hash tag, for keys a library builds around it (a rate limiter's
 * window keys are `prefix:identifier:window`), so all of them share one cluster slot.
 * @throws {InvalidKeyPartError} for an empty id or one with braces (it would break the tag).
 */
export function hashTagged(id: string): string {
  if (!id || /[{}]/.test(id)) throw new InvalidKeyPartError("identifier", id);
  return `{${id}}`;
}

/** A Lua script bound to a client: `exec(keys, args)` runs EVALSHA, falling back to EVAL once. */
export type LuaScript<T> = { exec(keys: string[], args: string[]): Promise<T> };

/** Raised for a script call whose keys do not all carry one hash tag (a Redis Cluster would refuse it, or worse, a single Redis would not). */
export class CrossSlotKeysError extends AppError {
  constructor(keys: string[]) {
    // Keys come from the builders above; reaching this is a bug, answered 500.
    super("internal", "cross_slot_keys", `A Lua call's keys must share one hash tag: ${keys.slice(0, 4).join(", ")}`);
  }
}

/** The hash tag of a key (the text between its first `{` and the next `}`), or undefined. */
export function keyHashTag(key: string): string | undefined {
  const open = key.indexOf("{");
  if (open < 0) return undefined;
  const close = key.indexOf("}", open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : undefined;
}

/**
 * Checks that a multi-key call stays in one cluster slot by construction: every key carries
 * the same hash tag (one event's, from {@link eventKey}).
 * @throws {CrossSlotKeysError} otherwise
 */
export function assertOneSlot(keys: string[]): void {
  if (keys.length < 2) return;
  const tag = keyHashTag(keys[0]!);
  if (tag === undefined || keys.some((k) => keyHashTag(k) !== tag)) throw new CrossSlotKeysError(keys);
}

const scriptCache = new WeakMap<Redis, Map<string, LuaScript<unknown>>>();

/**
 * An `@upstash/redis` client that hands replies back as Redis sent them. The default client
 * tries `JSON.parse` on every string of a reply, and a status word such as `'OK'` throws inside
 * it: ~12 µs of CPU per script call here (BENCHMARKS.md, "Where the one-seat hold's time goes").
 * Script callers read replies with `String()`/`Number()` anyway, and integers stay numbers.
 * (`opts` is the client's protected command options; `automaticDeserialization: false` is the
 * documented option, which a client built on a requester cannot be given otherwise.)
 */
class RawReplies extends Redis {
  constructor(requester: Requester) {
    super(requester);
    this.opts = { ...this.opts, automaticDeserialization: false };
  }
}

const rawTwins = new WeakMap<Redis, Redis>();

/**
 * `client`'s transport (its requester: our TCP one or Upstash's HTTP client) behind a
 * {@link RawReplies} client; `client` itself if a future `@upstash/redis` keeps its requester
 * elsewhere (replies are then parsed, which callers tolerate, only slower).
 */
function rawTwin(client: Redis): Redis {
  let twin = rawTwins.get(client);
  if (!twin) {
    const requester = (client as unknown as { client?: Requester }).client;
    twin = requester && typeof requester.request === "function" ? new RawReplies(requester) : client;
    rawTwins.set(client, twin);
  }
  return twin;
}

/**
 * The cached script object for `source` on `client`. Creating one per call would hash the
 * source again every time (measurable on the hold path, see bench:holds). Its `exec` refuses
 * keys that do not share one hash tag ({@link assertOneSlot}), so no script call can cross a
 * cluster slot. Replies come back raw (strings stay strings, integers numbers: {@link RawReplies}).
 */
export function scriptOn<T>(client: Redis, source: string): LuaScript<T> {
  let byClient = scriptCache.get(client);
  if (!byClient) scriptCache.set(client, (byClient = new Map()));
  let s = byClient.get(source);
  if (!s) {
    const script = rawTwin(client).createScript<T>(source);
    s = {
      exec(keys, args) {
        try {
          assertOneSlot(keys);
        } catch (e) {
          return Promise.reject(e);
        }
        return script.exec(keys, args);
      },
    };
    byClient.set(source, s);
  }
  return s as LuaScript<T>;
}
