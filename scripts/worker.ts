/** `npm run worker`: the local worker alone (lib/jobs/worker.ts). Ctrl-C stops it after the current pass. */
import { loadProjectEnv } from "./load-env";
import { closeDb, db } from "@/lib/db";
import { startLocalWorker } from "@/lib/jobs/worker";
import { closeRedis } from "@/lib/redis";

loadProjectEnv();
const stop = startLocalWorker(db(), { intervalMs: Number(process.env.WORKER_INTERVAL_MS ?? 2_000) });
const shutdown = async () => {
  await stop();
  await closeDb();
  await closeRedis();
  process.exit(0);
};
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
