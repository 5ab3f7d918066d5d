import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { events } from "@/db/schema";
import { closeDb, db, type Db } from "@/lib/db";
import { forgetPublishedSlugs, isPublishedSlug, SLUG_MISS_REFRESH_MS, SLUG_SET_TTL_MS } from "@/lib/events/slugs";
import { makeStudioShow } from "@/lib/testing/fixtures";

afterAll(() => closeDb());

describe("isPublishedSlug (the ISR allow-list)", () => {
  it("knows published shows, not drafts or made-up slugs, and never queries for malformed ones", async () => {
    const published = await makeStudioShow(db());
    const draft = await makeStudioShow(db(), { status: "draft" });
    forgetPublishedSlugs();
    const slugOf = async (id: string) => (await db().query.events.findFirst({ where: eq(events.id, id) }))!.slug;
    expect(await isPublishedSlug(db(), await slugOf(published.eventId))).toBe(true);
    expect(await isPublishedSlug(db(), await slugOf(draft.eventId))).toBe(false);
    expect(await isPublishedSlug(db(), "no-such-show-anywhere")).toBe(false);
    expect(await isPublishedSlug(db(), "Bad Slug\u0000")).toBe(false);
    expect(await isPublishedSlug(db(), "x".repeat(200))).toBe(false);
  });

  it("a show published after the set was read is found on a miss, once the set is a second old", async () => {
    const show = await makeStudioShow(db(), { status: "draft" });
    const slug = (await db().query.events.findFirst({ where: eq(events.id, show.eventId) }))!.slug;
    forgetPublishedSlugs();
    const t0 = Date.now();
    expect(await isPublishedSlug(db(), slug, t0)).toBe(false);
    await db().update(events).set({ status: "published" }).where(eq(events.id, show.eventId));
    // Within the miss window the cached answer stands (a flood of random slugs costs no query)…
    expect(await isPublishedSlug(db(), slug, t0 + 10)).toBe(false);
    // …past it, one re-read finds the new show.
    expect(await isPublishedSlug(db(), slug, t0 + SLUG_MISS_REFRESH_MS * 2)).toBe(true);
  });

  it("a known slug in a stale set is answered at once, even with the database unreachable; the re-read runs behind", async () => {
    const show = await makeStudioShow(db());
    const slug = (await db().query.events.findFirst({ where: eq(events.id, show.eventId) }))!.slug;
    forgetPublishedSlugs();
    const t0 = Date.now();
    expect(await isPublishedSlug(db(), slug, t0)).toBe(true);
    // A client to a port nothing listens on: every query fails after its connect timeout.
    const client = postgres("postgres://postgres@127.0.0.1:1/none", { connect_timeout: 2, max: 1, onnotice: () => {} });
    try {
      const started = performance.now();
      expect(await isPublishedSlug(drizzle(client) as unknown as Db, slug, t0 + SLUG_SET_TTL_MS + 1)).toBe(true);
      expect(performance.now() - started).toBeLessThan(50);
    } finally {
      await client.end({ timeout: 0 });
    }
    // Unpublished: the stale answer stands until a re-read behind it has run, then the slug is refused.
    await db().update(events).set({ status: "draft" }).where(eq(events.id, show.eventId));
    const later = Date.now() + SLUG_SET_TTL_MS + 1;
    expect(await isPublishedSlug(db(), slug, later)).toBe(true);
    await expect.poll(() => isPublishedSlug(db(), slug, Date.now())).toBe(false);
  });
});
