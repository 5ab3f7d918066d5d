/**
 * The seat map's geometry and keyboard moves (lib/venues/seat-map-nav.ts), on the real venue
 * plans: the 50-seat studio (5 rows A–E of 10 seats, 14 plan units apart, A nearest the stage)
 * and the 20,000-seat arena, laid out as getSeatMap lays them out.
 */
import { describe, expect, it } from "vitest";
import type { SeatMapData } from "@/lib/venues/seat-map";
import { seatPitch } from "@/lib/venues/seat-map";
import { arrowMove, canPick, indexSeats, moveFrom, pickScale, rowEnds, sectionAt, seatNear, seatParts, seatsBox, toPlan, toScreen, viewOf, viewShowing, type Arrow } from "@/lib/venues/seat-map-nav";
import { arenaPlan, studioPlan, type VenuePlan } from "@/lib/venues/plan";

/** A plan in SeatMapData's shape: sections in plan order, rows dense in section then sortOrder order. */
function asMap(plan: VenuePlan): Pick<SeatMapData, "seats" | "sections" | "rows"> {
  const n = plan.capacity;
  const seats: SeatMapData["seats"] = { x: [], y: [], level: [], section: [], row: [], number: [] };
  const rows: string[] = [];
  let r = 0;
  plan.sections.forEach((s, si) => {
    for (const row of [...s.rows].sort((a, b) => a.sortOrder - b.sortOrder)) {
      for (const seat of row.seats) {
        seats.x[seat.ordinal] = seat.x;
        seats.y[seat.ordinal] = seat.y;
        seats.level[seat.ordinal] = 0;
        seats.section[seat.ordinal] = si;
        seats.row[seat.ordinal] = r;
        seats.number[seat.ordinal] = seat.number;
      }
      rows[r++] = row.label;
    }
  });
  expect(seats.x).toHaveLength(n);
  const sections = plan.sections.map((s) => ({ code: s.code, name: s.name, kind: s.kind, outline: s.outline.map((p) => [p.x, p.y] as [number, number]), labelX: s.labelAt.x, labelY: s.labelAt.y }));
  return { seats, sections, rows };
}

const studio = asMap(studioPlan());

