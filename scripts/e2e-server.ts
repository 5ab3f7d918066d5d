/**
 * The server Playwright tests run against: a fresh database (`stararena_e2e`, dropped
 * and recreated each run) seeded with the demo data, its own Redis key prefix, and the
 * production build (built first if missing or stale), served as `npm start` serves it (the
 * server, the standalone door behind it, the worker). Started by playwright.config.ts.
 */
import { buildIfNeeded, clearRenderedPages } from "./lib/build";
import { E2E_AUTH_RATE_LIMIT_PER_MINUTE } from "./lib/e2e-settings";
import { supervise } from "./lib/processes";
import { ensureRunSecrets } from "./lib/local-env";
import { dropDatabase, ensureDatabase, runMigrations } from "@/lib/migrations";
import { seedDemo } from "@/scripts/lib/seed";
import { closeDb, db } from "@/lib/db";
import { deleteKeys } from "@/lib/redis-keys";

const port = process.env.E2E_PORT ?? "3100";
const base = new URL(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/stararena");
// A spec run beside others picks its own database and Redis prefix (E2E_DATABASE, E2E_REDIS_PREFIX).
base.pathname = `/${process.env.E2E_DATABASE ?? "stararena_e2e"}`;
const redisPrefix = process.env.E2E_REDIS_PREFIX ?? "e2e:";
const databaseUrl = base.toString();
Object.assign(process.env, {
  DATABASE_URL: databaseUrl,
  REDIS_KEY_PREFIX: redisPrefix,
  APP_URL: `http://127.0.0.1:${port}`,
  PORT: port,
  DEMO_ONSALE_DELAY_MINUTES: "5",
  // The whole suite signs fans in and up from 127.0.0.1: the per-address auth limit (30/min) is for the public.
  AUTH_RATE_LIMIT_PER_MINUTE: String(E2E_AUTH_RATE_LIMIT_PER_MINUTE),
  PAYMENT_PROVIDER: "sandbox",
});
// The production build refuses to start without secrets: random ones for this run.
ensureRunSecrets();

// A fresh start: the previous run's database and Redis keys go.
await dropDatabase(databaseUrl);
await deleteKeys(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", `${redisPrefix}*`);
await ensureDatabase(databaseUrl);
await runMigrations(databaseUrl);
await seedDemo(db(), { onSaleDelayMinutes: 5 });
await closeDb();
buildIfNeeded((line) => console.log(line));
clearRenderedPages();

// As `npm start` runs it: the server forwards the waiting room's paths to the standalone door.
const doorPort = process.env.E2E_DOOR_PORT ?? String(Number(port) + 1);
// E-mail goes to the development mailbox; the tests read what it received (e2e/db.ts).
const mailboxPort = process.env.E2E_MAILBOX_PORT ?? String(Number(port) + 2);
const mail = { SMTP_URL: `smtp://127.0.0.1:${mailboxPort}`, DEV_MAILBOX: "1", MAILBOX_PORT: mailboxPort };
const tree = supervise([
  { name: "server", script: "scripts/serve.ts", args: ["-p", port, "-H", "127.0.0.1"], env: { ...process.env, ...mail, DOOR_URL: `http://127.0.0.1:${doorPort}` } },
  { name: "door", script: "scripts/door.ts", args: ["-p", doorPort, "-H", "127.0.0.1"], env: { ...process.env, TRUSTED_PROXY_HOPS: "1", DATABASE_POOL_MAX: "3" } },
  { name: "worker", script: "scripts/worker.ts", env: { ...process.env, ...mail, WORKER_INTERVAL_MS: "1000" } },
  { name: "mailbox", script: "scripts/mailbox.ts", env: { ...process.env, ...mail } },
]);
process.exit(await tree.done);
