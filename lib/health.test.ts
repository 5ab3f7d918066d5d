/**
 * The health probe asks Postgres on a connection of its own (lib/db.ts `probeSql`): a pool
 * whose every connection is busy is not a dead database, and a probe connection that died is
 * replaced. Against the real Postgres and Redis.
 */
import { afterAll, describe, expect, it } from "vitest";
import { closeDb, PROBE_APPLICATION_NAME, sql } from "@/lib/db";
import { env } from "@/lib/env";
import { checkHealth, HEALTH_CHECK_TIMEOUT_MS } from "@/lib/health";
import { closeRedis } from "@/lib/redis";

afterAll(async () => {
  await closeDb();
  await closeRedis();
});

describe("checkHealth", () => {
  it("says ok while every connection of the app's pool is busy", async () => {
    const pool = env().DATABASE_POOL_MAX;
    // Every pooled connection sleeps for 1.5 s, and one more query waits behind them.
    const busy = Array.from({ length: pool + 1 }, () => sql()`select pg_sleep(1.5)`.then(() => "done"));
    await new Promise((r) => setTimeout(r, 300));
    const t0 = performance.now();
    const health = await checkHealth();
    const ms = performance.now() - t0;
    expect(health).toEqual({ ok: true, postgres: "ok", redis: "ok" });
    expect(ms).toBeLessThan(HEALTH_CHECK_TIMEOUT_MS);
    expect(await Promise.all(busy)).toEqual(Array(pool + 1).fill("done"));
  });

  it("connects afresh after its connection was killed", async () => {
    expect((await checkHealth()).ok).toBe(true);
    const killed = await sql()`select pg_terminate_backend(pid) as k from pg_stat_activity where application_name = ${PROBE_APPLICATION_NAME} and pid <> pg_backend_pid()`;
    expect(killed.length).toBeGreaterThanOrEqual(1);
    // The next probe may see the dead connection; the one after it has a new one.
    await checkHealth();
    expect(await checkHealth()).toEqual({ ok: true, postgres: "ok", redis: "ok" });
  });
});
