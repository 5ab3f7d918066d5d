import { asc, eq, sql } from "drizzle-orm";
import { afterAll, describe, expect, it, vi } from "vitest";
import { eventSeats, events, orders, priceLevels } from "@/db/schema";
import { closeDb, db } from "@/lib/db";
import { EventNotFoundError, EventTimeError, NotYourEventError, OnSaleLockedError, PriceLevelsLockedError, SeatRuleError, SlugTakenError } from "@/lib/events/errors";
import { eventCreateFormSchema, eventEditFormSchema, eventFormFromFormData, fieldErrors as problems, formProblemText, parseRowRange } from "@/lib/events/form";
import { getEventSetup } from "@/lib/events/edit-view";
import { createEventFromForm, publishEvent, updateEvent, updateEventFromForm } from "@/lib/events/setup";
import { parseMajorUnits } from "@/lib/format";
import { LocalTimeError, utcToZonedLocal, zonedLocalToUtc } from "@/lib/time-zone";
import { listVenues, venueSections } from "@/lib/venues/queries";
import { listPublishedEvents } from "@/lib/events/queries";
import { newId } from "@/lib/ids";
import { closeRedis } from "@/lib/redis";
import { makeStudioShow, makeUser } from "@/lib/testing/fixtures";
import { publicQueueStatus } from "@/lib/waiting-room/queue";

afterAll(async () => {
  await closeRedis();
  await closeDb();
});

const iso = (d: Date) => d.toISOString();
/** The form's problems as an English reader reads them. */
const fieldErrors = (error: Parameters<typeof problems>[0]) => Object.fromEntries(Object.entries(problems(error)).map(([k, v]) => [k, formProblemText("en", v)]));
const HOUR = 3_600_000;

