/**
 * The PSP ledger pass on its own cron, every minute (lib/reconciliation/reconcile.ts
 * `reconcileLedgers`; docs/adr/0010): captures and refunds the PSP recorded are matched
 * to our payments both ways, from each provider's cursor. The full reconciliation
 * (./reconciliation.ts) runs it too; running both is harmless (idempotent).
 */
import { db } from "@/lib/db";
import { reconcileLedgers } from "@/lib/reconciliation/reconcile";
import { inngest } from "./client";

export const ledgerReconciliation = inngest.createFunction(
  { id: "psp-ledger-reconciliation", triggers: [{ cron: "* * * * *" }], concurrency: { limit: 1 } },
  async ({ step }) => step.run("reconcile-ledgers", async () => JSON.parse(JSON.stringify(await reconcileLedgers(db()))) as Record<string, unknown>[]),
);
