/** Prices typed by organizers (lib/format.ts `parseMajorUnits`): decimal point or comma, grouping, and what is refused. */
import { describe, expect, it } from "vitest";
import { parseMajorUnits, PriceFormatError } from "@/lib/format";

describe("parseMajorUnits", () => {
  // [typed, currency, minor units] — each worked out by hand.
  const accepted: [string, string, number][] = [
    ["35.50", "EUR", 3_550],
    ["35,50", "EUR", 3_550],
    ["35,5", "EUR", 3_550],
    ["79", "EUR", 7_900],
    [" 79.00 ", "EUR", 7_900],
    ["0,99", "EUR", 99],
    ["0", "EUR", 0],
    ["1234,50", "EUR", 123_450],
    ["1,234.50", "EUR", 123_450],
    ["1.234,50", "EUR", 123_450],
    ["1,234,567", "JPY", 1_234_567],
    ["1.234.567", "JPY", 1_234_567],
    ["12,345.6", "USD", 1_234_560],
    ["1,500", "JPY", 1_500], // no minor units: the mark can only group
    ["5000", "JPY", 5_000],
    ["1,5", "KWD", 1_500], // three minor digits
    ["1,234.567", "KWD", 1_234_567],
  ];
  it.each(accepted)("%s %s → %i", (typed, currency, minor) => {
    expect(parseMajorUnits(typed, currency)).toBe(minor);
  });

  // [typed, currency, what the message says]
  const refused: [string, string, RegExp][] = [
    ["1,234,5", "EUR", /grouped in threes/],
    ["1.234.5", "EUR", /grouped in threes/],
    ["1,500", "EUR", /ambiguous.*write 1500 for 1500, or 1\.50/],
    ["1.500", "EUR", /ambiguous/],
    ["1.500", "KWD", /ambiguous/],
    ["12,34.00", "EUR", /mixes/],
    ["1.234,5.0", "EUR", /mixes/],
    ["1,234.5,0", "EUR", /mixes/],
    ["79.001", "EUR", /at most 2 decimals/],
    ["35,505", "EUR", /ambiguous/],
    ["50.5", "JPY", /no decimals/],
    ["€79", "EUR", /such as 79\.00 or 79,00/],
    ["-5", "EUR", /such as/],
    ["35,", "EUR", /such as/],
    [",50", "EUR", /such as/],
    ["1 234,50", "EUR", /such as/],
    ["", "EUR", /such as/],
    ["100000,01", "EUR", /too high/],
  ];
  it.each(refused)("refuses %s %s", (typed, currency, message) => {
    expect(() => parseMajorUnits(typed, currency)).toThrow(PriceFormatError);
    expect(() => parseMajorUnits(typed, currency)).toThrow(message);
  });
});
