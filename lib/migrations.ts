/**
 * Database lifecycle helpers shared by `npm start`, `npm run db:migrate` and the tests:
 * create the database when it is missing, then apply the committed drizzle-kit
 * migrations in db/migrations (never `drizzle-kit push`).
 */
import path from "node:path";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";

/** Folder of the committed SQL migrations. */
const MIGRATIONS_FOLDER = path.join(process.cwd(), "db", "migrations");

/** The database name of a postgres:// URL. */
function databaseName(url: string): string {
  const name = decodeURIComponent(new URL(url).pathname.replace(/^\//, ""));
  if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new Error(`Unsupported database name "${name}" in DATABASE_URL`);
  return name;
}

/** The same server's maintenance database URL (`postgres`). */
export function maintenanceUrl(url: string): string {
  const u = new URL(url);
  u.pathname = "/postgres";
  return u.toString();
}

/**
 * Creates the database named in `url` when it does not exist.
 * @returns true when it was created now.
 * @throws the driver's error when the server cannot be reached.
 */
export async function ensureDatabase(url: string): Promise<boolean> {
  const name = databaseName(url);
  const admin = postgres(maintenanceUrl(url), { max: 1, onnotice: () => {}, connect_timeout: 5 });
  try {
    const found = await admin`select 1 from pg_database where datname = ${name}`;
    if (found.length > 0) return false;
    try {
      await admin.unsafe(`create database "${name}"`);
    } catch (error) {
      // Another process created it between our check and create: fine.
      if ((error as { code?: string }).code !== "42P04") throw error;
    }
    return true;
  } finally {
    await admin.end({ timeout: 5 });
  }
}

/** Drops the database named in `url` if it exists (tests use this for their per-run database). */
export async function dropDatabase(url: string): Promise<void> {
  const name = databaseName(url);
  const admin = postgres(maintenanceUrl(url), { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
  } finally {
    await admin.end({ timeout: 5 });
  }
}

/** Applies every pending migration in {@link MIGRATIONS_FOLDER} to the database at `url`. */
export async function runMigrations(url: string): Promise<void> {
  const client = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_FOLDER });
  } finally {
    await client.end({ timeout: 5 });
  }
}
