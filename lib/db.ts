/**
 * The one pooled Postgres client (postgres.js) and its drizzle wrapper.
 *
 * Cached on `globalThis` so Next's hot reload does not open a new pool per edit.
 * Pool size comes from DATABASE_POOL_MAX (default 10 per process); a new connection waits
 * at most DATABASE_CONNECT_TIMEOUT_SECONDS (2). Behind a transaction-mode pooler
 * (DATABASE_POOLER=transaction) statements are not prepared by name; nothing else here relies
 * on session state: settings are `set local`, advisory locks are `pg_advisory_xact_lock`, the
 * worker's lease is a row (lib/jobs/lease.ts), and nothing LISTENs.
 *
 * Every query and transaction is bounded in time ({@link bounded}): postgres.js can leave a
 * query waiting forever on a connection whose peer vanished (seen when a connection is reset
 * while idle: the next query on it never settles). A query past its deadline — 1.5 s while
 * Postgres is known to be in trouble (lib/dependency-state.ts), DATABASE_QUERY_TIMEOUT_MS
 * otherwise — fails with `QUERY_TIMEOUT` (→ 503, lib/errors.ts), and the pool it ran on is
 * replaced on the next use, so a stuck connection never keeps a pool slot. {@link db} and
 * {@link sql} hand out stand-ins that always use the pool of the moment, so a process that keeps
 * one (the worker, its lease) is not left holding an ended pool.
 */
import { drizzle, type PostgresJsDatabase } from "drizzle-orm/postgres-js";
import postgres, { type Sql } from "postgres";
import * as schema from "@/db/schema";
import { noteDependencyFailure, troubledDependency } from "@/lib/dependency-state";
import { env } from "@/lib/env";
import { noteTiming } from "@/lib/request-scope";

export type Db = PostgresJsDatabase<typeof schema>;

/**
 * The process's connections: postgres.js clients for plain statements and for transactions
 * ({@link open} says why two), and the bounded client over both.
 */
type Pool = { raw: Sql; rawTx: Sql; sql: Sql };
/** The process's database state: the pool in use, and the stand-in {@link sql} hands out. */
type Cache = { url: string; stuck: boolean; prepare: boolean; pool: Pool; sql: Sql };
const globalForDb = globalThis as unknown as { __stararenaDb?: Cache; __stararenaProbe?: { sql: Sql; url: string } };

/** A query's deadline while Postgres is known to be in trouble (ms). */
export const TROUBLED_QUERY_TIMEOUT_MS = 1_500;

/**
 * The error a query past its deadline fails with (its `code` is counted as an outage: lib/errors.ts).
 * `knownTrouble` marks a timeout under the short deadline of a Postgres already known to be in
 * trouble: it is answered 503 like any, but it is not news — it does not renew the trouble.
 * `neverStarted` marks a transaction that gave up waiting for a connection: nothing of it reached
 * Postgres (lib/errors.ts `certainlyRolledBack`).
 */
function timedOut({ ms, troubled }: Deadline, neverStarted = false): Error & { code: string; knownTrouble: boolean; neverStarted: boolean } {
  return Object.assign(new Error(`Postgres did not answer within ${ms} ms`), { code: "QUERY_TIMEOUT", knownTrouble: troubled, neverStarted });
}

/**
 * Records a query past its deadline: the pool is replaced on its next use (a stuck connection
 * must not keep its slot), and Postgres counts as troubled — unless the deadline was already
 * the troubled one. Renewing the trouble from its own short deadline fed on itself: on a
 * saturated machine (`npm run stack`, 2 cores) queries took 2–7 s, every one past 1.5 s renewed
 * the trouble, and a healthy Postgres was called down for minutes. The health probe
 * (lib/health.ts) and connection errors still renew it while Postgres is really away.
 */
function noteTimeout(deadline: Deadline, cache: { stuck: boolean }): void {
  cache.stuck = true;
  if (!deadline.troubled) noteDependencyFailure("postgres");
}

/** A query's deadline (ms), and whether it is the short one of a Postgres known to be in trouble. */
type Deadline = { ms: number; troubled: boolean };
function deadline(): Deadline {
  const troubled = troubledDependency() === "postgres";
  return { ms: troubled ? TROUBLED_QUERY_TIMEOUT_MS : env().DATABASE_QUERY_TIMEOUT_MS, troubled };
}

type Thenable = PromiseLike<unknown> & Record<string | symbol, unknown>;

/**
 * `query` (a postgres.js PendingQuery, which runs when awaited) with a deadline: awaiting it
 * races the query against a timer; its chained forms (`.values()`, `.raw()`…) are bounded too.
 */
