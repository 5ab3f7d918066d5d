/**
 * Venue seat plans: pure, deterministic geometry for the seat map.
 *
 * Everything here is plain arithmetic — no database, no randomness, no I/O — so the
 * same call always returns the same plan (deep-equal), on the server, in the seed
 * script and in tests. Coordinates are in "plan units": an abstract canvas of
 * `width` x `height` with the origin at the top-left and y growing downward. The
 * seat map draws every seat as a 3–4 unit dot, so the generator keeps every two
 * seats at least 2.5 units apart and every seat inside the canvas.
 *
 * Vocabulary (see docs/design.md): venue · section · row · seat.
 */

/** How a section is sold: individual seats, or numbered general-admission (standing) units. */
export type SectionKind = "seated" | "general_admission";

/** A point in plan units (origin top-left, y grows downward). */
export type PlanPoint = { x: number; y: number };

/**
 * One seat (or, in a general-admission section, one numbered admission unit).
 *
 * - `number`: 1-based seat number within its row; in a general-admission section the
 *   running unit number within the whole section (1..units).
 * - `label`: human label, e.g. "Sec 104 · Row 7 · Seat 12" or "Floor GA · Unit 153".
 * - `x`, `y`: centre of the seat dot, in plan units.
 * - `ordinal`: 0..N-1, unique across the whole venue, increasing in section, row,
 *   seat order (the order of `VenuePlan.sections`, `PlanSection.rows`, `PlanRow.seats`).
 */
export interface PlanSeat {
  number: number;
  label: string;
  x: number;
  y: number;
  ordinal: number;
}

/**
 * One row of a section. `label` is what is printed on the ticket ("1".."N" in the
 * arena bowls, "A".."E" in the studio, "GA1".. on the floor); `sortOrder` is the
 * 0-based position of the row, starting with the row nearest the stage or floor.
 */
export interface PlanRow {
  label: string;
  sortOrder: number;
  seats: PlanSeat[];
}

/**
 * One section of a venue.
 *
 * - `code`: short stable code ("FLOOR", "101", "214", "MAIN").
 * - `tier`: "floor" (arena GA floor), "lower"/"upper" (arena bowls), "main" (studio).
 * - `outline`: closed polygon (last point connects back to the first) around all of
 *   the section's seats, in plan units, for drawing one path per section.
 * - `labelAt`: where to draw the section's name, in plan units.
 */
export interface PlanSection {
  code: string;
  name: string;
  kind: SectionKind;
  tier: "floor" | "lower" | "upper" | "main";
  outline: PlanPoint[];
  labelAt: PlanPoint;
  rows: PlanRow[];
}

/**
 * A whole venue: a `width` x `height` canvas in plan units, the stage polygon, and the
 * sections in ordinal order. `capacity` is the total number of seats (general-admission
 * units included) and always equals the number of `PlanSeat`s in `sections`.
 */
export interface VenuePlan {
  name: string;
  width: number;
  height: number;
  stage: PlanPoint[];
  sections: PlanSection[];
  capacity: number;
}

/** Default arena capacity (seats + general-admission units): exactly 20,000. */
const ARENA_DEFAULT_CAPACITY = 20_000;
/** Smallest capacity `arenaPlan` accepts (below this the bowls get implausibly sparse). */
export const ARENA_MIN_CAPACITY = 5_000;
/** Largest capacity `arenaPlan` accepts (above this seats would pack tighter than a dot allows). */
const ARENA_MAX_CAPACITY = 26_000;

// ---------------------------------------------------------------------------------------
// Arena geometry (all plan units)
// ---------------------------------------------------------------------------------------

const W = 1000;
const H = 820;

/**
 * The bowls are concentric rounded rectangles around the floor: the row at offset `d`
 * is the base rectangle grown by `d` on every side (corner radius too), so rows stay
 * exactly `ROW_PITCH` apart along the straights and around the corners.
 */
