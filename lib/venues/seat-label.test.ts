import { describe, expect, it } from "vitest";
import { translator } from "@/lib/i18n/translate";
import { arenaPlan, smallArenaPlan, studioPlan } from "@/lib/venues/plan";
import { seatLabel, type SeatWords } from "@/lib/venues/seat-label";

const english = translator("en", "Seat") as unknown as SeatWords;
const chinese = translator("zh-CN", "Seat") as unknown as SeatWords;

describe("seat labels", () => {
  it("compose in English to exactly the stored label of every seat of every venue plan", () => {
    let checked = 0;
    const plans = [arenaPlan(), studioPlan(), smallArenaPlan(500)];
    for (const plan of plans) {
      for (const section of plan.sections) {
        for (const row of section.rows) {
          for (const seat of row.seats) {
            const composed = seatLabel(english, { section: section.code, standing: section.kind === "general_admission", row: row.label, number: seat.number });
            if (composed !== seat.label) throw new Error(`${composed} ≠ ${seat.label}`);
            checked++;
          }
        }
      }
    }
    expect(checked).toBe(plans.reduce((n, p) => n + p.capacity, 0));
    expect(checked).toBeGreaterThan(20_500);
  });

  it("read in Chinese the way a Chinese ticket prints them", () => {
    expect(seatLabel(chinese, { section: "104", standing: false, row: "7", number: 12 })).toBe("104区 7排 12号");
    expect(seatLabel(chinese, { section: "FLOOR", standing: true, row: "GA3", number: 1153 })).toBe("内场站区 1153号");
    expect(seatLabel(english, { section: "FLOOR", standing: true, row: "GA3", number: 1153 })).toBe("Floor GA · Unit 1153");
  });
});
