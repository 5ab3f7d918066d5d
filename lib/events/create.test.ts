import { eq, sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { ZodError } from "zod";
import { eventSeats, priceLevels, rows, seats } from "@/db/schema";
import { closeDb, db } from "@/lib/db";
import { createEvent, EmptyPriceLevelError } from "@/lib/events/create";
import { seatMatches } from "@/lib/events/seat-rules";
import { makeStudioShow, makeUser } from "@/lib/testing/fixtures";

afterAll(async () => {
  await closeDb();
});

describe("seatMatches", () => {
  const seat = { tier: "lower", section: "104", row: 7 };
  it("needs every given criterion to hold", () => {
    expect(seatMatches({}, seat)).toBe(true);
    expect(seatMatches({ tier: "lower", rows: { from: 1, to: 8 } }, seat)).toBe(true);
    expect(seatMatches({ tier: "lower", rows: { from: 8, to: 20 } }, seat)).toBe(false);
    expect(seatMatches({ sections: ["101", "104"] }, seat)).toBe(true);
    expect(seatMatches({ sections: ["101"], tier: "lower" }, seat)).toBe(false);
  });
});

describe("createEvent", () => {
  it("assigns price levels by row range, first rule wins (studio: rows A–B front, C–E back)", async () => {
    const show = await makeStudioShow(db());
    expect(show.seatsByLevel).toEqual({ Front: 20, Back: 30 });
    const byRow = await db()
      .select({ row: rows.label, level: priceLevels.name, n: sql<number>`count(*)::int` })
      .from(eventSeats)
      .innerJoin(seats, eq(eventSeats.seatId, seats.id))
      .innerJoin(rows, eq(seats.rowId, rows.id))
      .innerJoin(priceLevels, eq(eventSeats.priceLevelId, priceLevels.id))
      .where(eq(eventSeats.eventId, show.eventId))
      .groupBy(rows.label, priceLevels.name)
      .orderBy(rows.label);
    expect(byRow).toEqual([
      { row: "A", level: "Front", n: 10 },
      { row: "B", level: "Front", n: 10 },
      { row: "C", level: "Back", n: 10 },
      { row: "D", level: "Back", n: 10 },
      { row: "E", level: "Back", n: 10 },
    ]);
  });

  it("rejects a level that covers no seat, and bad input, writing nothing", async () => {
    const show = await makeStudioShow(db());
    const organizer = await makeUser(db(), "organizer");
    const base = {
      venueId: show.venueId,
      organizerId: organizer.id,
      name: "Bad show",
      slug: "bad-show",
      startsAt: new Date(Date.now() + 86_400_000),
      onSaleAt: new Date(),
      timeZone: "Europe/Berlin",
    };
    await expect(
      createEvent(db(), { ...base, priceLevels: [{ name: "Nowhere", priceMinor: 100, currency: "EUR", color: "#123456", seats: [{ tier: "upper" }] }] }),
    ).rejects.toThrow(EmptyPriceLevelError);
    await expect(
      createEvent(db(), { ...base, priceLevels: [{ name: "Cheap", priceMinor: 9.99, currency: "EUR", color: "#123456", seats: [{}] }] }),
    ).rejects.toThrow(ZodError);
    await expect(
      createEvent(db(), { ...base, timeZone: "Mars/Olympus", priceLevels: [{ name: "A", priceMinor: 100, currency: "EUR", color: "#123456", seats: [{}] }] }),
    ).rejects.toThrow(/IANA time zone/);
    await expect(
      createEvent(db(), { ...base, onSaleAt: new Date(Date.now() + 2 * 86_400_000), priceLevels: [{ name: "A", priceMinor: 100, currency: "EUR", color: "#123456", seats: [{}] }] }),
    ).rejects.toThrow(/on-sale must open before the show/);
    const none = await db().select().from(priceLevels).where(eq(priceLevels.name, "Nowhere"));
    expect(none).toEqual([]);
  });
});