function boundQuery<Q extends Thenable>(query: Q, cache: { stuck: boolean }): Q {
  return new Proxy(query, {
    get(target, prop, receiver) {
      if (prop === "then") {
        return (onFulfilled?: (v: unknown) => unknown, onRejected?: (e: unknown) => unknown) => {
          const d = deadline();
          let timer: NodeJS.Timeout | undefined;
          const expiry = new Promise((_, reject) => {
            timer = setTimeout(() => {
              noteTimeout(d, cache);
              reject(timedOut(d));
            }, d.ms);
          });
          const started = performance.now();
          return Promise.race([Promise.resolve(target), expiry])
            .finally(() => {
              clearTimeout(timer);
              noteTiming("postgres", performance.now() - started);
            })
            .then(onFulfilled, onRejected);
        };
      }
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const out = (value as (...a: unknown[]) => unknown).apply(target, args);
        return out && typeof (out as Thenable).then === "function" && out !== target ? boundQuery(out as Thenable, cache) : out === target ? receiver : out;
      };
    },
  });
}

/**
 * Most parameters a drizzle query may have to be prepared by name ({@link preparedUnsafe}): the
 * hot statements have a handful; lists of ids and bulk inserts, whose text changes with their
 * length, stay unnamed, so a connection keeps a bounded set of prepared statements.
 */
export const MAX_PREPARED_PARAMETERS = 32;

/**
 * drizzle's `unsafe(text, params, { prepare: false })` as a statement prepared by name, when the
 * pool may keep statements (not behind a transaction pooler) and the parameters are few.
 * drizzle asks postgres.js for an unnamed statement unless a query is `.prepare()`d; with
 * parameters, postgres.js then sends Parse + Describe and waits for the answer before Bind +
 * Execute — two round trips, and Postgres parses and plans the text each time. Prepared by
 * name, the text is parsed once per connection and each later run is one round trip: measured
 * step by step, Postgres's CPU per request about halved (BENCHMARKS.md, "The shop step by step").
 */
function preparedUnsafe(args: unknown[], prepare: boolean): unknown[] {
  const [text, params, options] = args as [string, unknown[] | undefined, { prepare?: boolean } | undefined];
  if (!prepare || !Array.isArray(params) || params.length === 0 || params.length > MAX_PREPARED_PARAMETERS || options?.prepare !== false) return args;
  return [text, params, { ...options, prepare: true }];
}

/**
 * The client with every query bounded: tagged-template calls, `unsafe`, and the queries of a
 * transaction; `begin` itself is bounded while it waits for a connection (a transaction whose
 * body had not started when the deadline passed never starts). drizzle's statements are
 * prepared by name where the pool allows ({@link preparedUnsafe}).
 * @param txClient the client whose connections transactions take (`begin`); default `client`.
 */
function bounded(client: Sql, cache: { stuck: boolean; prepare: boolean }, txClient: Sql = client): Sql {
  return new Proxy(client, {
    apply(target, self, args) {
      const out = Reflect.apply(target, self, args) as Thenable;
      // sql`…` is a query; sql(values) / sql(identifier) are fragments used inside one, left as they are.
      return out && typeof out.then === "function" ? boundQuery(out, cache) : out;
    },
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop === "unsafe") return (...args: unknown[]) => boundQuery((value as (...a: unknown[]) => Thenable).apply(target, preparedUnsafe(args, cache.prepare)), cache);
      if (prop === "begin") {
        return (...args: unknown[]) => {
          const body = args.pop() as (tx: Sql) => unknown;
          let started = false;
          let gaveUp = false;
          const d = deadline();
          let timer: NodeJS.Timeout | undefined;
          const expiry = new Promise((_, reject) => {
            timer = setTimeout(() => {
              if (started) return;
              gaveUp = true;
              noteTimeout(d, cache);
              reject(timedOut(d, true));
            }, d.ms);
          });
          const run = (Reflect.get(txClient, "begin") as (...a: unknown[]) => Promise<unknown>).apply(txClient, [
            ...args,
            (tx: Sql) => {
              if (gaveUp) throw timedOut(d, true);
              started = true;
              clearTimeout(timer);
              return body(bounded(tx, cache));
            },
          ]);
          return Promise.race([run, expiry]).finally(() => clearTimeout(timer));
        };
      }
      return value;
    },
  });
}

/**
 * Opens the process's connections: DATABASE_POOL_MAX of them, two thirds for transactions and
 * the rest for plain statements (at least one each). Two postgres.js clients, because
 * postgres.js pipelines a plain statement onto a connection already busy with others, and a
 * transaction's BEGIN sent that way is not given the connection when the write meets
 * backpressure — the transaction then fails with UNSAFE_TRANSACTION (seen in `npm run
 * bench:shop` once statements were prepared by name, which lets plain statements pipeline).
 * A client that runs only transactions never has a busy connection to pipeline onto.
 */