describe("zonedLocalToUtc", () => {
  // Expected instants worked out by hand: Europe/Berlin is UTC+1 (CET) in winter and UTC+2
  // (CEST) in summer; in 2027 the clocks go 02:00→03:00 on Sun 28 March and 03:00→02:00 on
  // Sun 31 October, both at 01:00 UTC.
  it("reads plain winter and summer times in Berlin", () => {
    expect(iso(zonedLocalToUtc("2027-03-01T19:30", "Europe/Berlin"))).toBe("2027-03-01T18:30:00.000Z");
    expect(iso(zonedLocalToUtc("2027-07-15T20:00", "Europe/Berlin"))).toBe("2027-07-15T18:00:00.000Z");
    expect(iso(zonedLocalToUtc("2027-12-31 23:59:30", "Europe/Berlin"))).toBe("2027-12-31T22:59:30.000Z");
  });

  it("crosses the spring change (2027-03-28): before, the skipped hour, after", () => {
    expect(iso(zonedLocalToUtc("2027-03-28T01:59", "Europe/Berlin"))).toBe("2027-03-28T00:59:00.000Z");
    expect(() => zonedLocalToUtc("2027-03-28T02:00", "Europe/Berlin")).toThrow(LocalTimeError);
    expect(() => zonedLocalToUtc("2027-03-28T02:30", "Europe/Berlin")).toThrow(/does not exist in Europe\/Berlin/);
    expect(iso(zonedLocalToUtc("2027-03-28T03:00", "Europe/Berlin"))).toBe("2027-03-28T01:00:00.000Z");
    expect(iso(zonedLocalToUtc("2027-03-28T03:30", "Europe/Berlin"))).toBe("2027-03-28T01:30:00.000Z");
    // 19:30 on each side of the change is a different number of hours apart than 24.
    const sat = zonedLocalToUtc("2027-03-27T19:30", "Europe/Berlin");
    const sun = zonedLocalToUtc("2027-03-28T19:30", "Europe/Berlin");
    expect(sun.getTime() - sat.getTime()).toBe(23 * HOUR);
  });

  it("crosses the autumn change (2027-10-31): the repeated hour resolves to its first occurrence", () => {
    expect(iso(zonedLocalToUtc("2027-10-31T01:30", "Europe/Berlin"))).toBe("2027-10-30T23:30:00.000Z");
    // 02:30 happens at 00:30Z (CEST) and again at 01:30Z (CET): the earlier one.
    expect(iso(zonedLocalToUtc("2027-10-31T02:30", "Europe/Berlin"))).toBe("2027-10-31T00:30:00.000Z");
    expect(iso(zonedLocalToUtc("2027-10-31T03:00", "Europe/Berlin"))).toBe("2027-10-31T02:00:00.000Z");
    expect(iso(zonedLocalToUtc("2027-10-31T03:30", "Europe/Berlin"))).toBe("2027-10-31T02:30:00.000Z");
    const sat = zonedLocalToUtc("2027-10-30T19:30", "Europe/Berlin");
    const sun = zonedLocalToUtc("2027-10-31T19:30", "Europe/Berlin");
    expect(sun.getTime() - sat.getTime()).toBe(25 * HOUR);
  });

  it("handles other zones: New York, Sydney (southern hemisphere), Kolkata (+05:30), UTC", () => {
    // New York: EST −5 / EDT −4; 2027 changes on Sun 14 March (02:00→03:00) and Sun 7 November (02:00→01:00).
    expect(() => zonedLocalToUtc("2027-03-14T02:30", "America/New_York")).toThrow(LocalTimeError);
    expect(iso(zonedLocalToUtc("2027-03-14T03:30", "America/New_York"))).toBe("2027-03-14T07:30:00.000Z");
    expect(iso(zonedLocalToUtc("2027-11-07T01:30", "America/New_York"))).toBe("2027-11-07T05:30:00.000Z");
    // Sydney: AEDT +11 until Sun 4 April 2027 03:00 (→02:00 AEST +10); AEST until Sun 3 October 02:00 (→03:00).
    expect(iso(zonedLocalToUtc("2027-04-04T02:30", "Australia/Sydney"))).toBe("2027-04-03T15:30:00.000Z");
    expect(() => zonedLocalToUtc("2027-10-03T02:30", "Australia/Sydney")).toThrow(LocalTimeError);
    expect(iso(zonedLocalToUtc("2027-10-03T03:30", "Australia/Sydney"))).toBe("2027-10-02T16:30:00.000Z");
    expect(iso(zonedLocalToUtc("2027-03-01T19:30", "Asia/Kolkata"))).toBe("2027-03-01T14:00:00.000Z");
    expect(iso(zonedLocalToUtc("2027-03-01T19:30", "UTC"))).toBe("2027-03-01T19:30:00.000Z");
  });

  it("refuses malformed input, impossible dates and unknown zones", () => {
    expect(() => zonedLocalToUtc("2027-02-30T19:30", "Europe/Berlin")).toThrow(/not a real date/);
    expect(() => zonedLocalToUtc("2027-03-01T24:00", "Europe/Berlin")).toThrow(LocalTimeError);
    expect(() => zonedLocalToUtc("1 March 2027", "Europe/Berlin")).toThrow(/such as 2027-03-01T19:30/);
    expect(() => zonedLocalToUtc("2027-03-01T19:30", "Mars/Olympus")).toThrow(/not a time zone/);
  });

  it("utcToZonedLocal is its inverse", () => {
    expect(utcToZonedLocal(new Date("2027-03-01T18:30:00Z"), "Europe/Berlin")).toBe("2027-03-01T19:30");
    expect(utcToZonedLocal(new Date("2027-10-31T01:30:00Z"), "Europe/Berlin")).toBe("2027-10-31T02:30");
    for (const local of ["2027-01-10T08:05", "2027-03-28T03:15", "2027-10-31T01:59", "2027-10-31T03:00"]) {
      expect(utcToZonedLocal(zonedLocalToUtc(local, "Europe/Berlin"), "Europe/Berlin")).toBe(local);
    }
  });
});

