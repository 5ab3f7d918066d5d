/**
 * `npm run reconcile [-- <event id>]`: one reconciliation pass (lib/reconciliation/reconcile.ts).
 * Runs the invariant checker (I1–I6, I2–I4 also against the PSP's ledger) before the
 * repairs and after them, prints both, the repairs and the ledger findings, and exits 1
 * when a violation is left after the pass.
 */
import { loadProjectEnv } from "./load-env";
import { closeDb, db } from "@/lib/db";
import { totalViolations, type InvariantReport } from "@/lib/reconciliation/invariants";
import { reconcile } from "@/lib/reconciliation/reconcile";
import { closeRedis } from "@/lib/redis";

loadProjectEnv();
const eventId = process.argv[2];
const r = await reconcile(db(), { eventId, checkBefore: true });
const nonZero = (i: InvariantReport) => Object.entries(i).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`).join(", ") || "none";
console.log(`Before the repairs: ${totalViolations(r.before!)} violation(s) (${nonZero(r.before!)})`);
console.log("Repairs (sweep):", JSON.stringify(r.sweep, null, 2));
for (const l of r.ledger) console.log(`PSP ledger (${l.provider}, ${l.window.from} → ${l.window.to}):`, JSON.stringify(l, null, 2));
console.log("Redis rebuilt:", r.redisRebuilt.length ? r.redisRebuilt : "none needed");
console.log("Tickets without payment (need an organizer):", r.ticketsWithoutPayment.length ? r.ticketsWithoutPayment : "none");
console.log("Invariants after the pass:", r.invariants);
console.log(`→ ${totalViolations(r.invariants)} violation(s) after the pass (${nonZero(r.invariants)})`);
await closeDb();
await closeRedis();
process.exit(totalViolations(r.invariants) === 0 ? 0 : 1);