function open(state: Cache): Pool {
  const { DATABASE_POOL_MAX, DATABASE_CONNECT_TIMEOUT_SECONDS, DATABASE_POOLER } = env();
  const txMax = Math.max(1, Math.ceil((DATABASE_POOL_MAX * 2) / 3));
  const options = {
    // A transaction-mode pooler hands each transaction any server connection: a statement
    // prepared on one is unknown on the next (PgBouncer 1.18; ≥ 1.21 can track them).
    prepare: DATABASE_POOLER !== "transaction",
    idle_timeout: 30,
    // A dead Postgres fails a request within this bound (→ 503 postgres_unavailable, lib/errors.ts);
    // the pool reconnects by itself on the next query once it is back.
    connect_timeout: DATABASE_CONNECT_TIMEOUT_SECONDS,
    // postgres.js waits before reconnecting after a failure: by default 3^n / 100 s, up to 20 s,
    // counted across the pool, so after a long outage the app stayed down for up to 20 s after
    // Postgres came back. Capped at 1 s here: recovery follows the database within a second.
    backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 1),
    onnotice: () => {},
    // Named statements are planned for each run's values, as unnamed ones were: a generic plan
    // Postgres caches for a connection is made once, with the statistics of that moment, and
    // kept until something invalidates it. Made while a sale's tables were nearly empty, the
    // worker's sweep kept a nested-loop plan that took 4.7 s a run at 20,000 seats instead of
    // 24 ms (BENCHMARKS.md, "The shop step by step"). Behind a transaction pooler statements are
    // unnamed anyway, and PgBouncer refuses startup parameters it does not know.
    ...(DATABASE_POOLER !== "transaction" ? { connection: { plan_cache_mode: "force_custom_plan" } } : {}),
  };
  const raw = postgres(state.url, { ...options, max: Math.max(1, DATABASE_POOL_MAX - txMax) });
  const rawTx = postgres(state.url, { ...options, max: txMax });
  // drizzle sets the types of the client it wraps (json and timestamps passed through as text,
  // which its columns then map); both clients must read and write values alike, hand-written
  // statements (`sql()`) included, whichever copy of drizzle wraps the pool later.
  drizzle(raw);
  drizzle(rawTx);
  return { raw, rawTx, sql: bounded(raw, state, rawTx) };
}

/** Ends both clients of a pool; statements in flight get `timeout` seconds. */
function endPool(pool: Pool, timeout: number): Promise<unknown> {
  return Promise.all([pool.raw.end({ timeout }), pool.rawTx.end({ timeout })]);
}

/** The pool to use now: a pool with a stuck connection is replaced first (its queries in flight get 5 s to finish). */
function current(state: Cache): Pool {
  if (state.stuck) {
    state.stuck = false;
    const old = state.pool;
    state.pool = open(state);
    void endPool(old, 5).catch(() => {});
  }
  return state.pool;
}

/**
 * A stand-in for `target` whose every use goes to `pick()`'s object of the moment, so a
 * reference kept for the life of a process (the worker's, a lease's) follows the pool
 * replacements instead of holding an ended pool. `target` supplies the callable shape and the
 * prototype (drizzle's `is()` checks).
 */
function following<T extends object>(target: T, pick: () => T): T {
  return new Proxy(target, {
    apply: (_t, self, args) => Reflect.apply(pick() as (...a: unknown[]) => unknown, self, args),
    get: (_t, prop) => {
      const now = pick();
      const value = Reflect.get(now, prop, now);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(now) : value;
    },
  });
}

function connect(): Cache {
  const { DATABASE_URL } = env();
  const cached = globalForDb.__stararenaDb;
  if (cached && cached.url === DATABASE_URL) return cached;
  if (cached) void endPool(cached.pool, 5).catch(() => {});
  // Statements are prepared by name unless a transaction-mode pooler may hand a transaction another server connection.
  const state = { url: DATABASE_URL, stuck: false, prepare: env().DATABASE_POOLER !== "transaction" } as Cache;
  state.pool = open(state);
  state.sql = following(state.pool.sql, () => current(state).sql);
  globalForDb.__stararenaDb = state;
  return state;
}

/**
 * This copy of the module's drizzle wrapper of each pool, and its stand-in. The pool is the
 * process's (on `globalThis`), but the drizzle wrapper is this module copy's own: the HTTP
 * server's API lane (tsx) and Next's bundles each load drizzle and the schema, and drizzle's
 * `is()` checks a query's parts with `instanceof` before walking prototype chains — given
 * another copy's tables, every check walked, and that was 38 % of a capture's CPU in the
 * API lane (BENCHMARKS.md, "The shop step by step").
 */
