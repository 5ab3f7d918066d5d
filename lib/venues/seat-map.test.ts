/**
 * The seat map shows each show's own price levels, also when the venue has several shows, and
 * carries each seat's parts (section, row label, number) rather than a stored English label.
 */
import { afterAll, describe, expect, it } from "vitest";
import { closeDb, db } from "@/lib/db";
import { createEvent } from "@/lib/events/create";
import { translator } from "@/lib/i18n/translate";
import { makeStudioShow } from "@/lib/testing/fixtures";
import { getSeatMap } from "@/lib/venues/seat-map";
import { seatLabel, type SeatWords } from "@/lib/venues/seat-label";
import { seatParts } from "@/lib/venues/seat-map-nav";

afterAll(async () => {
  await closeDb();
});

describe("getSeatMap", () => {
  it("colours 50 studio seats 20 front + 30 back, unaffected by a second show of the venue", async () => {
    const first = await makeStudioShow(db());
    const now = Date.now();
    const { eventId: second } = await createEvent(db(), {
      venueId: first.venueId,
      organizerId: first.organizerId,
      name: "Second show",
      slug: `second-${now}`,
      startsAt: new Date(now + 2 * 86_400_000),
      onSaleAt: new Date(now),
      timeZone: "Europe/Berlin",
      priceLevels: [{ name: "All", priceMinor: 1_000, currency: "EUR", color: "#111111", seats: [{}] }],
    });
    const a = (await getSeatMap(db(), first.eventId))!;
    const counts = a.levels.map((_, i) => a.seats.level.filter((l) => l === i).length);
    expect(a.levels.map((l) => l.name)).toEqual(["Front", "Back"]);
    expect(counts).toEqual([20, 30]);
    const b = (await getSeatMap(db(), second))!;
    expect(b.seats.level.filter((l) => l === 0)).toHaveLength(50);
    expect(await getSeatMap(db(), "evt_nosuchshow")).toBeNull();
  });

  it("gives every studio seat its section, row (A = 0 … E = 4) and number, and the rows' pitch of 14 plan units", async () => {
    const show = await makeStudioShow(db());
    const map = (await getSeatMap(db(), show.eventId))!;
    // lib/venues/plan.ts studioPlan: ordinals 0..49 row by row, 10 seats a row, numbered 1..10.
    expect(map.seats.section).toEqual(new Array(50).fill(0));
    expect(map.seats.row).toEqual(Array.from({ length: 50 }, (_, i) => Math.floor(i / 10)));
    expect(map.seats.number).toEqual(Array.from({ length: 50 }, (_, i) => (i % 10) + 1));
    expect(map.rows).toEqual(["A", "B", "C", "D", "E"]);
    expect(map.seats).not.toHaveProperty("label");
    // Composed from the parts, in the reader's language: the stored label in English.
    expect(seatLabel(translator("en", "Seat") as unknown as SeatWords, seatParts(map, 12))).toBe("Sec MAIN · Row B · Seat 3");
    expect(seatLabel(translator("zh-CN", "Seat") as unknown as SeatWords, seatParts(map, 12))).toBe("MAIN区 B排 3号");
    expect(map.pitch).toBe(14);
  });
});
