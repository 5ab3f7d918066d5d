/**
 * `npm start`: brings StarArena up on this machine.
 *   1. writes this machine's random secrets into .env.local the first time (and, for a
 *      local demo, PAYMENT_PROVIDER=sandbox; scripts/lib/local-env.ts), then validates
 *      the environment (lib/env.ts);
 *   2. makes sure Postgres and Redis answer (starting local servers when installed);
 *   3. creates the database if needed and applies the committed migrations;
 *   4. seeds the demo data when the database has no show yet;
 *   5. builds the app if the build is missing or stale;
 *   6. serves it through scripts/serve.ts (Next's production server, or its development
 *      server with `--dev`) on HOST (127.0.0.1 when APP_URL is a loopback address, else
 *      0.0.0.0), with the door (scripts/door.ts, the waiting room's API, forwarded to by the
 *      server) and the worker beside it in one process tree (scripts/lib/processes.ts), plus the
 *      development mailbox (scripts/mailbox.ts) for a local demo without SMTP_URL.
 * Ctrl-C stops everything it started; so does the server dying (the worker is restarted).
 */
import { loadProjectEnv } from "./load-env";
import { buildIfNeeded, clearRenderedPages } from "./lib/build";
import { supervise } from "./lib/processes";
import { ensureLocalEnvFile } from "./lib/local-env";
import { ensurePostgres, ensureRedis, ServiceUnavailableError } from "./lib/services";
import { ensureDatabase, runMigrations } from "@/lib/migrations";
import { isEmpty, seedDemo } from "@/scripts/lib/seed";
import { closeDb, db } from "@/lib/db";
import { env, EnvError, isLoopbackHost, isPublicDeployment } from "@/lib/env";

const dev = process.argv.includes("--dev");
const log = (line: string) => console.log(line);

async function prepare() {
  loadProjectEnv();
  ensureLocalEnvFile({ log });
  const e = env();
  log(
    e.PAYMENT_PROVIDER === "sandbox"
      ? "▶ payments: the built-in sandbox PSP (PAYMENT_PROVIDER=sandbox) — test payments, anyone can approve their own checkout"
      : `▶ payments: ${e.PAYMENT_PROVIDER}`,
  );
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
  const host = e.HOST ?? (isLoopbackHost(new URL(e.APP_URL).hostname) ? "127.0.0.1" : "0.0.0.0");
  log(`▶ serving on ${e.APP_URL} (port ${e.PORT}, bound to ${host})${dev ? " in development mode" : ""}`);
  // One tree (scripts/lib/processes.ts): the HTTP server (scripts/serve.ts) and the background
  // worker — hold expiry, lost payments, ticket retries, reconciliation (or the outbox relay
  // with Inngest). The worker is restarted if it dies; if the server dies, everything stops.
  // The waiting room's paths are answered by the standalone door (scripts/door.ts, docs/adr/0014),
  // on loopback beside the server, which forwards them (DOOR_URL) with the client address it
  // resolved: the door trusts exactly that one hop. `DOOR_URL=` in the environment turns it off.
  const doorUrl = process.env.DOOR_URL === "" ? undefined : `http://127.0.0.1:${e.DOOR_PORT}`;
  // E-mail: without an SMTP_URL, a local demo (not a public deployment: lib/env.ts) gets the
  // development mailbox (scripts/mailbox.ts), and /dev/mailbox shows what was sent; anywhere
  // else mail waits in the outbox until SMTP_URL is set.
  const loopback = !isPublicDeployment({ ...e, HOST: host });
  const mailboxPort = process.env.MAILBOX_PORT ?? "2525";
  const mail = !e.SMTP_URL && loopback ? { SMTP_URL: `smtp://127.0.0.1:${mailboxPort}`, DEV_MAILBOX: "1", MAILBOX_PORT: mailboxPort } : {};
  log(e.SMTP_URL ? "▶ e-mail: SMTP_URL" : loopback ? `▶ e-mail: the development mailbox (SMTP 127.0.0.1:${mailboxPort}), read at ${new URL("/dev/mailbox", e.APP_URL)}` : "▶ e-mail: no SMTP_URL — messages wait in the outbox");
  const tree = supervise(
    [
      { name: "server", script: "scripts/serve.ts", args: ["-p", String(e.PORT), "-H", host, ...(dev ? ["--dev"] : [])], env: { ...process.env, ...mail, ...(doorUrl ? { DOOR_URL: doorUrl } : {}) } },
      ...(doorUrl ? [{ name: "door", script: "scripts/door.ts", args: ["-p", String(e.DOOR_PORT), "-H", "127.0.0.1"], restart: true, env: { ...process.env, TRUSTED_PROXY_HOPS: "1", DATABASE_POOL_MAX: "3" } }] : []),
      { name: "worker", script: "scripts/worker.ts", restart: true, env: { ...process.env, ...mail } },
      ...(mail.SMTP_URL ? [{ name: "mailbox", script: "scripts/mailbox.ts", restart: true, env: { ...process.env, ...mail } }] : []),
    ],
    { log },
  );
  process.exit(await tree.done);
} catch (error) {
  if (error instanceof EnvError || error instanceof ServiceUnavailableError) {
    console.error(`\n✗ ${error.message}\n`);
    process.exit(1);
  }
  throw error;
}
