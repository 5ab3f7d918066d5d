/** The demo seed against the real database: the right shape, and idempotent. */
import { count, eq, sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { eventSeats, events, priceLevels, seats, sections, user, venues } from "@/db/schema";
import { DEMO_EVENT_SLUG, seedDemo, TEST_EVENT_SLUG } from "@/scripts/lib/seed";
import { closeDb, db } from "@/lib/db";

afterAll(async () => {
  await closeDb();
});

async function tableCounts() {
  const [[u], [v], [s], [e], [es]] = await Promise.all([
    db().select({ n: count() }).from(user),
    db().select({ n: count() }).from(venues),
    db().select({ n: count() }).from(seats),
    db().select({ n: count() }).from(events),
    db().select({ n: count() }).from(eventSeats),
  ]);
  return { users: u!.n, venues: v!.n, seats: s!.n, events: e!.n, eventSeats: es!.n };
}

describe("seedDemo", () => {
  it("creates a 20,000-seat arena show with ≥4 price levels and a 50-seat test show, and is idempotent", async () => {
    const before = await tableCounts();
    const now = new Date("2026-12-01T12:00:00Z");
    const first = await seedDemo(db(), { onSaleDelayMinutes: 7, now });
    const after = await tableCounts();
    // 4 demo accounts, 2 venues, 20,000 + 50 seats, 2 shows, every seat on sale in its show.
    expect(after.users - before.users).toBe(4);
    expect(after.venues - before.venues).toBe(2);
    expect(after.seats - before.seats).toBe(20_050);
    expect(after.events - before.events).toBe(2);
    expect(after.eventSeats - before.eventSeats).toBe(20_050);

    const demo = await db().query.events.findFirst({ where: eq(events.slug, DEMO_EVENT_SLUG) });
    expect(demo!.onSaleAt.toISOString()).toBe("2026-12-01T12:07:00.000Z");
    // 20:00 in Berlin (UTC+1 in winter) 60 days on: 30 January 2027, 19:00 UTC.
    expect(demo!.startsAt.toISOString()).toBe("2027-01-30T19:00:00.000Z");
    expect(demo!.holdMinutes).toBe(15);
    expect(demo!.perFanLimit).toBe(4);
    expect(demo!.timeZone).toBe("Europe/Berlin");
    const levels = await db()
      .select({ name: priceLevels.name, n: sql<number>`count(${eventSeats.seatId})::int` })
      .from(priceLevels)
      .leftJoin(eventSeats, eq(eventSeats.priceLevelId, priceLevels.id))
      .where(eq(priceLevels.eventId, demo!.id))
      .groupBy(priceLevels.name);
    expect(levels.length).toBeGreaterThanOrEqual(4);
    expect(levels.reduce((n, l) => n + l.n, 0)).toBe(20_000);
    expect(levels.find((l) => l.name === "Floor standing")!.n).toBe(2_000);

    // a general-admission floor, lower and upper bowls
    const arena = await db().query.venues.findFirst({ where: eq(venues.slug, "stararena-dome") });
    const tiers = await db().selectDistinct({ tier: sections.tier, kind: sections.kind }).from(sections).where(eq(sections.venueId, arena!.id));
    expect(tiers).toEqual(expect.arrayContaining([{ tier: "floor", kind: "general_admission" }, { tier: "lower", kind: "seated" }, { tier: "upper", kind: "seated" }]));

    const small = await db().query.events.findFirst({ where: eq(events.slug, TEST_EVENT_SLUG) });
    const [smallSeats] = await db().select({ n: count() }).from(eventSeats).where(eq(eventSeats.eventId, small!.id));
    expect(smallSeats!.n).toBe(50);
    expect(small!.startsAt.toISOString()).toBe("2026-12-31T19:00:00.000Z");

    const second = await seedDemo(db(), { onSaleDelayMinutes: 99 });
    expect(second.created).toEqual([]);
    expect(second.demoEventId).toBe(first.demoEventId);
    expect(await tableCounts()).toEqual(after);
  });
});
