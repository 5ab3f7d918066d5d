/**
 * Liveness of the app's dependencies, for /api/health, the HTTP server's once-a-second probe
 * (scripts/serve.ts) and operators. Each check is bounded ({@link HEALTH_CHECK_TIMEOUT_MS}):
 * a stalled dependency is reported as down, never waited for. Postgres is asked on a
 * connection of its own (lib/db.ts `probeSql`), so a busy pool is not taken for a dead database. A failure is recorded in
 * lib/dependency-state.ts, so requests stuck on that dependency are answered 503 promptly.
 */
import { probeSql, resetProbe } from "@/lib/db";
import { noteDependencyFailure, type Dependency } from "@/lib/dependency-state";
import { redis } from "@/lib/redis";

/** Longest wait for one dependency's answer (ms). */
export const HEALTH_CHECK_TIMEOUT_MS = 1_000;

async function check(dependency: Dependency, ping: () => Promise<unknown>): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${HEALTH_CHECK_TIMEOUT_MS} ms`), HEALTH_CHECK_TIMEOUT_MS);
  });
  const answer = ping().then(
    () => "ok",
    (e: unknown) => (e instanceof Error ? (e as Error & { detail?: string }).detail ?? e.message : String(e)),
  );
  const result = await Promise.race([answer, timeout]);
  clearTimeout(timer);
  if (result !== "ok") noteDependencyFailure(dependency);
  return result;
}

/**
 * `{ ok, postgres, redis }`: each "ok" or what went wrong; when not ok, also `error` (a
 * sentence for a person) and `retryAfter` (seconds).
 */
export async function checkHealth(): Promise<{ ok: boolean; postgres: string; redis: string; error?: string; retryAfter?: number }> {
  const [pg, rd] = await Promise.all([check("postgres", () => probeSql()`select 1`), check("redis", () => redis().ping())]);
  if (pg !== "ok") resetProbe();
  const ok = pg === "ok" && rd === "ok";
  if (ok) return { ok, postgres: pg, redis: rd };
  const down = [pg !== "ok" ? "the database (Postgres)" : null, rd !== "ok" ? "the queue and seat store (Redis)" : null].filter(Boolean).join(" and ");
  return { ok, postgres: pg, redis: rd, error: `StarArena cannot reach ${down} right now; it recovers by itself when ${down.includes(" and ") ? "they are" : "it is"} back.`, retryAfter: 3 };
}
