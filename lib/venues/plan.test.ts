import { describe, it, expect } from "vitest";
import { arenaPlan, studioPlan, type PlanSeat, type VenuePlan } from "./plan";

function allSeats(plan: VenuePlan): PlanSeat[] {
  return plan.sections.flatMap((s) => s.rows.flatMap((r) => r.seats));
}

/** Smallest distance between any two seats, via a grid of `cell`-sized buckets (cell >= the distance of interest). */
function closestPair(seats: readonly PlanSeat[], cell: number): number {
  const buckets = new Map<string, PlanSeat[]>();
  for (const s of seats) {
    const key = `${Math.floor(s.x / cell)},${Math.floor(s.y / cell)}`;
    const list = buckets.get(key);
    if (list) list.push(s);
    else buckets.set(key, [s]);
  }
  let best = Infinity;
  for (const s of seats) {
    const bx = Math.floor(s.x / cell);
    const by = Math.floor(s.y / cell);
    for (let dx = -1; dx <= 1; dx++) {
      for (let dy = -1; dy <= 1; dy++) {
        for (const t of buckets.get(`${bx + dx},${by + dy}`) ?? []) {
          if (t.ordinal === s.ordinal) continue;
          best = Math.min(best, Math.hypot(s.x - t.x, s.y - t.y));
        }
      }
    }
  }
  return best;
}

function expectWellFormed(plan: VenuePlan, capacity: number): void {
  const seats = allSeats(plan);
  expect(seats).toHaveLength(capacity);
  expect(plan.capacity).toBe(capacity);
  expect(seats.map((s) => s.ordinal)).toEqual(Array.from({ length: capacity }, (_, i) => i));
  expect(closestPair(seats, 5)).toBeGreaterThanOrEqual(2.5);
  for (const s of seats) {
    expect(s.x).toBeGreaterThanOrEqual(0);
    expect(s.x).toBeLessThanOrEqual(plan.width);
    expect(s.y).toBeGreaterThanOrEqual(0);
    expect(s.y).toBeLessThanOrEqual(plan.height);
  }
}

describe("arenaPlan", () => {
  const plan = arenaPlan();

  it("has exactly 20,000 seats by default, capacity 20000", () => {
    expect(plan.capacity).toBe(20_000);
    expect(allSeats(plan)).toHaveLength(20_000);
  });

  it("numbers ordinals 0..19999 with no gap or duplicate, in section/row/seat order", () => {
    expect(allSeats(plan).map((s) => s.ordinal)).toEqual(Array.from({ length: 20_000 }, (_, i) => i));
  });

  it("has a general-admission FLOOR of numbered units", () => {
    const floor = plan.sections.find((s) => s.code === "FLOOR");
    expect(floor).toBeDefined();
    expect(floor?.kind).toBe("general_admission");
    expect(floor?.tier).toBe("floor");
    const units = floor?.rows.flatMap((r) => r.seats) ?? [];
    expect(units).toHaveLength(2_000);
    expect(units.map((u) => u.number)).toEqual(Array.from({ length: 2_000 }, (_, i) => i + 1));
    expect(units[152]?.label).toBe("Floor GA · Unit 153");
    expect(floor?.rows[0]?.label).toBe("GA1");
    expect(plan.sections.filter((s) => s.kind === "general_admission")).toHaveLength(1);
  });

  it("has lower (1xx) and upper (2xx) seated bowls with numbered rows", () => {
    const lower = plan.sections.filter((s) => s.tier === "lower");
    const upper = plan.sections.filter((s) => s.tier === "upper");
    expect(lower.length).toBeGreaterThanOrEqual(18);
    expect(lower.length).toBeLessThanOrEqual(22);
    expect(upper.length).toBeGreaterThanOrEqual(22);
    expect(upper.length).toBeLessThanOrEqual(28);
    for (const s of lower) expect(s.code).toMatch(/^1\d\d$/);
    for (const s of upper) expect(s.code).toMatch(/^2\d\d$/);
    for (const s of [...lower, ...upper]) {
      expect(s.kind).toBe("seated");
      expect(s.rows.map((r) => r.label)).toEqual(s.rows.map((_, i) => String(i + 1)));
      expect(s.rows.map((r) => r.sortOrder)).toEqual(s.rows.map((_, i) => i));
      expect(s.outline.length).toBeGreaterThanOrEqual(4);
      for (const r of s.rows) {
        expect(r.seats.length).toBeGreaterThan(0);
        expect(r.seats.map((x) => x.number)).toEqual(r.seats.map((_, i) => i + 1));
      }
    }
    const seat = plan.sections.find((s) => s.code === "104")?.rows[6]?.seats[11];
    expect(seat?.label).toBe("Sec 104 · Row 7 · Seat 12");
  });

  it("has rows of varying length within a section, outer rows longer", () => {
    const sec = plan.sections.find((s) => s.code === "110");
    const lengths = sec?.rows.map((r) => r.seats.length) ?? [];
    expect(new Set(lengths).size).toBeGreaterThan(1);
    expect(lengths[lengths.length - 1]).toBeGreaterThan(lengths[0] ?? Infinity);
  });

  it("keeps every two seats at least 2.5 units apart", () => {
    expect(closestPair(allSeats(plan), 5)).toBeGreaterThanOrEqual(2.5);
  });

  it("keeps every seat, outline point and the stage inside the plan bounds", () => {
    const points = [...allSeats(plan), ...plan.stage, ...plan.sections.flatMap((s) => [...s.outline, s.labelAt])];
    for (const p of points) {
      expect(p.x).toBeGreaterThanOrEqual(0);
      expect(p.x).toBeLessThanOrEqual(plan.width);
      expect(p.y).toBeGreaterThanOrEqual(0);
      expect(p.y).toBeLessThanOrEqual(plan.height);
    }
  });

  it("hits other capacities exactly", () => {
    expectWellFormed(arenaPlan({ capacity: 12_000 }), 12_000);
    expectWellFormed(arenaPlan({ capacity: 20_001 }), 20_001);
  });

  it("rejects capacities it cannot draw", () => {
    expect(() => arenaPlan({ capacity: 0 })).toThrow(RangeError);
    expect(() => arenaPlan({ capacity: 12_000.5 })).toThrow(RangeError);
    expect(() => arenaPlan({ capacity: 1_000_000 })).toThrow(RangeError);
  });

  it("is deterministic", () => {
    expect(arenaPlan()).toEqual(arenaPlan());
    expect(arenaPlan({ capacity: 12_000 })).toEqual(arenaPlan({ capacity: 12_000 }));
  });
});

describe("studioPlan", () => {
  it("has exactly 50 seats in 5 rows A–E of 10", () => {
    const plan = studioPlan();
    expect(plan.capacity).toBe(50);
    expect(plan.sections).toHaveLength(1);
    const [main] = plan.sections;
    expect(main?.code).toBe("MAIN");
    expect(main?.kind).toBe("seated");
    expect(main?.tier).toBe("main");
    expect(main?.rows.map((r) => r.label)).toEqual(["A", "B", "C", "D", "E"]);
    for (const r of main?.rows ?? []) expect(r.seats.map((s) => s.number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expectWellFormed(plan, 50);
    // stage at the top: above every seat
    const stageBottom = Math.max(...plan.stage.map((p) => p.y));
    for (const s of allSeats(plan)) expect(s.y).toBeGreaterThan(stageBottom);
  });

  it("is deterministic", () => {
    expect(studioPlan()).toEqual(studioPlan());
  });
});