const wrappers = new WeakMap<Pool, Db>();
let local: { state: Cache; db: Db } | undefined;

/**
 * The drizzle database (lazily connected). The same object for the life of the process: kept
 * references stay valid when a stuck pool is replaced underneath.
 */
export function db(): Db {
  const state = connect();
  if (local?.state !== state) {
    const wrap = (pool: Pool) => {
      let d = wrappers.get(pool);
      if (!d) wrappers.set(pool, (d = drizzle(pool.sql, { schema })));
      return d;
    };
    local = { state, db: following(wrap(state.pool), () => wrap(current(state))) };
  }
  return local.db;
}

/** The raw postgres.js client, for hand-written SQL (every query bounded; follows pool replacements like {@link db}). */
export function sql(): Sql {
  return connect().sql;
}

/** The probe connection's `application_name` in pg_stat_activity. */
export const PROBE_APPLICATION_NAME = "stararena-health-probe";

/**
 * A client of its own with one connection, for liveness probes (lib/health.ts): a probe sent
 * through the pool waits behind every query queued for a connection, so a busy app (all
 * connections in use, under an on-sale's load) read as a dead database and turned its own
 * queries into 503s. On this connection a probe's wait is Postgres's alone.
 */
export function probeSql(): Sql {
  const { DATABASE_URL, DATABASE_CONNECT_TIMEOUT_SECONDS, DATABASE_POOLER } = env();
  const cached = globalForDb.__stararenaProbe;
  if (cached?.url === DATABASE_URL) return cached.sql;
  if (cached) void cached.sql.end({ timeout: 1 }).catch(() => {});
  const probe = postgres(DATABASE_URL, {
    max: 1,
    idle_timeout: 30,
    connect_timeout: DATABASE_CONNECT_TIMEOUT_SECONDS,
    backoff: () => 0.2,
    // As the pool: behind a transaction-mode pooler a named statement would fail every probe,
    // and the process would call Postgres down and cut every query to the outage deadline.
    prepare: DATABASE_POOLER !== "transaction",
    onnotice: () => {},
    connection: { application_name: PROBE_APPLICATION_NAME },
  });
  globalForDb.__stararenaProbe = { sql: probe, url: DATABASE_URL };
  return probe;
}

/**
 * Drops the probe's connection after a failed probe, so the next one connects afresh: a
 * connection whose peer vanished can leave every later query on it waiting, and a probe stuck
 * that way would report Postgres down long after it is back.
 */
export function resetProbe(): void {
  const cached = globalForDb.__stararenaProbe;
  globalForDb.__stararenaProbe = undefined;
  if (cached) void cached.sql.end({ timeout: 0 }).catch(() => {});
}

/** Closes the pool and the probe's connection (scripts and tests call this before exiting). */
export async function closeDb(): Promise<void> {
  const cached = globalForDb.__stararenaDb;
  const probe = globalForDb.__stararenaProbe;
  globalForDb.__stararenaDb = undefined;
  globalForDb.__stararenaProbe = undefined;
  await Promise.all([cached ? endPool(cached.pool, 5) : undefined, probe?.sql.end({ timeout: 1 })]);
}

/** The constraint name of a unique violation (SQLSTATE 23505) anywhere in an error's cause chain, else undefined. */
export function uniqueViolation(error: unknown): string | undefined {
  let e = error as { code?: string; constraint_name?: string; cause?: unknown } | undefined;
  while (e && e.code !== "23505" && e.cause) e = e.cause as typeof e;
  return e?.code === "23505" ? (e.constraint_name ?? "unknown") : undefined;
}

/**
 * A query that starts when it is awaited, as a drizzle query builder does — so that it can
 * sit in a pipeline beside builders and be sent in its place.
 *
 * A pipeline is `Promise.all([q1, q2, …])` on a transaction: postgres.js sends the queries
 * together on the transaction's connection and Postgres runs them in the order sent (one
 * round trip for all). They are sent in the array's order only when every element starts
 * the same way — when `Promise.all` calls its `then` (a builder, or this). A query started
 * earlier jumps the queue: a builder's `.execute()` (sent at once), or a call to an `async`
 * function (sent while the array is still being built). Order matters where a lock or a
 * setting must come first (an advisory lock before a recount, `lock_timeout` before an
 * insert, the order row's lock before its payment's).
 * @param start sends the query and maps its result; called once per `then`.
 */
export function lazyQuery<T>(start: () => PromiseLike<T>): PromiseLike<T> {
  return { then: (onFulfilled, onRejected) => start().then(onFulfilled, onRejected) };
}
