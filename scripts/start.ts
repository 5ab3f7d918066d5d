/**
 * `npm start`: brings StarArena up on this machine.
 *   1. validates the environment (lib/env.ts);
 *   2. makes sure Postgres and Redis answer (starting local servers when installed);
 *   3. creates the database if needed and applies the committed migrations;
 *   4. seeds the demo data when the database has no show yet;
 *   5. builds the app if the build is missing or stale;
 *   6. serves it (`next start`), or `next dev` with `--dev`.
 * Ctrl-C stops everything it started.
 */
import { spawn } from "node:child_process";
import { loadProjectEnv } from "./load-env";
import { buildIfNeeded, clearRenderedPages } from "./lib/build";
import { ensurePostgres, ensureRedis, ServiceUnavailableError } from "./lib/services";
import { ensureDatabase, runMigrations } from "@/db/migrate";
import { isEmpty, seedDemo } from "@/db/seed";
import { closeDb, db } from "@/lib/db";
import { env, EnvError } from "@/lib/env";

const dev = process.argv.includes("--dev");
const log = (line: string) => console.log(line);

async function prepare() {
  loadProjectEnv();
  const e = env();
  log("▶ StarArena: checking services");
  await ensurePostgres(e.DATABASE_URL, log);
  if (!e.UPSTASH_REDIS_REST_URL) await ensureRedis(e.REDIS_URL, log);
  log("▶ database: migrations");
  if (await ensureDatabase(e.DATABASE_URL)) log(`  created database ${new URL(e.DATABASE_URL).pathname.slice(1)}`);
  await runMigrations(e.DATABASE_URL);
  if (await isEmpty(db())) {
    log("▶ database is empty: seeding the demo arena and shows");
    const seeded = await seedDemo(db(), { onSaleDelayMinutes: e.DEMO_ONSALE_DELAY_MINUTES });
    for (const line of seeded.created) log(`  ${line}`);
  }
  await closeDb();
  if (!dev) {
    log("▶ build");
    buildIfNeeded(log);
    // Pages rendered on demand by an earlier server may hold another database's data.
    clearRenderedPages();
  }
  return e;
}

try {
  const e = await prepare();
  log(`▶ serving on ${e.APP_URL} (port ${e.PORT})${dev ? " in development mode" : ""}`);
  const app = spawn("npx", ["next", dev ? "dev" : "start", "-p", String(e.PORT)], { stdio: "inherit" });
  // The background worker: hold expiry, lost payments, ticket retries, reconciliation (or the outbox relay with Inngest).
  const worker = spawn("npx", ["tsx", "scripts/worker.ts"], { stdio: "inherit" });
  const stop = () => {
    app.kill("SIGTERM");
    worker.kill("SIGTERM");
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  app.on("exit", (code) => {
    worker.kill("SIGTERM");
    process.exit(code ?? 0);
  });
} catch (error) {
  if (error instanceof EnvError || error instanceof ServiceUnavailableError) {
    console.error(`\n✗ ${error.message}\n`);
    process.exit(1);
  }
  throw error;
}
