/** Times shown in the venue's zone (lib/format.ts): the zone named so it reads in both languages (issue 42). */
import { describe, expect, it } from "vitest";
import { formatInZone, formatMomentInZone, formatTimeInZone, zoneName } from "@/lib/format";

// 30 Jan 2027 19:00Z is 20:00 in Berlin (UTC+1 in winter); 30 Jul 2027 19:00Z is 21:00 (UTC+2 in summer).
const winter = new Date("2027-01-30T19:00:00Z");
const summer = new Date("2027-07-30T19:00:00Z");

describe("formatInZone", () => {
  it("shows the venue's wall clock with the zone's generic name, the same in winter and summer", () => {
    expect(formatInZone(winter, "Europe/Berlin")).toBe("Sat, 30 Jan 2027, 20:00 Central European Time");
    expect(formatInZone(summer, "Europe/Berlin")).toBe("Fri, 30 Jul 2027, 21:00 Central European Time");
    expect(formatInZone(winter, "America/New_York")).toBe("Sat, 30 Jan 2027, 14:00 Eastern Time");
  });

  it("names a European zone in Chinese words, not as a GMT offset", () => {
    expect(formatInZone(winter, "Europe/Berlin", "zh-CN")).toBe("2027年1月30日周六 中欧时间 20:00");
    expect(formatInZone(summer, "Europe/Berlin", "zh-CN")).toBe("2027年7月30日周五 中欧时间 21:00");
    expect(formatInZone(winter, "Europe/Berlin", "zh-CN")).not.toMatch(/GMT|[A-Za-z]/);
    expect(formatInZone(winter, "Asia/Shanghai", "zh-CN")).toBe("2027年1月31日周日 中国标准时间 03:00");
  });

  it("keeps UTC as UTC (a zone without a place name)", () => {
    expect(formatInZone(winter, "UTC")).toBe("Sat, 30 Jan 2027, 19:00 UTC");
  });
});

describe("formatTimeInZone", () => {
  it("is the time of day in the venue's zone, 24-hour, seconds when asked", () => {
    expect(formatTimeInZone(new Date("2027-01-30T23:05:09Z"), "Europe/Berlin")).toBe("00:05 Central European Time");
    expect(formatTimeInZone(new Date("2027-01-30T19:31:05Z"), "Europe/Berlin", "en-GB", { seconds: true })).toBe("20:31:05 Central European Time");
    expect(formatTimeInZone(new Date("2027-01-30T19:31:05Z"), "Europe/Berlin", "zh-CN", { seconds: true })).toBe("中欧时间 20:31:05");
    expect(formatTimeInZone(new Date("2027-01-30T19:31:05Z"), "Europe/Berlin", "zh-CN")).toBe("中欧时间 20:31");
  });
});

describe("formatMomentInZone and zoneName", () => {
  it("name the venue's zone in words in both languages, one space before a Chinese hour", () => {
    const at = new Date("2026-12-07T22:32:02Z"); // 23:32:02 in Berlin (winter)
    expect(formatMomentInZone(at, "Europe/Berlin", "en-GB")).toBe("7 Dec, 23:32:02 Central European Time");
    expect(formatMomentInZone(at, "Europe/Berlin", "zh-CN")).toBe("12月7日 中欧时间 23:32:02");
    expect(zoneName("Europe/Berlin", "zh-CN")).toBe("中欧时间");
    expect(zoneName("UTC", "en-GB")).toBe("UTC");
  });
});
