/** Deletes every key matching a glob pattern (SCAN + UNLINK), for test and bench clean-up. */
import IORedis from "ioredis";

export async function deleteKeys(redisUrl: string, pattern: string): Promise<number> {
  // One try, no reconnection: a clean-up against a Redis that is gone fails (rejects), it does not hang or crash.
  const redis = new IORedis(redisUrl, { maxRetriesPerRequest: 1, retryStrategy: () => null, connectTimeout: 2_000 });
  redis.on("error", () => {});
  let cursor = "0";
  let n = 0;
  try {
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
      cursor = next;
      if (keys.length > 0) n += await redis.unlink(...keys);
    } while (cursor !== "0");
  } finally {
    await redis.quit().catch(() => redis.disconnect());
  }
  return n;
}
