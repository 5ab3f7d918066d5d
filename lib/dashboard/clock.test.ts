/** The live view's clock reads the venue's zone, whatever the machine's zone (lib/dashboard/clock.ts). */
import { describe, expect, it } from "vitest";
import { formatClockInZone, formatMinuteInZone, zoneLabel } from "@/lib/dashboard/clock";

describe("the live view's clock", () => {
  // 19:10:05 UTC on a winter day: 20:10 in Berlin, 03:10 the next day in Shanghai.
  const at = new Date("2027-01-30T19:10:05Z");

  it("is the venue's time of day with the venue's zone, in the reader's locale", () => {
    expect(formatClockInZone(at, "Europe/Berlin")).toBe("20:10:05 CET");
    expect(formatClockInZone(at, "Europe/Berlin", "zh-CN")).toBe("GMT+1 20:10:05");
    expect(formatClockInZone(at, "Asia/Shanghai")).toBe("03:10:05 GMT+8");
    expect(formatClockInZone(new Date("2027-07-01T12:00:00Z"), "Europe/Berlin")).toBe("14:00:00 CEST");
  });

  it("labels the chart's minutes without the zone, and names the zone once", () => {
    expect(formatMinuteInZone(at, "Europe/Berlin")).toBe("20:10");
    expect(formatMinuteInZone(at, "America/New_York", "zh-CN")).toBe("14:10");
    expect(zoneLabel(at, "Europe/Berlin")).toBe("CET");
    expect(zoneLabel(at, "Europe/Berlin", "zh-CN")).toBe("GMT+1");
  });
});