describe("form parsing", () => {
  it("prices in major units become minor units", () => {
    expect(parseMajorUnits("79.00", "EUR")).toBe(7_900);
    expect(parseMajorUnits("79", "EUR")).toBe(7_900);
    expect(parseMajorUnits(" 79.5 ", "EUR")).toBe(7_950);
    expect(parseMajorUnits("1,079.99", "EUR")).toBe(107_999);
    expect(parseMajorUnits("0", "EUR")).toBe(0);
    expect(parseMajorUnits("5000", "JPY")).toBe(5_000);
    expect(() => parseMajorUnits("79.001", "EUR")).toThrow(/at most 2 decimals/);
    expect(() => parseMajorUnits("50.5", "JPY")).toThrow(/no decimals/);
    expect(() => parseMajorUnits("€79", "EUR")).toThrow(/such as 79.00/);
    expect(() => parseMajorUnits("-5", "EUR")).toThrow();
  });

  it("row ranges", () => {
    expect(parseRowRange("1–2")).toEqual({ from: 1, to: 2 });
    expect(parseRowRange(" 3 - 5 ")).toEqual({ from: 3, to: 5 });
    expect(parseRowRange("4")).toEqual({ from: 4, to: 4 });
    expect(parseRowRange("")).toBeUndefined();
    expect(() => parseRowRange("5–3")).toThrow(/^rowsOrder\?low=3&high=5$/);
    expect(() => parseRowRange("front")).toThrow(/^rowsFormat$/);
  });

  function formData(entries: Record<string, string>): FormData {
    const fd = new FormData();
    for (const [k, v] of Object.entries(entries)) fd.append(k, v);
    return fd;
  }

  it("a valid form parses into createEvent's shapes (rules per tier, sections, row range)", () => {
    const parsed = eventCreateFormSchema.parse(
      eventFormFromFormData(
        formData({
          $ACTION_ID_x: "",
          venueId: "ven_x",
          name: " Night ",
          slug: "Night-2027",
          description: "",
          startsAt: "2027-06-01T20:00",
          onSaleAt: "2027-03-01T10:00",
          holdMinutes: "",
          perFanLimit: "6",
          admissionRatePerMinute: "300",
          activeCap: "1000",
          "levels.0.name": "Front",
          "levels.0.price": "79.00",
          "levels.0.currency": "eur",
          "levels.0.color": "#7C3AED",
          "levels.0.tiers": "lower, upper",
          "levels.0.sections": "",
          "levels.0.rows": "1–2",
          "levels.1.name": "Rest",
          "levels.1.price": "49",
          "levels.1.currency": "EUR",
          "levels.1.color": "#0d9488",
          "levels.1.sections": "101,102",
        }),
      ),
    );
    expect(parsed).toMatchObject({ name: "Night", slug: "night-2027", holdMinutes: 15, perFanLimit: 6, admissionRatePerMinute: 300, activeCap: 1000 });
    expect(parsed.priceLevels).toEqual([
      {
        name: "Front",
        priceMinor: 7_900,
        currency: "EUR",
        color: "#7c3aed",
        seats: [
          { tier: "lower", rows: { from: 1, to: 2 } },
          { tier: "upper", rows: { from: 1, to: 2 } },
        ],
      },
      { name: "Rest", priceMinor: 4_900, currency: "EUR", color: "#0d9488", seats: [{ sections: ["101", "102"] }] },
    ]);
  });

  it("bad input gives one readable message per field", () => {
    const result = eventCreateFormSchema.safeParse(
      eventFormFromFormData(
        formData({
          venueId: "",
          name: "",
          slug: "Not a slug!",
          startsAt: "tomorrow",
          onSaleAt: "",
          holdMinutes: "0",
          perFanLimit: "2.5",
          admissionRatePerMinute: "lots",
          activeCap: "10",
          "levels.0.name": "A",
          "levels.0.price": "12.345",
          "levels.0.currency": "EURO",
          "levels.0.color": "#123456",
          "levels.1.name": "a",
          "levels.1.price": "abc",
          "levels.1.currency": "EUR",
          "levels.1.color": "red",
          "levels.1.rows": "9-1",
        }),
      ),
    );
    expect(result.success).toBe(false);
    const errors = fieldErrors(result.error!);
    expect(errors).toMatchObject({
      venueId: "Choose a venue",
      name: "Give the show a name",
      slug: expect.stringMatching(/lower-case letters/),
      startsAt: expect.stringMatching(/such as 2027-03-01 and a 24-hour time such as 19:30/),
      onSaleAt: "Enter when the on-sale opens",
      holdMinutes: "The hold time must be at least 1",
      perFanLimit: "The per-fan limit must be a whole number",
      admissionRatePerMinute: "The admission rate must be a whole number",
      "priceLevels.0.currency": expect.stringMatching(/three-letter/),
      "priceLevels.1.color": expect.stringMatching(/colour/),
    });
    // With a valid currency and colour the price and row messages show too.
    const again = eventEditFormSchema.safeParse(
      eventFormFromFormData(
        formData({
          name: "x",
          startsAt: "2027-06-01T20:00",
          onSaleAt: "2027-03-01T10:00",
          "levels.0.name": "A",
          "levels.0.price": "12.345",
          "levels.0.currency": "EUR",
          "levels.0.color": "#123456",
          "levels.1.name": "a",
          "levels.1.price": "abc",
          "levels.1.currency": "USD",
          "levels.1.color": "#123456",
          "levels.1.rows": "9-1",
        }),
      ),
    );
    expect(fieldErrors(again.error!)).toEqual({
      "priceLevels.0.price": "\"12.345\" is ambiguous: EUR prices have at most 2 decimals, so write 12345 for 12345, or 12.34 for the decimals.",
      "priceLevels.1.price": "Enter the price as a number such as 79.00 or 79,00.",
      "priceLevels.1.rows": expect.stringMatching(/lower row to the higher/),
    });
  });

  it("the edit form may leave the price levels out; more than 8 are refused", () => {
    const base = { name: "x", startsAt: "2027-06-01T20:00", onSaleAt: "2027-03-01T10:00" };
    expect(eventEditFormSchema.parse(base).priceLevels).toBeUndefined();
    const nine = Array.from({ length: 9 }, (_, i) => ({ name: `L${i}`, price: "1", currency: "EUR", color: "#123456" }));
    expect(fieldErrors(eventEditFormSchema.safeParse({ ...base, priceLevels: nine }).error!)).toEqual({ priceLevels: "A show has at most 8 price levels" });
    const twins = [nine[0], { ...nine[1], name: "l0", currency: "USD" }];
    expect(fieldErrors(eventEditFormSchema.safeParse({ ...base, priceLevels: twins }).error!)).toEqual({
      "priceLevels.1.name": 'Two price levels are called "l0"; give each its own name',
      "priceLevels.1.currency": "Use the same currency for every level (EUR)",
    });
  });
});

