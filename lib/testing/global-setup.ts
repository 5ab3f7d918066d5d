/**
 * Vitest global setup: one isolated Postgres database and one Redis key prefix per run,
 * so test runs never see each other's (or the app's) data. Both are removed afterwards.
 * TEST_POOLER_ADDRESS (`host:port`) sends the tests' queries through a pooler, and
 * REDIS_CLUSTER_NODES their Redis to a cluster (scripts/test-distributed.ts sets both).
 */
import type { TestProject } from "vitest/node";
import { deleteKeys } from "@/lib/redis-keys";
import { dropDatabase, ensureDatabase, runMigrations } from "@/lib/migrations";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    redisKeyPrefix: string;
  }
}

export default async function setup(project: TestProject) {
  const runId = `${Date.now().toString(36)}_${process.pid}`;
  const base = new URL(process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/stararena");
  base.pathname = `/stararena_test_${runId}`;
  const databaseUrl = base.toString();
  const redisKeyPrefix = `test:${runId}:`;
  const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

  await ensureDatabase(databaseUrl);
  await runMigrations(databaseUrl);
  // Through a pooler (scripts/test-distributed.ts): the database is made and dropped directly,
  // the tests' queries go through the pooler's address.
  const viaPooler = process.env.TEST_POOLER_ADDRESS ? new URL(databaseUrl) : undefined;
  if (viaPooler) viaPooler.host = process.env.TEST_POOLER_ADDRESS!;
  project.provide("databaseUrl", viaPooler?.toString() ?? databaseUrl);
  project.provide("redisKeyPrefix", redisKeyPrefix);

  return async () => {
    await dropDatabase(databaseUrl);
    await deleteKeys(redisUrl, `${redisKeyPrefix}*`);
  };
}
