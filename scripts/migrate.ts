/** `npm run db:migrate`: creates the database if needed and applies the committed migrations. */
import { loadProjectEnv } from "./load-env";
import { ensureDatabase, runMigrations } from "@/lib/migrations";
import { env } from "@/lib/env";

loadProjectEnv();
const url = env().DATABASE_URL;
const created = await ensureDatabase(url);
await runMigrations(url);
console.log(`${created ? "Created and migrated" : "Migrated"} ${new URL(url).pathname.slice(1)}`);