const BASE: Ring = { cx: 500, cy: 290, a: 246, b: 278, r: 115 };
/** Every row is cut at this y: the horseshoe is open at the stage (north) end. */
const Y_CUT = 64;
/** Distance between consecutive rows. */
const ROW_PITCH = 5;
/** Walkway width, measured along a row, between the last seat of one section and the first of the next. */
const AISLE = 9;
/** Margin between a section's outermost seat centres and its outline. */
const OUTLINE_MARGIN = 3;
/** Seat pitch along a row never goes below this (keeps the 2.5-unit minimum distance on curves). */
const MIN_SEAT_PITCH = 3;
/** Upper bound for the pitch search. */
const MAX_SEAT_PITCH = 200;
/** Share of the capacity sold as general-admission floor units (2,000 of 20,000). */
const GA_SHARE = 0.1;

const STAGE = { x0: 385, x1: 615, y0: 38, y1: 104 };
const GA_COLUMNS = 50;
const GA = { x0: 296, x1: 704, y0: 134, yMax: 520, maxDy: 8.6 };

interface BowlSpec {
  tier: "lower" | "upper";
  firstCode: number;
  sections: number;
  rows: number;
  /** Offset of the first row from the base rectangle. */
  d0: number;
}

const BOWLS: readonly BowlSpec[] = [
  { tier: "lower", firstCode: 101, sections: 20, rows: 20, d0: 0 },
  { tier: "upper", firstCode: 201, sections: 26, rows: 25, d0: 20 * ROW_PITCH + 17 },
];

// ---------------------------------------------------------------------------------------
// Rounded-rectangle curves
// ---------------------------------------------------------------------------------------

/** Rounded rectangle centred at (cx, cy) with half-width a, half-height b, corner radius r. */
interface Ring {
  cx: number;
  cy: number;
  a: number;
  b: number;
  r: number;
}

function grow(ring: Ring, d: number): Ring {
  return { cx: ring.cx, cy: ring.cy, a: ring.a + d, b: ring.b + d, r: ring.r + d };
}

function perimeter(g: Ring): number {
  return 4 * (g.a - g.r) + 4 * (g.b - g.r) + 2 * Math.PI * g.r;
}

/**
 * Point at arc length `s` along the ring. The path starts at the top centre and runs
 * west, down the west side, east along the bottom, up the east side and back to the
 * top centre — so the angle seen from the centre increases monotonically with `s`.
 */
function pointOn(g: Ring, s: number): PlanPoint {
  const sa = g.a - g.r;
  const sb = g.b - g.r;
  const q = (Math.PI * g.r) / 2;
  const arc = (cx: number, cy: number, k: number, u: number): PlanPoint => {
    const t = -Math.PI / 2 - (k * Math.PI) / 2 - u / g.r;
    return { x: cx + g.r * Math.cos(t), y: cy + g.r * Math.sin(t) };
  };
  let u = Math.min(Math.max(s, 0), perimeter(g));
  if (u <= sa) return { x: g.cx - u, y: g.cy - g.b };
  u -= sa;
  if (u <= q) return arc(g.cx - sa, g.cy - sb, 0, u);
  u -= q;
  if (u <= 2 * sb) return { x: g.cx - g.a, y: g.cy - sb + u };
  u -= 2 * sb;
  if (u <= q) return arc(g.cx - sa, g.cy + sb, 1, u);
  u -= q;
  if (u <= 2 * sa) return { x: g.cx - sa + u, y: g.cy + g.b };
  u -= 2 * sa;
  if (u <= q) return arc(g.cx + sa, g.cy + sb, 2, u);
  u -= q;
  if (u <= 2 * sb) return { x: g.cx + g.a, y: g.cy + sb - u };
  u -= 2 * sb;
  if (u <= q) return arc(g.cx + sa, g.cy - sb, 3, u);
  u -= q;
  return { x: g.cx + sa - u, y: g.cy - g.b };
}

/** Angle of a point seen from the ring centre: 0 = north, π/2 = west, π = south, 3π/2 = east. */
function angleOf(g: Ring, p: PlanPoint): number {
  const t = Math.atan2(-(p.x - g.cx), -(p.y - g.cy));
  return t < 0 ? t + 2 * Math.PI : t;
}

