/**
 * The pool's stand-ins (lib/db.ts): a reference to `db()` or `sql()` kept for the life of a
 * process (the local worker keeps one) still works after a query past its deadline has had
 * its pool replaced — the sweeps once stopped for good after a Postgres cut that way.
 *
 * Pipelines keep their order only when every query starts when Promise.all calls `then`
 * (lib/db.ts `lazyQuery`): shown against the real Postgres with a transaction-local setting
 * that the first statement sets and the second reads.
 */
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { closeDb, db, lazyQuery, sql as rawSql } from "@/lib/db";

// Short deadlines for this file, so a pg_sleep can outlast one (lib/env.ts reads this on first use).
process.env.DATABASE_QUERY_TIMEOUT_MS = "500";

afterAll(closeDb);

describe("a kept reference across a pool replacement", () => {
  it("db() and sql() kept before a timed-out query keep working on the new pool", async () => {
    const keptDb = db();
    const keptSql = rawSql();
    const backend = async () => ((await keptDb.execute(sql`select pg_backend_pid() as pid`)) as unknown as { pid: number }[])[0]!.pid;
    const before = await backend();
    await expect(keptSql`select pg_sleep(1)`).rejects.toMatchObject({ code: "QUERY_TIMEOUT" });
    // Another caller in the process (a request) asks for the database: the stuck pool is replaced.
    expect(db()).toBe(keptDb);
    const after = await backend();
    expect(after).not.toBe(before);
    expect(((await keptSql`select 41 + 1 as n`) as unknown as { n: number }[])[0]!.n).toBe(42);
    expect(await keptDb.transaction(async (tx) => ((await tx.execute(sql`select 'in a transaction' as v`)) as unknown as { v: string }[])[0]!.v)).toBe("in a transaction");
  });
});

const setFirst = sql`select set_config('stararena.pipeline_test', 'set', true)`;
const readSecond = sql`select coalesce(current_setting('stararena.pipeline_test', true), '') as v`;
const value = (rows: unknown) => (rows as { v: string }[])[0]!.v;

describe("pipelined queries on a transaction", () => {
  it("a lazy query runs in its place: it sees the setting sent before it", async () => {
    const seen = await db().transaction(async (tx) => {
      const [, v] = await Promise.all([tx.execute(setFirst), lazyQuery(() => tx.execute(readSecond).then(value))]);
      return v;
    });
    expect(seen).toBe("set");
  });

  it("an async function's query overtakes the builder before it (why lazyQuery exists)", async () => {
    const seen = await db().transaction(async (tx) => {
      const eager = async () => value(await tx.execute(readSecond));
      const [, v] = await Promise.all([tx.execute(setFirst), eager()]);
      return v;
    });
    expect(seen).toBe("");
  });
});

describe("a Postgres already known to be in trouble", () => {
  it("a query past the short troubled deadline is answered as an outage but does not renew the trouble", async () => {
    const { noteDependencyFailure, troubledDependency, TROUBLED_FOR_MS } = await import("@/lib/dependency-state");
    const { TROUBLED_QUERY_TIMEOUT_MS } = await import("@/lib/db");
    const { postgresUnavailable } = await import("@/lib/errors");
    // Trouble noted long enough ago that it ends 1 s from now, before the 1.5-s deadline passes.
    const noted = Date.now() - (TROUBLED_FOR_MS - 1_000);
    noteDependencyFailure("postgres", noted);
    expect(troubledDependency()).toBe("postgres");
    const error = await rawSql()`select pg_sleep(2)`.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: "QUERY_TIMEOUT", knownTrouble: true, message: `Postgres did not answer within ${TROUBLED_QUERY_TIMEOUT_MS} ms` });
    expect(postgresUnavailable(error)).toMatchObject({ kind: "unavailable", code: "postgres_unavailable" });
    // Neither the timeout nor its 503 renewed the trouble: it ended on time. (Renewing it made a
    // saturated machine's healthy Postgres count as down for minutes: lib/db.ts `noteTimeout`.)
    expect(Date.now() - noted).toBeGreaterThan(TROUBLED_FOR_MS);
    expect(troubledDependency()).toBeNull();
  });

  it("the server deadline's 503 (known trouble) does not renew the trouble; a fresh outage error does", async () => {
    const { noteDependencyFailure, troubledDependency, TROUBLED_FOR_MS } = await import("@/lib/dependency-state");
    const { postgresUnavailable, RedisUnavailableError } = await import("@/lib/errors");
    const now = Date.now();
    try {
      // Trouble that ended a second ago for both dependencies.
      noteDependencyFailure("postgres", now - TROUBLED_FOR_MS - 1_000);
      noteDependencyFailure("redis", now - TROUBLED_FOR_MS - 1_000);
      expect(postgresUnavailable("a request waited on it past the outage deadline", { knownTrouble: true })).toMatchObject({ code: "postgres_unavailable", retryAfter: expect.any(Number) });
      expect(new RedisUnavailableError("a request waited on it past the outage deadline", { knownTrouble: true })).toMatchObject({ code: "redis_unavailable" });
      expect(troubledDependency()).toBeNull();
      // Without the flag each is news: the dependency counts as troubled again.
      void new RedisUnavailableError("connection refused");
      expect(troubledDependency()).toBe("redis");
      void postgresUnavailable(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }));
      expect(troubledDependency()).toBe("postgres");
    } finally {
      // Leave no trouble behind for the other tests of this file.
      noteDependencyFailure("postgres", 0);
      noteDependencyFailure("redis", 0);
    }
  });
});

describe("statements prepared by name, planned for each run", () => {
  const preparedOn = async (tx: { execute: (q: ReturnType<typeof sql>) => Promise<unknown> }) =>
    ((await tx.execute(sql`select statement from pg_prepared_statements`)) as unknown as { statement: string }[]).map((r) => r.statement);

  it("a drizzle statement with a few parameters is kept on its connection by name, one with many is not; every connection plans each run (behind a transaction pooler: nothing kept by name)", async () => {
    const found = await db().transaction(async (tx) => {
      await tx.execute(sql`select ${"few"}::text as marker_few, ${1}::int as n`);
      const many = Array.from({ length: 40 }, (_, i) => sql`${i}::int`);
      await tx.execute(sql`select array[${sql.join(many, sql`, `)}] as marker_many`);
      const modes = (await tx.execute(sql`show plan_cache_mode`)) as unknown as { plan_cache_mode: string }[];
      return { statements: await preparedOn(tx), mode: modes[0]!.plan_cache_mode };
    });
    const plain = (await rawSql()`show plan_cache_mode`) as unknown as { plan_cache_mode: string }[];
    if (process.env.DATABASE_POOLER === "transaction") {
      // Behind a transaction pooler nothing is kept by name (the next transaction may get
      // another server connection) and unnamed statements are planned for each run anyway.
      expect(found.statements.some((s) => s.includes("marker_few"))).toBe(false);
      expect(found.statements.some((s) => s.includes("marker_many"))).toBe(false);
      return;
    }
    expect(found.statements.some((s) => s.includes("marker_few"))).toBe(true);
    expect(found.statements.some((s) => s.includes("marker_many"))).toBe(false);
    // A generic plan made while a sale's tables are small would be kept for the connection's life.
    expect(found.mode).toBe("force_custom_plan");
    expect(plain[0]!.plan_cache_mode).toBe("force_custom_plan");
  });
});
