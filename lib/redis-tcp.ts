/**
 * A custom requester for `@upstash/redis` that speaks plain TCP to any Redis (via
 * ioredis), so app code uses one client API whether it runs against Upstash REST or a
 * local Redis (docs/design.md, "Redis").
 *
 * It maps the REST request shapes onto Redis:
 * - `{ body: [cmd, ...args] }` → one command, answered `{ result }` or `{ error }`;
 * - `{ path: ["pipeline"], body: [[…], …] }` → a pipeline, answered per command;
 * - `{ path: ["multi-exec"], body: [[…], …] }` → MULTI/EXEC.
 *
 * Pitfall handled here: `@upstash/ratelimit` ≥ 2.1 ships Lua starting with
 * `#!lua flags=allow-key-locking`, a flag only Upstash knows; stock Redis rejects the
 * script. Scripts are rewritten without unknown shebang flags before EVAL / SCRIPT LOAD,
 * and EVALSHA of the original script's SHA-1 is translated to the rewritten one's, so
 * callers that compute hashes over the original text (ratelimit does) keep working.
 *
 * Redis Cluster (`clusterNodes`): the same shapes over an ioredis `Cluster`, which follows
 * `MOVED`/`ASK` redirections and failovers by itself. Every key of one event shares a hash
 * tag (lib/redis-core.ts), so each Lua call and transaction stays in one slot; pipelines
 * (the Upstash client batches concurrent commands into them) are sent command by command,
 * each to its slot's primary, auto-pipelined per node; SCAN and KEYS go to the one primary
 * that owns the hash tag their pattern names (a pattern without one is refused: it would
 * have to visit every shard).
 */
import { createHash } from "node:crypto";
import IORedis, { Cluster, ReplyError, type ClusterNode, type Redis as IORedisClient } from "ioredis";
import calculateSlot from "cluster-key-slot";
import type { Requester, UpstashRequest, UpstashResponse } from "@upstash/redis";
import { RedisUnavailableError } from "@/lib/errors";
import { noteTiming } from "@/lib/request-scope";


/** Replies that mean "this server cannot serve right now" rather than "this command is wrong". */
const OUTAGE_REPLY = /^(LOADING|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|READONLY|BUSY)\b/;

const CROSS_SLOT = /CROSSSLOT|should belong to the same slot/;

/** A failed command's error as an error reply for the caller, or an outage. */
function classify(error: unknown): { error: string } {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof ReplyError && !OUTAGE_REPLY.test(message)) return { error: message };
  // A cluster client refuses a multi-key command across slots itself (a plain Error): a wrong command, not an outage.
  if (CROSS_SLOT.test(message)) return { error: message };
  throw new RedisUnavailableError(message);
}

/** Shebang flags stock Redis 7 understands; any other flag is stripped. */
const KNOWN_FLAGS = new Set(["no-writes", "allow-oom", "allow-stale", "no-cluster", "allow-cross-slot-keys"]);

type Arg = string | number;

const sha1 = (text: string) => createHash("sha1").update(text).digest("hex");

/**
 * Undoes ioredis's only reply transformer (HGETALL → object) so every reply has the
 * raw RESP shape the REST API returns; nil becomes `null` as in REST.
 */
function restShaped(name: string, result: unknown): unknown {
  if (name.toLowerCase() === "hgetall" && result && typeof result === "object" && !Array.isArray(result)) {
    return Object.entries(result as Record<string, unknown>).flat();
  }
  return result ?? null;
}

/**
 * Returns `script` with unknown `#!lua flags=` entries removed (line count unchanged).
 * A script without a shebang is returned as it is.
 */
export function stripUnknownScriptFlags(script: string): string {
  const match = /^#!lua(?:[ \t]+flags=([^\n]*))?[ \t]*(\n|$)/.exec(script);
  if (!match) return script;
  const flags = (match[1] ?? "")
    .split(",")
    .map((f) => f.trim())
    .filter((f) => KNOWN_FLAGS.has(f));
  const shebang = flags.length > 0 ? `#!lua flags=${flags.join(",")}` : "#!lua";
  return shebang + script.slice(match[0].length - match[2]!.length);
}

/** Options for {@link createTcpRequester}. */
export interface TcpRequesterOptions {
  /** redis:// or rediss:// URL (with `clusterNodes`, only its user, password and TLS are used). */
  url: string;
  /**
   * Seed nodes of a Redis Cluster (`REDIS_CLUSTER_NODES`, lib/env.ts). When given, the
   * requester speaks to the cluster; the client discovers the other nodes from these.
   */
  clusterNodes?: { host: string; port: number }[];
  /** Connection name shown in `CLIENT LIST`. */
  connectionName?: string;
  /**
   * Longest wait for one command's reply, queued ones included (ms; default 2,000). A stalled Redis is cut shorter by the server's deadline (scripts/serve.ts). A request
   * never waits longer than this for a dead or stalled Redis; past it the command fails with
   * {@link RedisUnavailableError}. The hold script's work is idempotent under retry (its
   * idempotency key), and reconciliation repairs a hold Redis made whose reply was lost.
   */
  commandTimeoutMs?: number;
}