/** Arc length (in [0, P]) where the ring's angle from its centre equals `phi`. */
function sAtAngle(g: Ring, phi: number): number {
  let lo = 0;
  let hi = perimeter(g);
  for (let i = 0; i < 64; i++) {
    const mid = (lo + hi) / 2;
    if (angleOf(g, pointOn(g, mid)) < phi) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** Arc length on the west half of the ring where it first reaches height `y` (y rises monotonically there). */
function sAtY(g: Ring, y: number): number {
  let lo = 0;
  let hi = perimeter(g) / 2;
  for (let i = 0; i < 64; i++) {
    const mid = (lo + hi) / 2;
    if (pointOn(g, mid).y < y) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/**
 * Arc-length span of section `k` (of `n`) on `ring`. Interior section boundaries are rays
 * from the centre at `angles` (so sections fan out and outer rows are longer); the two
 * ends of the horseshoe are where the ring crosses the horizontal cut `Y_CUT`. `inset` is
 * removed at each interior boundary (half an aisle); `beyondCut` is added past each cut.
 */
function sectionSpan(ring: Ring, k: number, n: number, angles: readonly number[], inset: number, beyondCut: number): [number, number] {
  const sCut = sAtY(ring, Y_CUT) - beyondCut;
  const start = k === 0 ? sCut : sAtAngle(ring, angles[k - 1] ?? 0) + inset;
  const end = k === n - 1 ? perimeter(ring) - sCut : sAtAngle(ring, angles[k] ?? 0) - inset;
  return [start, end];
}

// ---------------------------------------------------------------------------------------
// Arena
// ---------------------------------------------------------------------------------------

const round2 = (v: number): number => Math.round(v * 100) / 100;
const pt = (x: number, y: number): PlanPoint => ({ x: round2(x), y: round2(y) });

interface RowDraft {
  ring: Ring;
  start: number;
  end: number;
  count: number;
}

interface SectionDraft {
  bowl: BowlSpec;
  k: number;
  angles: readonly number[];
  rows: RowDraft[];
}

function draftBowl(bowl: BowlSpec): SectionDraft[] {
  // Section boundaries: divide the middle row of the bowl into equal arc lengths, then
  // use the angles of those points as radial aisle lines for every row.
  const ref = grow(BASE, bowl.d0 + ((bowl.rows - 1) * ROW_PITCH) / 2);
  const refStart = sAtY(ref, Y_CUT);
  const refEnd = perimeter(ref) - refStart;
  const angles: number[] = [];
  for (let k = 1; k < bowl.sections; k++) {
    const s = refStart + ((refEnd - refStart) * k) / bowl.sections;
    angles.push(angleOf(ref, pointOn(ref, s)));
  }
  const sections: SectionDraft[] = [];
  for (let k = 0; k < bowl.sections; k++) {
    const rows: RowDraft[] = [];
    for (let r = 0; r < bowl.rows; r++) {
      const ring = grow(BASE, bowl.d0 + r * ROW_PITCH);
      const [start, end] = sectionSpan(ring, k, bowl.sections, angles, AISLE / 2, 0);
      if (end < start) throw new Error(`venue plan geometry: empty row ${r + 1} in ${bowl.firstCode + k}`);
      rows.push({ ring, start, end, count: 0 });
    }
    sections.push({ bowl, k, angles, rows });
  }
  return sections;
}

/** Seats that fit in a span at a given pitch (at least one: a zero-length span holds one seat). */
function fits(len: number, pitch: number): number {
  return Math.floor(len / pitch + 1e-9) + 1;
}

function seatedCount(rows: readonly RowDraft[], pitch: number): number {
  let n = 0;
  for (const row of rows) n += fits(row.end - row.start, pitch);
  return n;
}

/**
 * Sets `count` on every row so the total is exactly `target`: find the widest seat pitch
 * at which the rows hold at least `target` seats, then trim the surplus one seat at a
 * time from row ends (longest rows first, ties in ordinal order). Returns the pitch.
 */
function allocateSeats(rows: RowDraft[], target: number): number {
  if (seatedCount(rows, MIN_SEAT_PITCH) < target) throw new RangeError(`venue plan: cannot fit ${target} seats`);
  let lo = MIN_SEAT_PITCH;
  let hi = MAX_SEAT_PITCH;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (seatedCount(rows, mid) >= target) lo = mid;
    else hi = mid;
  }
  const pitch = lo;
  for (const row of rows) row.count = fits(row.end - row.start, pitch);
  let surplus = seatedCount(rows, pitch) - target;
  const order = rows.map((row, i) => ({ row, i })).sort((p, q) => q.row.count - p.row.count || p.i - q.i);
  while (surplus > 0) {
    for (const { row } of order) {
      if (surplus === 0) break;
      if (row.count > 1) {
        row.count -= 1;
        surplus -= 1;
      }
    }
  }
  return pitch;
}

function sampleCurve(ring: Ring, start: number, end: number): PlanPoint[] {
  const steps = Math.max(2, Math.ceil((end - start) / 6));
  const pts: PlanPoint[] = [];
  for (let i = 0; i <= steps; i++) {
    const p = pointOn(ring, start + ((end - start) * i) / steps);
    pts.push(pt(p.x, p.y));
  }
  return pts;
}

function buildSeatedSection(draft: SectionDraft, pitch: number, next: () => number): PlanSection {
  const { bowl, k, angles } = draft;
  const code = String(bowl.firstCode + k);
  const rows: PlanRow[] = draft.rows.map((row, r) => {
    const label = String(r + 1);
    const mid = (row.start + row.end) / 2;
    const seats: PlanSeat[] = [];
    for (let i = 0; i < row.count; i++) {
      const p = pointOn(row.ring, mid + (i - (row.count - 1) / 2) * pitch);
      seats.push({ number: i + 1, label: `Sec ${code} · Row ${label} · Seat ${i + 1}`, x: round2(p.x), y: round2(p.y), ordinal: next() });
    }
    return { label, sortOrder: r, seats };
  });

  const m = OUTLINE_MARGIN;
  const inner = grow(BASE, bowl.d0 - m);
  const outer = grow(BASE, bowl.d0 + (bowl.rows - 1) * ROW_PITCH + m);
  const [i0, i1] = sectionSpan(inner, k, bowl.sections, angles, AISLE / 2 - m, m);
  const [o0, o1] = sectionSpan(outer, k, bowl.sections, angles, AISLE / 2 - m, m);
  const outline = [...sampleCurve(inner, i0, i1), ...sampleCurve(outer, o0, o1).reverse()];

  const middle = grow(BASE, bowl.d0 + ((bowl.rows - 1) * ROW_PITCH) / 2);
  const [l0, l1] = sectionSpan(middle, k, bowl.sections, angles, 0, 0);
  const at = pointOn(middle, (l0 + l1) / 2);

  return { code, name: `Section ${code}`, kind: "seated", tier: bowl.tier, outline, labelAt: pt(at.x, at.y), rows };
}

function buildFloor(units: number, next: () => number): PlanSection {
  const gaRows = Math.ceil(units / GA_COLUMNS);
  const dx = (GA.x1 - GA.x0) / (GA_COLUMNS - 1);
  const dy = gaRows > 1 ? Math.min(GA.maxDy, (GA.yMax - GA.y0) / (gaRows - 1)) : 0;
  const rows: PlanRow[] = [];
  let unit = 0;
  for (let r = 0; r < gaRows; r++) {
    const inRow = Math.min(GA_COLUMNS, units - r * GA_COLUMNS);
    const x0 = GA.x0 + ((GA_COLUMNS - inRow) * dx) / 2; // a short last row is centred
    const seats: PlanSeat[] = [];
    for (let c = 0; c < inRow; c++) {
      unit += 1;
      seats.push({ number: unit, label: `Floor GA · Unit ${unit}`, x: round2(x0 + c * dx), y: round2(GA.y0 + r * dy), ordinal: next() });
    }
    rows.push({ label: `GA${r + 1}`, sortOrder: r, seats });
  }
  const m = OUTLINE_MARGIN + 1;
  const yEnd = GA.y0 + (gaRows - 1) * dy;
  const outline = [pt(GA.x0 - m, GA.y0 - m), pt(GA.x1 + m, GA.y0 - m), pt(GA.x1 + m, yEnd + m), pt(GA.x0 - m, yEnd + m)];
  return {
    code: "FLOOR",
    name: "Floor GA",
    kind: "general_admission",
    tier: "floor",
    outline,
    labelAt: pt((GA.x0 + GA.x1) / 2, (GA.y0 + yEnd) / 2),
    rows,
  };
}

/**
 * Generates the StarArena plan: an end-stage arena on a 1000 x 820 plan-unit canvas.
 *
 * Layout (y grows downward, stage at the north end):
 * - `stage`: a rectangle at the top centre.
 * - "FLOOR" (kind "general_admission", tier "floor"): numbered standing units on a grid
 *   in front of the stage, rows "GA1", "GA2", … of 50 units; unit numbers run 1..units
 *   across the whole floor, labels "Floor GA · Unit 153". 10% of the capacity
 *   (2,000 units at the default capacity).
 * - Lower bowl (tier "lower", sections "101".."120", rows "1".."20") and upper bowl
 *   (tier "upper", sections "201".."226", rows "1".."25") forming a horseshoe around the
 *   floor, open at the stage end. Rows follow the curve, row 1 nearest the floor; aisle
 *   lines radiate from the centre so each section fans out and outer rows hold more seats
 *   than inner ones. Seats are evenly spaced along each row (the same pitch everywhere),
 *   numbered from 1 running west → south → east; labels "Sec 104 · Row 7 · Seat 12".
 *
 * Capacity: the total number of seats (GA units included) is exactly `capacity`
 * (default 20,000). The seat pitch is the widest that holds at least the seated target;
 * any surplus is trimmed one seat at a time from row ends, longest rows first, so the
 * result is deterministic. Any two seats are at least 2.5 plan units apart and every seat
 * is inside the canvas. Ordinals run 0..capacity-1: FLOOR, then 101.., then 201...
 *
 * @param opts.capacity integer in [ARENA_MIN_CAPACITY, ARENA_MAX_CAPACITY]; default 20,000.
 * @throws RangeError when `capacity` is not an integer in that range.
 */
export function arenaPlan(opts?: { capacity?: number }): VenuePlan {
  const capacity = opts?.capacity ?? ARENA_DEFAULT_CAPACITY;
  if (!Number.isInteger(capacity) || capacity < ARENA_MIN_CAPACITY || capacity > ARENA_MAX_CAPACITY) {
    throw new RangeError(`arena capacity must be an integer in [${ARENA_MIN_CAPACITY}, ${ARENA_MAX_CAPACITY}], got ${capacity}`);
  }
  const gaUnits = Math.round(capacity * GA_SHARE);
  const drafts = BOWLS.flatMap(draftBowl);
  const pitch = allocateSeats(
    drafts.flatMap((d) => d.rows),
    capacity - gaUnits,
  );

  let ordinal = 0;
  const next = (): number => ordinal++;
  const sections: PlanSection[] = [buildFloor(gaUnits, next), ...drafts.map((d) => buildSeatedSection(d, pitch, next))];

  return {
    name: "StarArena",
    width: W,
    height: H,
    stage: [pt(STAGE.x0, STAGE.y0), pt(STAGE.x1, STAGE.y0), pt(STAGE.x1, STAGE.y1), pt(STAGE.x0, STAGE.y1)],
    sections,
    capacity: ordinal,
  };
}

// ---------------------------------------------------------------------------------------
// Studio
// ---------------------------------------------------------------------------------------

/**
 * Generates the small test venue "StarArena Studio": exactly 50 seats on a 240 x 200
 * plan-unit canvas. One seated section (code "MAIN", tier "main") of 5 straight rows
 * "A".."E" (A nearest the stage) x 10 seats numbered 1..10 west → east, 14 plan units
 * apart; the stage is a rectangle at the top. Labels "Sec MAIN · Row A · Seat 1";
 * ordinals 0..49 in row, seat order.
 */
export function studioPlan(): VenuePlan {
  const pitch = 14;
  const x0 = 120 - (9 * pitch) / 2;
  const y0 = 80;
  let ordinal = 0;
  const rows: PlanRow[] = ["A", "B", "C", "D", "E"].map((label, r) => ({
    label,
    sortOrder: r,
    seats: Array.from({ length: 10 }, (_, i) => ({
      number: i + 1,
      label: `Sec MAIN · Row ${label} · Seat ${i + 1}`,
      x: x0 + i * pitch,
      y: y0 + r * pitch,
      ordinal: ordinal++,
    })),
  }));
  const m = 8;
  const section: PlanSection = {
    code: "MAIN",
    name: "Main",
    kind: "seated",
    tier: "main",
    outline: [pt(x0 - m, y0 - m), pt(x0 + 9 * pitch + m, y0 - m), pt(x0 + 9 * pitch + m, y0 + 4 * pitch + m), pt(x0 - m, y0 + 4 * pitch + m)],
    labelAt: pt(120, y0 + 4 * pitch + m + 12),
    rows,
  };
  return {
    name: "StarArena Studio",
    width: 240,
    height: 200,
    stage: [pt(50, 20), pt(190, 20), pt(190, 50), pt(50, 50)],
    sections: [section],
    capacity: ordinal,
  };
}

/**
 * A small hall for simulations and CI: `capacity` seats (1..5,000) in one seated section
 * "MAIN" (tier "main") of straight rows of 25 seats, row "1" nearest the stage, the last
 * row possibly shorter. Labels "Sec MAIN · Row 3 · Seat 12"; ordinals 0..capacity-1 in
 * row, seat order. Use {@link arenaPlan} for 5,000 seats and more.
 * @throws RangeError when `capacity` is not an integer in [1, 5000].
 */
export function smallArenaPlan(capacity: number): VenuePlan {
  if (!Number.isInteger(capacity) || capacity < 1 || capacity > 5_000) throw new RangeError(`small plan capacity must be an integer in [1, 5000], got ${capacity}`);
  const perRow = 25;
  const pitch = 10;
  const rowCount = Math.ceil(capacity / perRow);
  const width = perRow * pitch + 40;
  const x0 = 20 + pitch / 2;
  const y0 = 70;
  let ordinal = 0;
  const rows: PlanRow[] = Array.from({ length: rowCount }, (_, r) => ({
    label: String(r + 1),
    sortOrder: r,
    seats: Array.from({ length: Math.min(perRow, capacity - r * perRow) }, (_, i) => ({
      number: i + 1,
      label: `Sec MAIN · Row ${r + 1} · Seat ${i + 1}`,
      x: x0 + i * pitch,
      y: y0 + r * pitch,
      ordinal: ordinal++,
    })),
  }));
  const bottom = y0 + (rowCount - 1) * pitch;
  const section: PlanSection = {
    code: "MAIN",
    name: "Main",
    kind: "seated",
    tier: "main",
    outline: [pt(x0 - 6, y0 - 6), pt(x0 + (perRow - 1) * pitch + 6, y0 - 6), pt(x0 + (perRow - 1) * pitch + 6, bottom + 6), pt(x0 - 6, bottom + 6)],
    labelAt: pt(width / 2, bottom + 20),
    rows,
  };
  return {
    name: "StarArena Hall",
    width,
    height: bottom + 40,
    stage: [pt(40, 15), pt(width - 40, 15), pt(width - 40, 45), pt(40, 45)],
    sections: [section],
    capacity: ordinal,
  };
}
