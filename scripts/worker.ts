/**
 * `npm run worker`: the local worker alone (lib/jobs/worker.ts). Ctrl-C stops it after the
 * current pass and releases its lease; a supervisor's going away does the same.
 */
import { loadProjectEnv } from "./load-env";
import { exitWithParent } from "./lib/processes";
import { closeDb, db } from "@/lib/db";
import { inngestConfigured, startLocalWorker } from "@/lib/jobs/worker";
import { inngest } from "@/inngest/client";
import { closeRedis } from "@/lib/redis";

loadProjectEnv();
// WORKER_INTERVAL_MS: sweep interval (2 s); RECONCILE_EVERY_MS: reconciliation, PSP ledger included (60 s).
const stop = startLocalWorker(db(), {
  intervalMs: Number(process.env.WORKER_INTERVAL_MS ?? 2_000),
  reconcileEveryMs: Number(process.env.RECONCILE_EVERY_MS ?? 60_000),
  send: inngestConfigured() ? (events) => inngest.send(events) : undefined,
});
let closing = false;
const shutdown = async () => {
  if (closing) return;
  closing = true;
  await stop();
  await closeDb();
  await closeRedis();
  process.exit(0);
};
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
// Started by a supervisor (npm start, the e2e server, the simulator): stop when it goes away.
exitWithParent(() => void shutdown());
