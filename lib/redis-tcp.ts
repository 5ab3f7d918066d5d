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
 */
import { createHash } from "node:crypto";
import IORedis, { ReplyError, type Redis as IORedisClient } from "ioredis";
import type { Requester, UpstashRequest, UpstashResponse } from "@upstash/redis";
import { RedisUnavailableError } from "@/lib/errors";
import { noteTiming } from "@/lib/request-scope";


/** Replies that mean "this server cannot serve right now" rather than "this command is wrong". */
const OUTAGE_REPLY = /^(LOADING|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|READONLY|BUSY)\b/;

/** A failed command's error as an error reply for the caller, or an outage. */
function classify(error: unknown): { error: string } {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof ReplyError && !OUTAGE_REPLY.test(message)) return { error: message };
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
  /** redis:// or rediss:// URL. */
  url: string;
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
  /** The underlying TCP connection (tests and the rebuild scripts use it for SCAN/FLUSH). */
  readonly connection: IORedisClient;
  close(): Promise<void>;
}

/** Creates a requester for `new Redis(requester)` over one auto-pipelined TCP connection. */
export function createTcpRequester(options: TcpRequesterOptions): TcpRequester {
  const connection = new IORedis(options.url, {
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
  connection.on("error", () => {
    // Errors surface on the commands themselves; this keeps ioredis from logging an unhandled 'error' event.
  });
  // Once connected, a command sent while the connection is down fails at once (→ 503) instead
  // of waiting in the offline queue for reconnection attempts: a fast answer beats a hung one,
  // and callers retry. (Before the first connection, commands wait for it, so start-up is smooth.)
  connection.once("ready", () => {
    connection.options.enableOfflineQueue = false;
  });
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

  async function one(command: Arg[]): Promise<UpstashResponse<unknown>> {
    const [name, ...args] = rewrite(command);
    try {
      const result = await connection.call(String(name), ...args.map(String));
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
    const chain = transactional ? connection.multi() : connection.pipeline();
    for (const command of commands) {
      const [name, ...args] = rewrite(command);
      chain.call(String(name), ...args.map(String));
    }
    let replies: [Error | null, unknown][];
    try {
      replies = (await chain.exec()) ?? [];
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
