/**
 * The one pooled Postgres client (postgres.js) and its drizzle wrapper.
 *
 * Cached on `globalThis` so Next's hot reload does not open a new pool per edit.
 * Pool size comes from DATABASE_POOL_MAX (default 10 per process).
 */
import { drizzle, type PostgresJsDatabase } from "drizzle-orm/postgres-js";
import postgres, { type Sql } from "postgres";
import * as schema from "@/db/schema";
import { env } from "@/lib/env";

export type Db = PostgresJsDatabase<typeof schema>;

type Cache = { sql: Sql; db: Db; url: string };
const globalForDb = globalThis as unknown as { __stararenaDb?: Cache };

function connect(): Cache {
  const { DATABASE_URL, DATABASE_POOL_MAX } = env();
  const cached = globalForDb.__stararenaDb;
  if (cached && cached.url === DATABASE_URL) return cached;
  const client = postgres(DATABASE_URL, {
    max: DATABASE_POOL_MAX,
    idle_timeout: 30,
    connect_timeout: 10,
    onnotice: () => {},
  });
  const created: Cache = { sql: client, db: drizzle(client, { schema }), url: DATABASE_URL };
  globalForDb.__stararenaDb = created;
  return created;
}

/** The drizzle database (lazily connected). */
export function db(): Db {
  return connect().db;
}

/** The raw postgres.js client, for hand-written SQL. */
export function sql(): Sql {
  return connect().sql;
}

/** Closes the pool (scripts and tests call this before exiting). */
export async function closeDb(): Promise<void> {
  const cached = globalForDb.__stararenaDb;
  globalForDb.__stararenaDb = undefined;
  await cached?.sql.end({ timeout: 5 });
}

/** The constraint name of a unique violation (SQLSTATE 23505) anywhere in an error's cause chain, else undefined. */
export function uniqueViolation(error: unknown): string | undefined {
  let e = error as { code?: string; constraint_name?: string; cause?: unknown } | undefined;
  while (e && e.code !== "23505" && e.cause) e = e.cause as typeof e;
  return e?.code === "23505" ? (e.constraint_name ?? "unknown") : undefined;
}