/** A requester plus a way to close its connection. */
export interface TcpRequester extends Requester {
  /** The underlying client: one connection, or the cluster client with `clusterNodes`. */
  readonly connection: IORedisClient | Cluster;
  close(): Promise<void>;
}

/** The hash tag a SCAN/KEYS pattern names (braces may be escaped for MATCH), or undefined. */
export function patternHashTag(pattern: string): string | undefined {
  const m = /\{([^{}]+)\}/.exec(pattern.replace(/\\([{}])/g, "$1"));
  return m?.[1];
}

/** One auto-pipelined TCP connection to one Redis. */
function singleConnection(options: TcpRequesterOptions): IORedisClient {
  return new IORedis(options.url, {
    connectionName: options.connectionName ?? "stararena",
    enableAutoPipelining: true,
    // While Redis is away, commands wait in the offline queue for one reconnection attempt
    // at most, then fail fast (they are also bounded by commandTimeout). Reconnection itself
    // goes on forever, every ≤ 1 s, so the app recovers by itself when Redis is back.
    maxRetriesPerRequest: 1,
    commandTimeout: options.commandTimeoutMs ?? 2_000,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(100 * attempt, 1_000),
    lazyConnect: false,
  });
}

/** A cluster client: credentials and TLS from `url`, the same time bounds as one connection. */
function clusterConnection(options: TcpRequesterOptions, nodes: ClusterNode[]): Cluster {
  const u = new URL(options.url);
  return new Cluster(nodes, {
    enableAutoPipelining: true,
    scaleReads: "master",
    // Cluster changes (a failover, a resharding) are followed by refreshing the slot map;
    // until a replica is promoted, commands for its slots fail and answer 503.
    clusterRetryStrategy: (attempt) => Math.min(100 * attempt, 1_000),
    retryDelayOnFailover: 100,
    retryDelayOnClusterDown: 100,
    retryDelayOnTryAgain: 100,
    maxRedirections: 16,
    slotsRefreshTimeout: 2_000,
    redisOptions: {
      connectionName: options.connectionName ?? "stararena",
      username: u.username ? decodeURIComponent(u.username) : undefined,
      password: u.password ? decodeURIComponent(u.password) : undefined,
      tls: u.protocol === "rediss:" ? {} : undefined,
      maxRetriesPerRequest: 1,
      commandTimeout: options.commandTimeoutMs ?? 2_000,
      connectTimeout: 2_000,
    },
  });
}

/**
 * Creates a requester for `new Redis(requester)`: over one auto-pipelined TCP connection, or
 * over a Redis Cluster when `options.clusterNodes` is given.
 */
