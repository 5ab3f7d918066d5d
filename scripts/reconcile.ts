/** `npm run reconcile [-- <event id>]`: one reconciliation pass; prints the findings and the invariant check. */
import { loadProjectEnv } from "./load-env";
import { closeDb, db } from "@/lib/db";
import { totalViolations } from "@/lib/reconciliation/invariants";
import { reconcile } from "@/lib/reconciliation/reconcile";
import { closeRedis } from "@/lib/redis";

loadProjectEnv();
const eventId = process.argv[2];
const r = await reconcile(db(), { eventId });
console.log("Repairs:", JSON.stringify(r.sweep, null, 2));
console.log("Redis rebuilt:", r.redisRebuilt.length ? r.redisRebuilt : "none needed");
console.log("Tickets without payment (need an organizer):", r.ticketsWithoutPayment.length ? r.ticketsWithoutPayment : "none");
console.log("Invariants:", r.invariants, `→ ${totalViolations(r.invariants)} violation(s)`);
await closeDb();
await closeRedis();
process.exit(totalViolations(r.invariants) === 0 ? 0 : 1);
