/** Reconciliation on a cron: the same pass as `npm run reconcile` (lib/reconciliation/reconcile). */
import { db } from "@/lib/db";
import { reconcile } from "@/lib/reconciliation/reconcile";
import { inngest } from "./client";

export const reconciliation = inngest.createFunction(
  { id: "reconciliation", triggers: [{ cron: "*/5 * * * *" }], concurrency: { limit: 1 } },
  async ({ step }) => step.run("reconcile", async () => JSON.parse(JSON.stringify(await reconcile(db()))) as Record<string, unknown>),
);
