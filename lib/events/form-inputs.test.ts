/** The show form's locale-aware inputs: separate 24-hour date and time fields, decimal-comma prices (lib/events/form.ts). */
import { describe, expect, it } from "vitest";
import { eventCreateFormSchema, eventFormFromFormData, fieldErrors, joinLocalDateTime } from "@/lib/events/form";
import { zonedLocalToUtc } from "@/lib/time-zone";

describe("joinLocalDateTime", () => {
  const cases: [string, string, string][] = [
    ["2027-03-01", "19:30", "2027-03-01T19:30"],
    ["2027-03-01", "9:05", "2027-03-01T09:05"],
    ["2027-03-01", "19.30", "2027-03-01T19:30"],
    [" 2027-03-01 ", " 00:00 ", "2027-03-01T00:00"],
    ["", "", ""],
    ["03/01/2027", "7:30 PM", "03/01/2027 7:30 PM"], // passed on as typed: the schema refuses it by name
    ["2027-03-01", "", "2027-03-01"],
  ];
  it.each(cases)("%s + %s → %s", (date, time, joined) => expect(joinLocalDateTime(date, time)).toBe(joined));
});

describe("the show form's date, time and price inputs", () => {
  const form = (fields: Record<string, string>) => {
    const f = new FormData();
    for (const [k, v] of Object.entries({
      venueId: "ven_x",
      name: "Night",
      slug: "night",
      holdMinutes: "15",
      perFanLimit: "4",
      admissionRatePerMinute: "600",
      activeCap: "2000",
      "levels.0.name": "Front",
      "levels.0.currency": "EUR",
      "levels.0.color": "#123456",
      ...fields,
    }))
      f.append(k, v);
    return eventFormFromFormData(f);
  };

  it("joins date and 24-hour time, reads a decimal-comma price, and the venue's zone turns it into UTC", () => {
    const raw = form({ startsAtDate: "2027-03-01", startsAtTime: "20:00", onSaleAtDate: "2027-01-15", onSaleAtTime: "10:00", "levels.0.price": "35,50" });
    expect(raw.startsAt).toBe("2027-03-01T20:00");
    expect(raw).not.toHaveProperty("startsAtDate");
    const parsed = eventCreateFormSchema.parse(raw);
    expect(parsed.startsAt).toBe("2027-03-01T20:00");
    expect(parsed.priceLevels[0]!.priceMinor).toBe(3_550);
    // Berlin is UTC+1 in March before DST: 20:00 local is 19:00Z.
    expect(zonedLocalToUtc(parsed.startsAt, "Europe/Berlin").toISOString()).toBe("2027-03-01T19:00:00.000Z");
  });

  it("a US-style date and 12-hour time are refused with a message saying how to write them", () => {
    const r = eventCreateFormSchema.safeParse(form({ startsAtDate: "03/01/2027", startsAtTime: "8:00 PM", onSaleAtDate: "2027-01-15", onSaleAtTime: "10:00", "levels.0.price": "1,234,5" }));
    expect(r.success).toBe(false);
    const errors = fieldErrors(r.error!);
    expect(errors.startsAt).toBe("Enter when the show starts as a date such as 2027-03-01 and a 24-hour time such as 19:30");
    expect(errors["priceLevels.0.price"]).toMatch(/grouped in threes/);
  });
});
