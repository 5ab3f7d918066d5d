/**
 * `npm run inventory:rebuild -- <event id or slug> [...]` (or `--all`): rebuilds the
 * events' Redis inventory from Postgres (lib/inventory/rebuild.ts) and prints what it wrote.
 */
import { eq, or } from "drizzle-orm";
import { loadProjectEnv } from "./load-env";
import { events } from "@/db/schema";
import { closeDb, db } from "@/lib/db";
import { rebuildInventory } from "@/lib/inventory/rebuild";
import { closeRedis } from "@/lib/redis";

loadProjectEnv();
const args = process.argv.slice(2);
if (args.length === 0) {
  console.error("usage: npm run inventory:rebuild -- <event id or slug> [...]   |   --all");
  process.exit(2);
}
const targets = args.includes("--all")
  ? await db().select({ id: events.id, name: events.name }).from(events)
  : (
      await Promise.all(
        args.map((a) => db().select({ id: events.id, name: events.name }).from(events).where(or(eq(events.id, a), eq(events.slug, a)))),
      )
    ).flat();
if (targets.length === 0) {
  console.error(`No event matches ${args.join(", ")}`);
  process.exit(1);
}
for (const t of targets) {
  const r = await rebuildInventory(db(), t.id);
  console.log(`${t.name} (${t.id}): ${r.capacity} seats — ${r.free} free, ${r.held} held in ${r.holds} holds, ${r.sold} sold`);
}
await closeDb();
await closeRedis();
