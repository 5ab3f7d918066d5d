/**
 * The show form's locale-aware inputs: separate 24-hour date and time fields, decimal-comma
 * prices (lib/events/form.ts); and its problems as codes worded in each language.
 */
import { describe, expect, it } from "vitest";
import {
  decodeFormProblem,
  encodeFormProblem,
  eventCreateFormSchema,
  eventEditFormSchema,
  eventFormFromFormData,
  fieldErrors,
  FORM_PROBLEM_CODES,
  formProblemText,
  joinLocalDateTime,
} from "@/lib/events/form";
import en from "@/lib/i18n/messages/en.json";
import zhCN from "@/lib/i18n/messages/zh-CN.json";
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
    expect(formProblemText("en", errors.startsAt!)).toBe("Enter when the show starts as a date such as 2027-03-01 and a 24-hour time such as 19:30");
    expect(formProblemText("zh-CN", errors.startsAt!)).toBe("请按日期（如 2027-03-01）加 24 小时制时间（如 19:30）填写开演时间");
    // English readers get lib/format.ts's exact words; Chinese ones how to write a price of this currency.
    expect(formProblemText("en", errors["priceLevels.0.price"]!)).toMatch(/grouped in threes/);
    expect(formProblemText("zh-CN", errors["priceLevels.0.price"]!)).toBe("请按 79.00 这样的格式填写票价。");
  });
});

describe("the show form's problems", () => {
  const base = { name: "x", startsAt: "2027-06-01T20:00", onSaleAt: "2027-03-01T10:00" };

  it("are stable codes with their facts, worded per language with the numbers in the reader's format", () => {
    const r = eventEditFormSchema.safeParse({ ...base, holdMinutes: "0", activeCap: "2000000", priceLevels: [{ name: "2027", price: "1", currency: "EUR", color: "#123456", rows: "9-1" }] });
    const errors = fieldErrors(r.error!);
    expect(decodeFormProblem(errors.holdMinutes!)).toEqual({ code: "atLeast", params: { what: "holdMinutes", min: 1 } });
    expect(decodeFormProblem(errors["priceLevels.0.rows"]!)).toEqual({ code: "rowsOrder", params: { low: 1, high: 9 } });
    expect(formProblemText("en", errors.holdMinutes!)).toBe("The hold time must be at least 1");
    expect(formProblemText("zh-CN", errors.holdMinutes!)).toBe("锁座时长不能小于 1");
    expect(formProblemText("en", errors.activeCap!)).toBe("The active cap must be at most 1,000,000");
    expect(formProblemText("zh-CN", errors.activeCap!)).toBe("同时购票上限不能大于 1,000,000");
    expect(formProblemText("zh-CN", errors["priceLevels.0.rows"]!)).toBe("范围应从较小的排号到较大的排号（1–9）。");
  });

  it("keep a level's name as typed, even one that looks like a number, and survive any characters", () => {
    const twins = [
      { name: "2027", price: "1", currency: "EUR", color: "#123456" },
      { name: "2027", price: "1", currency: "EUR", color: "#123456" },
    ];
    const same = fieldErrors(eventEditFormSchema.safeParse({ ...base, priceLevels: twins }).error!)["priceLevels.1.name"]!;
    expect(formProblemText("zh-CN", same)).toBe("有两个票档都叫“2027”，请分别命名");
    const odd = encodeFormProblem("sameName", { name: "A&B=C?d #1 100%" });
    expect(decodeFormProblem(odd)).toEqual({ code: "sameName", params: { name: "A&B=C?d #1 100%" } });
    expect(formProblemText("en", odd)).toBe('Two price levels are called "A&B=C?d #1 100%"; give each its own name');
  });

  it("leave text that is no problem code as it is (an AppError's message, already in words)", () => {
    for (const text of ["There is no tier \"X\" in this venue.", "这个时间无效。", "price list", "Rows?"]) {
      expect(decodeFormProblem(text)).toBeNull();
      expect(formProblemText("zh-CN", text)).toBe(text);
    }
  });

  it("each have a message in both catalogues", () => {
    const words = (c: unknown) => (c as { EventForm: { errors: Record<string, string> } }).EventForm.errors;
    for (const code of FORM_PROBLEM_CODES) {
      expect(words(en)[code], code).toBeTruthy();
      expect(words(zhCN)[code], code).toBeTruthy();
    }
  });
});
