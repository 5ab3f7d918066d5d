/**
 * Deletes every key matching a glob pattern (SCAN + UNLINK), for test and bench clean-up.
 * Against a Redis Cluster (REDIS_CLUSTER_NODES) it scans every primary and unlinks key by key
 * (keys of one node may sit in different slots, and a multi-key UNLINK must not cross them).
 */
import IORedis, { Cluster } from "ioredis";
import { env } from "@/lib/env";

/**
 * @param redisUrl the single Redis to clean (ignored when REDIS_CLUSTER_NODES is set)
 * @param pattern a SCAN MATCH glob, e.g. `test:run1:*`
 * @returns how many keys were deleted
 * @throws when Redis cannot be reached (one try, no reconnection: it never hangs)
 */
export async function deleteKeys(redisUrl: string, pattern: string): Promise<number> {
  const nodes = env().REDIS_CLUSTER_NODES;
  if (nodes?.length) return deleteClusterKeys(nodes, pattern);
  const redis = new IORedis(redisUrl, { maxRetriesPerRequest: 1, retryStrategy: () => null, connectTimeout: 2_000 });
  redis.on("error", () => {});
  try {
    return await deleteOnNode(redis, pattern, false);
  } finally {
    await redis.quit().catch(() => redis.disconnect());
  }
}

async function deleteOnNode(redis: IORedis, pattern: string, keyByKey: boolean): Promise<number> {
  let cursor = "0";
  let n = 0;
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
    cursor = next;
    if (keys.length === 0) continue;
    if (!keyByKey) n += await redis.unlink(...keys);
    else {
      const p = redis.pipeline();
      for (const k of keys) p.unlink(k);
      n += ((await p.exec()) ?? []).reduce((sum, [, r]) => sum + Number(r ?? 0), 0);
    }
  } while (cursor !== "0");
  return n;
}

async function deleteClusterKeys(nodes: { host: string; port: number }[], pattern: string): Promise<number> {
  const cluster = new Cluster(nodes, { clusterRetryStrategy: () => null, redisOptions: { maxRetriesPerRequest: 1, connectTimeout: 2_000 } });
  cluster.on("error", () => {});
  try {
    await new Promise<void>((resolve, reject) => {
      cluster.once("ready", () => resolve());
      cluster.once("end", () => reject(new Error(`Redis Cluster at ${nodes.map((n) => `${n.host}:${n.port}`).join(",")} is not reachable`)));
    });
    const counts = await Promise.all(cluster.nodes("master").map((node) => deleteOnNode(node, pattern, true)));
    return counts.reduce((a, b) => a + b, 0);
  } finally {
    await cluster.quit().catch(() => cluster.disconnect());
  }
}
