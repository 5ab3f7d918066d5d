/** `npm run db:seed`: idempotent demo data (see scripts/lib/seed.ts). Migrates first so it works on a fresh database. */
import { loadProjectEnv } from "./load-env";
import { ensureDatabase, runMigrations } from "@/lib/migrations";
import { seedDemo } from "@/scripts/lib/seed";
import { closeDb, db } from "@/lib/db";
import { env } from "@/lib/env";

loadProjectEnv();
const e = env();
await ensureDatabase(e.DATABASE_URL);
await runMigrations(e.DATABASE_URL);
const started = Date.now();
const result = await seedDemo(db(), { onSaleDelayMinutes: e.DEMO_ONSALE_DELAY_MINUTES });
console.log(result.created.length ? `Seeded: ${result.created.join("; ")}` : "Seed: everything already there, nothing changed");
console.log(`(${Date.now() - started} ms)`);
await closeDb();
