/** Liveness of the app's dependencies, for /api/health and operators. */
import { sql } from "@/lib/db";
import { redis } from "@/lib/redis";

/** `{ ok, postgres, redis }`: each "ok" or the error message. */
export async function checkHealth(): Promise<{ ok: boolean; postgres: string; redis: string }> {
  const [pg, rd] = await Promise.all([
    sql()`select 1`.then(() => "ok", (e: Error) => e.message),
    redis()
      .ping()
      .then(() => "ok", (e: Error) => e.message),
  ]);
  return { ok: pg === "ok" && rd === "ok", postgres: pg, redis: rd };
}