const frontBack = [
  { name: "Front", price: "45.00", currency: "EUR", color: "#7c3aed", tiers: "", sections: "", rows: "1–2" },
  { name: "Back", price: "29.00", currency: "EUR", color: "#0d9488", tiers: "", sections: "", rows: "3-5" },
];

/** A draft studio show whose on-sale is a week away. */
async function draftShow() {
  const now = Date.now();
  return makeStudioShow(db(), { status: "draft", onSaleAt: new Date(now + 7 * 86_400_000), startsAt: new Date(now + 30 * 86_400_000) });
}

async function levelsOf(eventId: string) {
  return db()
    .select({ name: priceLevels.name, priceMinor: priceLevels.priceMinor, seats: sql<number>`count(${eventSeats.seatId})::int` })
    .from(priceLevels)
    .leftJoin(eventSeats, eq(eventSeats.priceLevelId, priceLevels.id))
    .where(eq(priceLevels.eventId, eventId))
    .groupBy(priceLevels.id)
    .orderBy(asc(priceLevels.sortOrder));
}

async function addOrder(eventId: string) {
  const fan = await makeUser(db(), "fan");
  await db()
    .insert(orders)
    .values({ id: newId("ord"), eventId, fanId: fan.id, holdId: newId("hld"), holdExpiresAt: new Date(Date.now() - 60_000), totalMinor: 4_500, currency: "EUR", status: "expired" });
}

describe("venues for the form", () => {
  it("lists venues and a venue's sections with tiers and row counts", async () => {
    const show = await draftShow();
    const venues = await listVenues(db());
    expect(venues.find((v) => v.id === show.venueId)).toMatchObject({ name: "Test Studio", timeZone: "Europe/Berlin", capacity: 50 });
    expect(await venueSections(db(), show.venueId)).toEqual([{ code: "MAIN", name: "Main", tier: "main", kind: "seated", rows: 5, seats: 50 }]);
    expect(await venueSections(db(), "ven_nope")).toEqual([]);
  });
});