describe("the studio", () => {
  it("has a pitch of 14 plan units, and needs 24/(14·base) zoom to be tappable", () => {
    expect(seatPitch(studio.seats)).toBe(14);
    // A 390-px phone: the map is 358 CSS px wide, the plan 240 units: base 358/240.
    const base = 358 / 240;
    expect(pickScale(14, base)).toBeCloseTo(24 / (14 * base), 10);
    expect(canPick({ scale: 1, x: 0, y: 0 }, 14, base)).toBe(false); // 20.9 px apart
    expect(canPick({ scale: 1.2, x: 0, y: 0 }, 14, base)).toBe(true); // 25.1 px apart
  });

  it("arrow keys: along the row by number, to the row in front or behind, and nowhere past the ends", () => {
    const index = indexSeats(studio);
    // Ordinals run row by row (A 0–9, B 10–19 …), seats 1..10 west → east.
    expect(moveFrom(studio, index, 12, "right")).toBe(13);
    expect(moveFrom(studio, index, 12, "left")).toBe(11);
    expect(moveFrom(studio, index, 10, "left")).toBe(10);
    expect(moveFrom(studio, index, 19, "right")).toBe(19);
    expect(moveFrom(studio, index, 12, "front")).toBe(2);
    expect(moveFrom(studio, index, 12, "back")).toBe(22);
    expect(moveFrom(studio, index, 2, "front")).toBe(2);
    expect(moveFrom(studio, index, 45, "back")).toBe(45);
    // One section: the section moves stay.
    expect(moveFrom(studio, index, 45, "next-section")).toBe(45);
  });

  it("finds the seat under a point, and the section", () => {
    // Seat B3 (ordinal 12) is at x0 + 2·14, y0 + 14 with x0 = 120 − 63 = 57, y0 = 80.
    expect(seatNear(studio.seats, 57 + 28 + 3, 94 - 2, 7)).toBe(12);
    expect(seatNear(studio.seats, 57 + 7, 94, 6)).toBe(-1); // halfway between B1 and B2, 7 from each
    expect(sectionAt(studio.sections, 120, 100)).toBe(0);
    expect(sectionAt(studio.sections, 120, 30)).toBe(-1); // the stage
  });

  it("frames a section: the whole box when it fits at the tap zoom, else the tap zoom around the tapped point", () => {
    const base = 358 / 240;
    const box = seatsBox(studio.seats, indexSeats(studio).sections[0]!, 14)!;
    expect(box).toEqual({ minX: 43, minY: 66, maxX: 197, maxY: 150 });
    const fit = Math.min(358 / (154 * base), 298 / (84 * base)); // 1.5584…
    const v = viewOf(box, { width: 358, height: 298, base, minScale: 1.15, maxScale: 10 });
    expect(v.scale).toBeCloseTo(fit, 10);
    // The box's centre (120, 108) lands in the middle of the map.
    const [cx, cy] = toScreen(v, base, 120, 108);
    expect(cx).toBeCloseTo(179, 8);
    expect(cy).toBeCloseTo(149, 8);
    expect(toPlan(v, base, cx, cy).map((c) => Math.round(c * 1e6) / 1e6)).toEqual([120, 108]);
    // A minimum zoom above the fit: centred on the focus instead.
    const w = viewOf(box, { width: 358, height: 298, base, minScale: 3, maxScale: 10, focus: [71, 80] });
    expect(w.scale).toBe(3);
    expect(toScreen(w, base, 71, 80).map((c) => Math.round(c * 1e6) / 1e6)).toEqual([179, 149]);
  });

  it("keeps a focused seat in view: no move while it is inside the margin, re-centred when it is not", () => {
    const base = 1;
    const view = { scale: 2, x: 0, y: 0 };
    expect(viewShowing(view, 50, 50, { width: 300, height: 300, base, scale: 2, margin: 20 })).toBeNull(); // at (100, 100)
    expect(viewShowing(view, 145, 50, { width: 300, height: 300, base, scale: 2, margin: 20 })).toEqual({ scale: 2, x: 150 - 290, y: 150 - 100 });
  });
});

