/** Per-worker setup: point lib/env at this run's database and Redis key prefix before any test imports it. */
import { inject } from "vitest";

process.env.DATABASE_URL = inject("databaseUrl");
process.env.REDIS_KEY_PREFIX = inject("redisKeyPrefix");
process.env.DATABASE_POOL_MAX ??= "20";