describe("createEventFromForm", () => {
  it("creates a draft with UTC instants from the venue's local times and seats by rule", async () => {
    const { venueId } = await draftShow();
    const organizer = await makeUser(db(), "organizer");
    const slug = `setup-${Date.now().toString(36)}`;
    const form = eventCreateFormSchema.parse({
      venueId,
      name: "Spring night",
      slug,
      startsAt: "2030-03-31T20:00",
      onSaleAt: "2030-03-01T10:00",
      priceLevels: [frontBack[0], { ...frontBack[1], sections: "main", tiers: "" }],
    });
    const { eventId, seatsByLevel } = await createEventFromForm(db(), organizer.id, form);
    expect(seatsByLevel).toEqual({ Front: 20, Back: 30 });
    const row = await db().query.events.findFirst({ where: eq(events.id, eventId) });
    // Berlin: 1 March 2030 is CET (+1), 31 March 2030 is CEST (+2; the change is on 31 March at 01:00Z).
    expect(row).toMatchObject({ status: "draft", organizerId: organizer.id, timeZone: "Europe/Berlin", holdMinutes: 15, perFanLimit: 4 });
    expect(iso(row!.onSaleAt)).toBe("2030-03-01T09:00:00.000Z");
    expect(iso(row!.startsAt)).toBe("2030-03-31T18:00:00.000Z");

    await expect(createEventFromForm(db(), organizer.id, form)).rejects.toThrow(SlugTakenError);
    await expect(createEventFromForm(db(), organizer.id, { ...form, slug: `${slug}-c`, venueId: "ven_nope" })).rejects.toMatchObject({ field: "venueId" });
    await expect(createEventFromForm(db(), organizer.id, { ...form, slug: `${slug}-d`, onSaleAt: "2030-04-01T10:00" })).rejects.toMatchObject({ field: "onSaleAt", message: "The on-sale must open before the show starts." });
    await expect(createEventFromForm(db(), organizer.id, { ...form, slug: `${slug}-e`, startsAt: "2030-03-31T02:30" })).rejects.toMatchObject({ field: "startsAt", message: expect.stringMatching(/does not exist/) });
    await expect(createEventFromForm(db(), organizer.id, { ...form, slug: `${slug}-f`, startsAt: "2020-03-01T20:00", onSaleAt: "2020-02-01T10:00" })).rejects.toThrow(EventTimeError);
    const unknownSection = eventCreateFormSchema.parse({ ...form, slug: `${slug}-g`, priceLevels: [frontBack[0], { ...frontBack[1], sections: "BALCONY" }] });
    await expect(createEventFromForm(db(), organizer.id, unknownSection)).rejects.toMatchObject({ name: "SeatRuleError", field: "priceLevels.1.sections", message: expect.stringMatching(/No section BALCONY.*MAIN/) });
    const unknownTier = eventCreateFormSchema.parse({ ...form, slug: `${slug}-h`, priceLevels: [{ ...frontBack[0], tiers: "floor" }] });
    await expect(createEventFromForm(db(), organizer.id, unknownTier)).rejects.toThrow(SeatRuleError);
    await expect(createEventFromForm(db(), organizer.id, unknownTier)).rejects.toMatchObject({ field: "priceLevels.0.tiers", message: 'There is no tier "floor" in this venue. Its tiers: main.' });
    // A level whose seats the levels before it already took.
    const shadowed = eventCreateFormSchema.parse({ ...form, slug: `${slug}-i`, priceLevels: [{ ...frontBack[0], rows: "" }, frontBack[1]] });
    await expect(createEventFromForm(db(), organizer.id, shadowed)).rejects.toMatchObject({ field: "priceLevels.1.rows", message: expect.stringMatching(/No seat is left for "Back"/) });
    const written = await db().select({ n: sql<number>`count(*)::int` }).from(events).where(sql`${events.slug} like ${`${slug}-%`}`);
    expect(written[0]!.n).toBe(0);
  });
});