export function createTcpRequester(options: TcpRequesterOptions): TcpRequester {
  const cluster = options.clusterNodes && options.clusterNodes.length > 0 ? clusterConnection(options, options.clusterNodes) : undefined;
  const connection: IORedisClient | Cluster = cluster ?? singleConnection(options);
  const deadlineMs = options.commandTimeoutMs ?? 2_000;
  connection.on("error", () => {
    // Errors surface on the commands themselves; this keeps ioredis from logging an unhandled 'error' event.
  });
  // Once connected, a command sent while the connection is down fails at once (→ 503) instead
  // of waiting in the offline queue for reconnection attempts: a fast answer beats a hung one,
  // and callers retry. (Before the first connection, commands wait for it, so start-up is smooth.)
  // A cluster client keeps its queue: it parks commands there while it refreshes the slot map
  // after a failover, and the deadline below bounds the wait.
  if (!cluster) {
    connection.once("ready", () => {
      connection.options.enableOfflineQueue = false;
    });
  }
  /** original script SHA-1 → SHA-1 of the script Redis actually has cached. */
  const shaAlias = new Map<string, string>();

  function rewrite(command: Arg[]): Arg[] {
    const name = String(command[0]).toLowerCase();
    if ((name === "eval" || name === "eval_ro") && typeof command[1] === "string") {
      const original = command[1];
      const fixed = stripUnknownScriptFlags(original);
      if (fixed !== original) shaAlias.set(sha1(original), sha1(fixed));
      return [command[0]!, fixed, ...command.slice(2)];
    }
    if ((name === "evalsha" || name === "evalsha_ro") && typeof command[1] === "string") {
      const alias = shaAlias.get(command[1].toLowerCase());
      return alias ? [command[0]!, alias, ...command.slice(2)] : command;
    }
    if (name === "script" && String(command[1]).toLowerCase() === "load" && typeof command[2] === "string") {
      const original = command[2];
      const fixed = stripUnknownScriptFlags(original);
      if (fixed !== original) shaAlias.set(sha1(original), sha1(fixed));
      return [command[0]!, command[1]!, fixed];
    }
    return command;
  }

  /**
   * The client that must run a keyless command: in a cluster, SCAN and KEYS go to the primary
   * owning the hash tag their pattern names.
   * @returns the client, or an error reply for a pattern that names no hash tag.
   */
  async function target(name: string, args: Arg[]): Promise<{ client: IORedisClient | Cluster } | { error: string }> {
    if (!cluster || (name !== "scan" && name !== "keys")) return { client: connection };
    // The slot map is known once the client is ready (a first command may come before).
    if (cluster.status !== "ready") await bounded(new Promise((resolve) => cluster.once("ready", resolve)));
    const pattern = name === "keys" ? String(args[0] ?? "") : String(args[args.findIndex((a) => String(a).toLowerCase() === "match") + 1] ?? "");
    const tag = patternHashTag(pattern);
    if (!tag) return { error: `${name.toUpperCase()} over a Redis Cluster needs a hash tag in its pattern (one event's keys): ${pattern.slice(0, 80)}` };
    const owner = cluster.slots[calculateSlot(`{${tag}}`)]?.[0];
    const node = cluster.nodes("master").find((n) => `${n.options.host}:${n.options.port}` === owner);
    if (!node) throw new RedisUnavailableError(`no primary known for the slot of {${tag}}`);
    return { client: node };
  }

  /** `work`, or RedisUnavailableError once the deadline passes (a cluster mid-failover can park a command). */
  function bounded<T>(work: Promise<T>): Promise<T> {
    if (!cluster) return work;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new RedisUnavailableError(`no answer from the Redis Cluster within ${deadlineMs} ms`)), deadlineMs);
    });
    return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
  }

  async function one(command: Arg[]): Promise<UpstashResponse<unknown>> {
    const [name, ...args] = rewrite(command);
    try {
      const to = await target(String(name).toLowerCase(), args);
      if ("error" in to) return to;
      const result = await bounded(to.client.call(String(name), ...args.map(String)));
      // The REST API answers a nil reply with `result: null`; a script-load answers the
      // SHA of the script as given, so report the original's SHA for rewritten scripts.
      if (String(name).toLowerCase() === "script" && String(args[0]).toLowerCase() === "load" && typeof command[2] === "string") {
        return { result: sha1(command[2]) };
      }
      return { result: restShaped(String(name), result) };
    } catch (error) {
      return classify(error);
    }
  }

  async function batch(commands: Arg[][], transactional: boolean): Promise<UpstashResponse<unknown>[]> {
    // A cluster pipeline may span slots: each command goes to its own slot's primary (the
    // client pipelines per node). A transaction must stay in one slot, as Redis requires.
    if (cluster && !transactional) return Promise.all(commands.map(one));
    const chain = transactional ? connection.multi() : connection.pipeline();
    for (const command of commands) {
      const [name, ...args] = rewrite(command);
      chain.call(String(name), ...args.map(String));
    }
    let replies: [Error | null, unknown][];
    try {
      replies = (await bounded(chain.exec())) ?? [];
    } catch (error) {
      return [classify(error)];
    }
    return replies.map(([error, result], i) => (error ? classify(error) : { result: restShaped(String(commands[i]![0]), result) }));
  }

  return {
    connection,
    async request<TResult>(req: UpstashRequest): Promise<UpstashResponse<TResult>> {
      const started = performance.now();
      try {
        return await answer<TResult>(req);
      } finally {
        noteTiming("redis", performance.now() - started);
      }
    },
    async close() {
      await connection.quit().catch(() => connection.disconnect());
    },
  };

  async function answer<TResult>(req: UpstashRequest): Promise<UpstashResponse<TResult>> {
    const kind = req.path?.[0];
    if (kind === "pipeline" || kind === "multi-exec") {
      // The pipeline client expects the array itself as the response.
      return (await batch(req.body as Arg[][], kind === "multi-exec")) as unknown as UpstashResponse<TResult>;
    }
    if (req.path && req.path.length > 0) {
      return { error: `Unsupported REST path over TCP: /${req.path.join("/")}` };
    }
    return (await one(req.body as Arg[])) as UpstashResponse<TResult>;
  }
}
