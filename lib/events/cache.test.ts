import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import * as schema from "@/db/schema";
import { afterAll, describe, expect, it } from "vitest";
import { events, priceLevels } from "@/db/schema";
import { closeDb, db } from "@/lib/db";
import { env } from "@/lib/env";
import { cachedEvent, EVENT_CACHE_TTL_MS, forgetEvent } from "@/lib/events/cache";
import { updateEvent } from "@/lib/events/setup";
import { makeStudioShow } from "@/lib/testing/fixtures";

afterAll(async () => {
  await closeDb();
});

describe("cachedEvent", () => {
  it("shares one copy within the TTL, rereads after it, and knows the event's price levels", async () => {
    const show = await makeStudioShow(db());
    const levels = await db().select({ id: priceLevels.id }).from(priceLevels).where(eq(priceLevels.eventId, show.eventId));
    const t0 = Date.now();
    // Concurrent callers get the very same promise: one read.
    const [a, b] = [cachedEvent(db(), show.eventId, t0), cachedEvent(db(), show.eventId, t0)];
    expect(a).toBe(b);
    const first = (await a)!;
    expect(first.event.perFanLimit).toBe(4);
    expect([...first.priceLevelIds].sort()).toEqual(levels.map((l) => l.id).sort());

    // A change made behind the cache's back (another instance) is seen once the TTL has passed.
    await db().update(events).set({ perFanLimit: 2 }).where(eq(events.id, show.eventId));
    expect((await cachedEvent(db(), show.eventId, t0 + EVENT_CACHE_TTL_MS - 1))!.event.perFanLimit).toBe(4);
    expect((await cachedEvent(db(), show.eventId, t0 + EVENT_CACHE_TTL_MS + 1))!.event.perFanLimit).toBe(2);
  });

  it("is dropped by the organizer's edit in this process, so the next read is fresh", async () => {
    const show = await makeStudioShow(db());
    expect((await cachedEvent(db(), show.eventId))!.event.holdMinutes).toBe(15);
    await updateEvent(db(), show.eventId, show.organizerId, { holdMinutes: 9 });
    expect((await cachedEvent(db(), show.eventId))!.event.holdMinutes).toBe(9);
  });

  it("answers null for an unknown event and keeps no failed read", async () => {
    expect(await cachedEvent(db(), "evt_nosuchevent")).toBeNull();
    forgetEvent();
    // A real Postgres that refuses the read (no such database): the failure is not kept.
    const url = new URL(env().DATABASE_URL);
    url.pathname = "/stararena_no_such_database";
    const client = postgres(url.toString(), { max: 1, onnotice: () => {} });
    try {
      await expect(cachedEvent(drizzle(client, { schema }), "evt_brokenread")).rejects.toMatchObject({ cause: { code: "3D000" } }) // invalid_catalog_name: no such database;
    } finally {
      await client.end();
    }
    await new Promise((r) => setTimeout(r, 0));
    expect(await cachedEvent(db(), "evt_brokenread")).toBeNull();
  });
});