describe("updateEvent", () => {
  it("lets the owner edit every field and replace the levels of a draft", async () => {
    const show = await draftShow();
    const startsAt = new Date(Date.now() + 60 * 86_400_000);
    const result = await updateEvent(db(), show.eventId, show.organizerId, {
      name: "Renamed",
      description: "Now with strings",
      startsAt,
      holdMinutes: 10,
      perFanLimit: 2,
      admissionRatePerMinute: 120,
      activeCap: 40,
      priceLevels: [
        { name: "Row A", priceMinor: 9_900, currency: "EUR", color: "#ff0000", seats: [{ rows: { from: 1, to: 1 } }] },
        { name: "Middle", priceMinor: 5_000, currency: "EUR", color: "#00ff00", seats: [{ rows: { from: 2, to: 3 } }] },
        { name: "Rear", priceMinor: 2_500, currency: "EUR", color: "#0000ff", seats: [{}] },
      ],
    });
    expect(result).toMatchObject({ levelsReplaced: true, seatsByLevel: { "Row A": 10, Middle: 20, Rear: 20 }, status: "draft" });
    const row = await db().query.events.findFirst({ where: eq(events.id, show.eventId) });
    expect(row).toMatchObject({ name: "Renamed", description: "Now with strings", holdMinutes: 10, perFanLimit: 2, admissionRatePerMinute: 120, activeCap: 40 });
    expect(row!.startsAt.getTime()).toBe(startsAt.getTime());
    expect(await levelsOf(show.eventId)).toEqual([
      { name: "Row A", priceMinor: 9_900, seats: 10 },
      { name: "Middle", priceMinor: 5_000, seats: 20 },
      { name: "Rear", priceMinor: 2_500, seats: 20 },
    ]);
  });

  it("refuses another organizer, an unknown show, and times out of order", async () => {
    const show = await draftShow();
    const other = await makeUser(db(), "organizer");
    await expect(updateEvent(db(), show.eventId, other.id, { name: "Mine now" })).rejects.toThrow(NotYourEventError);
    await expect(publishEvent(db(), show.eventId, other.id)).rejects.toThrow(NotYourEventError);
    await expect(updateEvent(db(), "evt_doesnotexist", show.organizerId, { name: "x" })).rejects.toThrow(EventNotFoundError);
    await expect(publishEvent(db(), "evt_doesnotexist", show.organizerId)).rejects.toThrow(EventNotFoundError);
    await expect(updateEvent(db(), show.eventId, show.organizerId, { onSaleAt: new Date(Date.now() + 90 * 86_400_000) })).rejects.toMatchObject({ field: "onSaleAt" });
    const row = await db().query.events.findFirst({ where: eq(events.id, show.eventId) });
    expect(row).toMatchObject({ name: "Test show", status: "draft" });
  });

  it("refuses to change the levels of a show with orders, but still edits the rest", async () => {
    const show = await draftShow();
    await addOrder(show.eventId);
    const newLevels = [{ name: "Everything", priceMinor: 1_000, currency: "EUR", color: "#123456", seats: [{}] }];
    const attempt = updateEvent(db(), show.eventId, show.organizerId, { name: "Changed too", priceLevels: newLevels });
    await expect(attempt).rejects.toThrow(PriceLevelsLockedError);
    await expect(attempt).rejects.toMatchObject({ reason: "orders", status: 409, message: expect.stringMatching(/already has orders/) });
    expect((await db().query.events.findFirst({ where: eq(events.id, show.eventId) }))!.name).toBe("Test show");
    expect(await levelsOf(show.eventId)).toEqual([
      { name: "Front", priceMinor: 4_500, seats: 20 },
      { name: "Back", priceMinor: 2_900, seats: 30 },
    ]);

    // The same levels sent back unchanged are fine (the edit form of an unlocked show always sends them).
    const same = await updateEventFromForm(
      db(),
      show.eventId,
      show.organizerId,
      eventEditFormSchema.parse({ ...(await getEventSetup(db(), show.eventId))!.form, name: "Only the name", priceLevels: frontBack }),
    );
    expect(same.levelsReplaced).toBe(false);
    expect((await db().query.events.findFirst({ where: eq(events.id, show.eventId) }))!.name).toBe("Only the name");

    const setup = await getEventSetup(db(), show.eventId);
    expect(setup).toMatchObject({ orderCount: 1, levelsLocked: "orders", seatsOnSale: 50 });
  });

  it("a published show: levels may change before its on-sale; once open, levels and the on-sale time are fixed", async () => {
    const show = await draftShow();
    expect(await publishEvent(db(), show.eventId, show.organizerId)).toBe(true);
    const one = [{ name: "All", priceMinor: 3_000, currency: "EUR", color: "#123456", seats: [{}] }];
    expect((await updateEvent(db(), show.eventId, show.organizerId, { priceLevels: one })).levelsReplaced).toBe(true);

    const open = await makeStudioShow(db()); // published, on sale since a minute ago
    await expect(updateEvent(db(), open.eventId, open.organizerId, { priceLevels: one })).rejects.toMatchObject({ reason: "on_sale" });
    await expect(updateEvent(db(), open.eventId, open.organizerId, { onSaleAt: new Date(Date.now() + 3_600_000) })).rejects.toThrow(OnSaleLockedError);
    const ok = await updateEvent(db(), open.eventId, open.organizerId, { description: "Doors at 19:00", perFanLimit: 6 });
    expect(ok).toMatchObject({ levelsReplaced: false, status: "published" });
  });

  it("whether the on-sale has opened is Postgres's clock: an instance 30 s behind can neither move it nor change the levels (docs/adr/0024)", async () => {
    const [row] = (await db().execute(sql`select now() as now`)) as unknown as { now: string | Date }[];
    const onSaleAt = new Date(new Date(row!.now).getTime() - 10_000); // opened 10 s ago
    const open = await makeStudioShow(db(), { onSaleAt });
    const one = [{ name: "All", priceMinor: 3_000, currency: "EUR", color: "#123456", seats: [{}] }];
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    vi.setSystemTime(Date.now() - 30_000);
    try {
      await expect(updateEvent(db(), open.eventId, open.organizerId, { onSaleAt: new Date(Date.now() + 3_600_000) })).rejects.toThrow(OnSaleLockedError);
      await expect(updateEvent(db(), open.eventId, open.organizerId, { priceLevels: one })).rejects.toMatchObject({ reason: "on_sale" });
      expect((await getEventSetup(db(), open.eventId))!.levelsLocked).toBe("on_sale");
    } finally {
      vi.useRealTimers();
    }
    const [after] = await db().select({ onSaleAt: events.onSaleAt }).from(events).where(eq(events.id, open.eventId));
    expect(after!.onSaleAt.getTime()).toBe(onSaleAt.getTime());
  });

  it("a published show's new admission rate and cap reach the waiting room at once", async () => {
    const open = await makeStudioShow(db());
    const before = await publicQueueStatus(db(), open.eventId); // loads the configuration into Redis
    expect(before.ratePerMinute).toBe(600);
    await updateEvent(db(), open.eventId, open.organizerId, { admissionRatePerMinute: 90, activeCap: 25 });
    const after = await publicQueueStatus(db(), open.eventId);
    expect(after).toMatchObject({ ratePerMinute: 90, activeCap: 25 });
  });
});