describe("the arena", () => {
  const arena = asMap(arenaPlan());
  const index = indexSeats(arena);

  it("indexes all 20,000 seats in rows and sections", () => {
    expect(index.rows.flat()).toHaveLength(20_000);
    expect(index.sections.flat()).toHaveLength(20_000);
    expect(new Set(index.rows.flat()).size).toBe(20_000);
  });

  it("the section keys walk every section with seats and come back round", () => {
    const firsts = new Set<number>();
    let at = index.sections[0]![0]!;
    for (let k = 0; k < arena.sections.length; k++) {
      at = moveFrom(arena, index, at, "next-section");
      firsts.add(arena.seats.section[at]!);
    }
    expect(firsts.size).toBe(arena.sections.filter((_, i) => index.sections[i]!.length > 0).length);
    expect(moveFrom(arena, index, moveFrom(arena, index, at, "next-section"), "previous-section")).toBe(at);
  });

  it("gives each seat the parts of its stored label (section code, standing or not, row label, number)", () => {
    const plan = arenaPlan();
    for (const o of [0, 1_999, 2_000, 7_777, 19_999]) {
      const section = plan.sections.find((s) => s.rows.some((r) => r.seats.some((seat) => seat.ordinal === o)))!;
      const row = section.rows.find((r) => r.seats.some((seat) => seat.ordinal === o))!;
      expect(seatParts(arena, o)).toEqual({ section: section.code, standing: section.kind === "general_admission", row: row.label, number: row.seats.find((seat) => seat.ordinal === o)!.number });
    }
  });

  it("arrow keys go the way they point on screen, also in the sections beside the stage whose rows run up and down", () => {
    const code = (c: string) => arena.sections.findIndex((s) => s.code === c);
    const seatOf = (c: string, row: number, number: number) => index.sections[code(c)]!.find((o) => arena.rows[arena.seats.row[o]!] === String(row) && arena.seats.number[o] === number)!;
    const step = (o: number, arrow: Arrow) => {
      const to = moveFrom(arena, index, o, arrowMove(arena, index, o, arrow));
      return [arena.seats.x[to]! - arena.seats.x[o]!, arena.seats.y[to]! - arena.seats.y[o]!] as const;
    };
    // Section 223, right of the stage: seat numbers grow up the screen and the rows behind lie to the right.
    const side = seatOf("223", 10, 5);
    expect(arena.seats.y[moveFrom(arena, index, side, "right")]!).toBeLessThan(arena.seats.y[side]!); // "next seat" is upward…
    const [rx, ry] = step(side, "right"); // …yet → moves right on screen
    expect(rx).toBeGreaterThan(2);
    expect(Math.abs(ry)).toBeLessThan(rx);
    const [lx] = step(side, "left");
    expect(lx).toBeLessThan(-2);
    const [, uy] = step(side, "up");
    expect(uy).toBeLessThan(-2);
    const [, dy] = step(side, "down");
    expect(dy).toBeGreaterThan(2);
    // Section 102, left of the stage: numbers grow down the screen, the row in front is to the right.
    const left = seatOf("102", 10, 5);
    expect(arrowMove(arena, index, left, "right")).toBe("front");
    expect(arrowMove(arena, index, left, "left")).toBe("back");
    expect(arrowMove(arena, index, left, "down")).toBe("right");
    expect(arrowMove(arena, index, left, "up")).toBe("left");
    // Section 110, facing the stage: → is the next seat, ↑ the row in front, as before; in the front row too.
    for (const o of [seatOf("110", 10, 5), seatOf("110", 1, 5)]) {
      expect(arrowMove(arena, index, o, "right")).toBe("right");
      expect(arrowMove(arena, index, o, "left")).toBe("left");
      expect(arrowMove(arena, index, o, "up")).toBe("front");
      expect(arrowMove(arena, index, o, "down")).toBe("back");
    }
    // Every seated section: → never moves left on screen, ↓ never up.
    for (let s = 0; s < arena.sections.length; s++) {
      if (arena.sections[s]!.kind !== "seated") continue;
      for (const o of index.sections[s]!.filter((_, k) => k % 37 === 0)) {
        expect(step(o, "right")[0]).toBeGreaterThanOrEqual(0);
        expect(step(o, "left")[0]).toBeLessThanOrEqual(0);
        expect(step(o, "down")[1]).toBeGreaterThanOrEqual(0);
        expect(step(o, "up")[1]).toBeLessThanOrEqual(0);
      }
    }
  });

  it("puts a row's labels just beyond its two ends, along the row", () => {
    const row = index.rows[arena.seats.row[index.sections[arena.sections.findIndex((s) => s.code === "223")]![0]!]!]!;
    const [[ax, ay], [bx, by]] = rowEnds(arena.seats, row, 4)!;
    const first = row[0]!;
    const last = row[row.length - 1]!;
    // Section 223's row 1 runs up the screen (numbers grow upward): seat 1's label below it, the last seat's above.
    expect(ax).toBeCloseTo(arena.seats.x[first]!, 0);
    expect(ay).toBeGreaterThan(arena.seats.y[first]! + 3.9);
    expect(bx).toBeCloseTo(arena.seats.x[last]!, 0);
    expect(by).toBeLessThan(arena.seats.y[last]! - 3.9);
    expect(rowEnds(arena.seats, [], 4)).toBeNull();
  });

  it("front and back stay in the section, left and right in the row", () => {
    for (const o of [0, 777, 5_000, 12_345, 19_999]) {
      for (const m of ["front", "back"] as const) expect(arena.seats.section[moveFrom(arena, index, o, m)]).toBe(arena.seats.section[o]);
      for (const m of ["left", "right"] as const) expect(arena.seats.row[moveFrom(arena, index, o, m)]).toBe(arena.seats.row[o]);
    }
  });
});
