/**
 * Show set-up refusals carry distinct codes with their facts, so a Chinese organizer reads the
 * specific message (the catalogue's `errors.<code>`) while English reads exactly as it is raised.
 * Pure: the errors as lib/events/setup.ts and ./seat-rules.ts raise them, answered through
 * lib/errors.ts `toErrorBody` the way the action and route wrappers answer them.
 */
import { describe, expect, it } from "vitest";
import { toErrorBody } from "@/lib/errors";
import { EventTimeError, PriceLevelsLockedError, SeatRuleError, SlugTakenError } from "@/lib/events/errors";
import { LocalTimeError, zonedLocalToUtc } from "@/lib/time-zone";

const zh = (e: unknown) => toErrorBody(e, "req", "zh-CN");
const en = (e: unknown) => toErrorBody(e, "req", "en");

describe("EventTimeError", () => {
  it("a show starting in the past and an on-sale after the start: each its own code and Chinese message", () => {
    const past = new EventTimeError({ code: "show_in_past" }, "startsAt");
    expect(en(past)).toEqual({ error: "The show must start in the future.", code: "show_in_past", field: "startsAt" });
    expect(zh(past)).toEqual({ error: "开演时间必须晚于现在。", code: "show_in_past", field: "startsAt" });
    const late = new EventTimeError({ code: "onsale_after_start" }, "onSaleAt");
    expect(en(late)).toEqual({ error: "The on-sale must open before the show starts.", code: "onsale_after_start", field: "onSaleAt" });
    expect(zh(late)).toEqual({ error: "开售时间必须早于开演时间。", code: "onsale_after_start", field: "onSaleAt" });
  });

  it("a time the venue's clock skips keeps the time zone module's English and names the time and zone in Chinese", () => {
    let skipped: LocalTimeError | undefined;
    try {
      zonedLocalToUtc("2027-03-28T02:30", "Europe/Berlin"); // clocks go 02:00 → 03:00 that night
    } catch (e) {
      skipped = e as LocalTimeError;
    }
    expect(skipped).toBeInstanceOf(LocalTimeError);
    const e = new EventTimeError({ code: "no_such_local_time", time: "2027-03-28T02:30", timeZone: "Europe/Berlin", english: skipped!.message }, "onSaleAt");
    expect(en(e).error).toBe("2027-03-28 02:30 does not exist in Europe/Berlin: the clocks skip that hour (daylight saving time begins). Choose a time outside it.");
    expect(zh(e)).toEqual({
      error: "开售时间 2027-03-28 02:30 在 Europe/Berlin 时区不存在（日期无效，或正值夏令时拨快而跳过的那一小时），请换一个时间。",
      code: "no_such_local_time",
      field: "onSaleAt",
    });
  });

  it("a plain message stays English under the generic code", () => {
    const e = new EventTimeError("The demo show starts first.", "onSaleAt");
    expect(en(e)).toEqual({ error: "The demo show starts first.", code: "bad_time", field: "onSaleAt" });
    expect(zh(e).code).toBe("bad_time");
  });
});

describe("SeatRuleError", () => {
  it("an unknown section lists the venue's first 30 sections and counts the rest, in both languages", () => {
    const sections = Array.from({ length: 35 }, (_, i) => String(101 + i));
    const e = new SeatRuleError({ code: "unknown_section", unknown: ["BALCONY", "999"], sections }, 2);
    const first30 = sections.slice(0, 30).join(", ");
    expect(e.levelIndex).toBe(2);
    expect(en(e)).toEqual({ error: `No section BALCONY, 999 in this venue. Its sections: ${first30} … (35 in all).`, code: "unknown_section", field: "priceLevels.2.sections" });
    expect(zh(e).error).toBe(`本场馆没有分区 BALCONY, 999。本场馆的分区：${first30} …（共 35 个）。`);
    const few = new SeatRuleError({ code: "unknown_section", unknown: ["B"], sections: ["A", "C"] }, 0);
    expect(en(few).error).toBe("No section B in this venue. Its sections: A, C.");
    expect(zh(few).error).toBe("本场馆没有分区 B。本场馆的分区：A, C。");
  });

  it("a level left without seats names the level", () => {
    const e = new SeatRuleError({ code: "level_without_seats", level: "Balcony" }, 1);
    expect(en(e)).toEqual({
      error: 'No seat is left for "Balcony": its rules match no seat of this venue, or earlier levels already took them all.',
      code: "level_without_seats",
      field: "priceLevels.1.rows",
    });
    expect(zh(e).error).toBe("票档“Balcony”没有可售的座位：它的条件不匹配本场馆的任何座位，或符合条件的座位已全部归入前面的票档。");
  });
});

describe("other set-up refusals name their facts in Chinese", () => {
  it("price levels locked by orders or by the open on-sale read differently", () => {
    expect(zh(new PriceLevelsLockedError("orders")).error).toBe("这场演出已有订单，票档和座位无法再更改；名称、简介、时间和限购仍可修改。");
    expect(zh(new PriceLevelsLockedError("on_sale")).error).toBe("这场演出已经开售，票档和座位无法再更改；名称、简介、时间和限购仍可修改。");
    expect(en(new PriceLevelsLockedError("orders")).error).toBe(
      "This show already has orders, so its price levels and seats can no longer change. You can still edit its name, description, times and limits.",
    );
  });

  it("a taken slug names the address", () => {
    expect(zh(new SlugTakenError("summer-2027"))).toEqual({ error: "已有其他演出使用地址 /events/summer-2027，请换一个网址标识。", code: "slug_taken", field: "slug" });
    expect(en(new SlugTakenError("summer-2027")).error).toBe("Another show already uses the address /events/summer-2027. Choose another slug.");
  });
});