describe("getEventSetup", () => {
  it("gives the form its starting values: local times, major-unit prices, rules derived from the inventory", async () => {
    const show = await makeStudioShow(db(), { status: "draft", startsAt: new Date("2031-10-26T18:00:00Z"), onSaleAt: new Date("2031-03-01T09:00:00Z") });
    const setup = await getEventSetup(db(), show.eventId);
    expect(setup).toMatchObject({ orderCount: 0, levelsLocked: null, rulesExact: true, seatsOnSale: 50 });
    expect(setup!.form).toMatchObject({
      venueId: show.venueId,
      startsAt: "2031-10-26T19:00",
      onSaleAt: "2031-03-01T10:00",
      holdMinutes: "15",
      priceLevels: [
        { name: "Front", price: "45.00", currency: "EUR", color: "#7c3aed", tiers: "", sections: "", rows: "1–2" },
        { name: "Back", price: "29.00", currency: "EUR", color: "#0d9488", tiers: "", sections: "", rows: "3–5" },
      ],
    });
    expect(await getEventSetup(db(), "evt_doesnotexist")).toBeNull();
  });
});

describe("publishEvent", () => {
  it("publishes a draft once; the second call is a no-op returning false; the home list shows it", async () => {
    const show = await draftShow();
    expect((await listPublishedEvents(db())).some((e) => e.id === show.eventId)).toBe(false);
    const [first, second] = await Promise.all([publishEvent(db(), show.eventId, show.organizerId), publishEvent(db(), show.eventId, show.organizerId)]);
    expect([first, second].sort()).toEqual([false, true]);
    expect(await publishEvent(db(), show.eventId, show.organizerId)).toBe(false);
    expect((await db().query.events.findFirst({ where: eq(events.id, show.eventId) }))!.status).toBe("published");
    expect((await listPublishedEvents(db())).some((e) => e.id === show.eventId)).toBe(true);
  });
});
