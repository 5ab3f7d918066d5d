/**
 * The worker builds a show's Redis inventory before its on-sale (lib/inventory/rebuild.ts
 * `prepareInventories`), so the on-sale's first hold does not: shows within the next 10
 * minutes are built once and agree with Postgres, later ones are left alone.
 * Its shows are a year ahead, so the other test files' shows (starting tomorrow) stay out of
 * the window and nothing is built for them behind their backs.
 */
import { afterAll, describe, expect, it } from "vitest";
import { closeDb, db } from "@/lib/db";
import { inventoryReady, prepareInventories, PREPARE_AHEAD_MS } from "@/lib/inventory/rebuild";
import { redisMismatchSet } from "@/lib/reconciliation/invariants";
import { closeRedis } from "@/lib/redis";
import { makeStudioShow } from "@/lib/testing/fixtures";

afterAll(async () => {
  await closeDb();
  await closeRedis();
});

const YEAR_MS = 365 * 86_400_000;

describe("prepareInventories", () => {
  it("builds the inventory of shows going on sale within 10 minutes, once; later shows wait", async () => {
    const at = Date.now() + YEAR_MS;
    const startsAt = new Date(at + 86_400_000);
    const soon = await makeStudioShow(db(), { onSaleAt: new Date(at + 5 * 60_000), startsAt });
    const later = await makeStudioShow(db(), { onSaleAt: new Date(at + PREPARE_AHEAD_MS + 60_000), startsAt });
    expect(await inventoryReady(soon.eventId)).toBe(false);

    const built = await prepareInventories(db(), at);
    expect(built).toContain(soon.eventId);
    expect(built).not.toContain(later.eventId);
    expect(await inventoryReady(soon.eventId)).toBe(true);
    expect(await inventoryReady(later.eventId)).toBe(false);

    // Built already: the next pass leaves it alone.
    expect(await prepareInventories(db(), at)).not.toContain(soon.eventId);

    // What it built agrees with Postgres seat for seat (the reconciliation's own drift check).
    expect((await redisMismatchSet(db(), soon.eventId)).size).toBe(0);
  });
});
