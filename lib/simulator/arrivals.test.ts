import { describe, expect, it } from "vitest";
import { arrivalSchedule } from "@/lib/simulator/arrivals";

describe("arrivalSchedule", () => {
  it("puts the shares in their windows, in time order, and gives retries to the first 10 s's fans only", () => {
    const onSaleAt = 100_000;
    const s = arrivalSchedule(10_000, { preFrom: 50_000, onSaleAt, preShare: 0.2, firstShare: 0.3, burstSeconds: 60, retries: 2 });
    expect([s.nPre, s.nFirst, s.nLater]).toEqual([2_000, 3_000, 5_000]);
    const at = [...s.at];
    expect(at.filter((t) => t < onSaleAt).length).toBe(2_000);
    expect(at.filter((t) => t >= onSaleAt && t < onSaleAt + 10_000).length).toBeGreaterThanOrEqual(3_000);
    expect(Math.max(...at)).toBeLessThanOrEqual(onSaleAt + 60_000);
    for (let k = 1; k < s.byArrival.length; k++) expect(s.at[s.byArrival[k]!]!).toBeGreaterThanOrEqual(s.at[s.byArrival[k - 1]!]!);
    expect(new Set(s.byArrival).size).toBe(10_000);
    // Retries: exactly the 3,000 first-10-s fans, 2 each.
    expect([...s.retries].filter((r) => r === 2).length).toBe(3_000);
    for (let i = 0; i < 10_000; i++) if (s.retries[i]) expect(s.at[i]! >= onSaleAt && s.at[i]! < onSaleAt + 10_000).toBe(true);
  });

  it("with a burst of 10 s or less, every fan after the on-sale is a first-seconds fan", () => {
    const s = arrivalSchedule(5_000, { preFrom: 0, onSaleAt: 10_000, preShare: 0.5, firstShare: 0.3, burstSeconds: 10, retries: 2 });
    expect([s.nPre, s.nFirst, s.nLater, s.firstMs]).toEqual([2_500, 2_500, 0, 10_000]);
    expect([...s.retries].filter((r) => r === 2).length).toBe(2_500);
  });
});
