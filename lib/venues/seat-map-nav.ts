/**
 * The seat map's geometry and navigation, without a DOM (components/seat-map.tsx draws and
 * listens; this decides): which seat or section a point is on, the zoom at which a seat is big
 * enough to tap, the view that frames a section, and where the arrow keys go.
 *
 * Units: "plan units" are the venue plan's coordinates (lib/venues/plan.ts); "CSS px" are the
 * page's. A view `{ scale, x, y }` is react-zoom-pan-pinch's state (`scale`, `positionX`, `positionY`): a plan point `u` is drawn
 * at `x + scale · base · u` (CSS px from the map's top-left corner), where `base` is the map's
 * CSS width over the plan's width (the scale at which the whole plan fits across).
 *
 * The 24-px tap target is WCAG 2.2's success criterion 2.5.8 "Target Size (Minimum)".
 */
import type { SeatMapData } from "@/lib/venues/seat-map";
import type { SeatParts } from "@/lib/venues/seat-label";

/** A seat is tappable when neighbours are at least this far apart on screen (CSS px; WCAG 2.2 SC 2.5.8). */
export const TAP_TARGET_PX = 24;

/** react-zoom-pan-pinch's view state: its `positionX`/`positionY` (CSS px) as x/y, and the zoom factor. */
export interface MapView {
  scale: number;
  x: number;
  y: number;
}

/** An axis-aligned box in plan units. */
export interface Box {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

/** Ordinals of each row, sorted by seat number, and each seat's place in its row: built once per map. */
export interface SeatIndex {
  rows: number[][];
  placeInRow: Int32Array;
  /** Ordinals of each section's seats, front row first, then by number. */
  sections: number[][];
}

/** Builds the {@link SeatIndex} of a map (O(n log n) in seats). */
export function indexSeats(data: Pick<SeatMapData, "seats" | "sections">): SeatIndex {
  const { row, number, section } = data.seats;
  const rows: number[][] = [];
  for (let i = 0; i < row.length; i++) (rows[row[i]!] ??= []).push(i);
  for (let r = 0; r < rows.length; r++) rows[r] = (rows[r] ?? []).sort((a, b) => number[a]! - number[b]!);
  const placeInRow = new Int32Array(row.length);
  for (const list of rows) list.forEach((o, k) => (placeInRow[o] = k));
  const sections: number[][] = data.sections.map(() => []);
  for (const list of rows) for (const o of list) sections[section[o]!]?.push(o);
  return { rows, placeInRow, sections };
}

/** The zoom factor at which neighbouring seats are {@link TAP_TARGET_PX} apart. @param pitch plan units @param base CSS px per plan unit at zoom 1 */
export function pickScale(pitch: number, base: number): number {
  return TAP_TARGET_PX / (pitch * base);
}

/** Whether seats can be picked by tapping at this zoom (with 1 % of slack for rounding). */
export function canPick(view: MapView, pitch: number, base: number): boolean {
  return view.scale >= pickScale(pitch, base) * 0.99;
}

/** The plan point under a point of the map (CSS px from its top-left corner). */
export function toPlan(view: MapView, base: number, px: number, py: number): [number, number] {
  return [(px - view.x) / (view.scale * base), (py - view.y) / (view.scale * base)];
}

/** Where a plan point is drawn (CSS px from the map's top-left corner). */
export function toScreen(view: MapView, base: number, ux: number, uy: number): [number, number] {
  return [view.x + view.scale * base * ux, view.y + view.scale * base * uy];
}

/** The seat nearest to plan point (ux, uy) within `maxDistance` plan units, or -1. */
export function seatNear(seats: Pick<SeatMapData["seats"], "x" | "y">, ux: number, uy: number, maxDistance: number): number {
  let best = -1;
  let bestD = maxDistance * maxDistance;
  for (let i = 0; i < seats.x.length; i++) {
    const dx = seats.x[i]! - ux;
    const dy = seats.y[i]! - uy;
    const d = dx * dx + dy * dy;
    if (d <= bestD) {
      bestD = d;
      best = i;
    }
  }
  return best;
}

/** Whether a point is inside a polygon (even–odd rule). */
function inside(outline: [number, number][], ux: number, uy: number): boolean {
  let hit = false;
  for (let i = 0, j = outline.length - 1; i < outline.length; j = i++) {
    const [xi, yi] = outline[i]!;
    const [xj, yj] = outline[j]!;
    if (yi > uy !== yj > uy && ux < ((xj - xi) * (uy - yi)) / (yj - yi) + xi) hit = !hit;
  }
  return hit;
}

/** The index of the section whose outline holds plan point (ux, uy), or -1. */
export function sectionAt(sections: SeatMapData["sections"], ux: number, uy: number): number {
  return sections.findIndex((s) => inside(s.outline, ux, uy));
}

/** The bounding box of some seats (plan units), padded by `pad`; null for none. */
export function seatsBox(seats: Pick<SeatMapData["seats"], "x" | "y">, ordinals: number[], pad: number): Box | null {
  if (ordinals.length === 0) return null;
  const box = { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity };
  for (const o of ordinals) {
    box.minX = Math.min(box.minX, seats.x[o]!);
    box.maxX = Math.max(box.maxX, seats.x[o]!);
    box.minY = Math.min(box.minY, seats.y[o]!);
    box.maxY = Math.max(box.maxY, seats.y[o]!);
  }
  return { minX: box.minX - pad, minY: box.minY - pad, maxX: box.maxX + pad, maxY: box.maxY + pad };
}

/**
 * The view that shows `box` in a map `width` × `height` CSS px: the whole box when that is at
 * least `minScale` (capped at `maxScale`), else `minScale` centred on `focus` (plan units; the
 * box's centre by default) — a tapped section's seats become tappable at once.
 */
export function viewOf(box: Box, opts: { width: number; height: number; base: number; minScale: number; maxScale: number; focus?: [number, number] }): MapView {
  const fit = Math.min(opts.width / ((box.maxX - box.minX) * opts.base), opts.height / ((box.maxY - box.minY) * opts.base));
  const scale = Math.min(opts.maxScale, Math.max(opts.minScale, fit));
  const [cx, cy] = scale > fit && opts.focus ? opts.focus : [(box.minX + box.maxX) / 2, (box.minY + box.maxY) / 2];
  return { scale, x: opts.width / 2 - scale * opts.base * cx, y: opts.height / 2 - scale * opts.base * cy };
}

/** The view that brings plan point (ux, uy) into the middle of the map at `scale`, or null when it is already inside the map with `margin` CSS px to spare. */
export function viewShowing(view: MapView, ux: number, uy: number, opts: { width: number; height: number; base: number; scale: number; margin: number }): MapView | null {
  const [sx, sy] = toScreen({ ...view, scale: opts.scale }, opts.base, ux, uy);
  if (opts.scale === view.scale && sx >= opts.margin && sy >= opts.margin && sx <= opts.width - opts.margin && sy <= opts.height - opts.margin) return null;
  return { scale: opts.scale, x: opts.width / 2 - opts.scale * opts.base * ux, y: opts.height / 2 - opts.scale * opts.base * uy };
}

/** What seat `o`'s label is made of (lib/venues/seat-label.ts composes it in the reader's language). */
export function seatParts(data: Pick<SeatMapData, "seats" | "sections" | "rows">, o: number): SeatParts {
  const section = data.sections[data.seats.section[o]!];
  return { section: section?.code ?? "", standing: section?.kind === "general_admission", row: data.rows[data.seats.row[o]!] ?? "", number: data.seats.number[o]! };
}

/**
 * Where to write a row's label at each end of the row (plan units): `gap` beyond its first and
 * its last seat, along the row's own direction (rows of side sections run up and down the plan).
 * @param ordinals the row's seats in number order (SeatIndex.rows)
 */
export function rowEnds(seats: Pick<SeatMapData["seats"], "x" | "y">, ordinals: number[], gap: number): [[number, number], [number, number]] | null {
  const first = ordinals[0];
  const last = ordinals[ordinals.length - 1];
  if (first === undefined || last === undefined) return null;
  const next = ordinals[1] ?? first;
  const before = ordinals[ordinals.length - 2] ?? last;
  // Each end's own direction: a curved row's ends point different ways. A one-seat row reads left to right.
  const out = (from: number, to: number, sign: number): [number, number] => {
    const dx = seats.x[from]! - seats.x[to]!;
    const dy = seats.y[from]! - seats.y[to]!;
    const d = Math.hypot(dx, dy);
    return d > 0 ? [seats.x[from]! + (gap * dx) / d, seats.y[from]! + (gap * dy) / d] : [seats.x[from]! + sign * gap, seats.y[from]!];
  };
  return [out(first, next, -1), out(last, before, 1)];
}

/** An arrow key's move on the map. */
export type SeatMove = "left" | "right" | "front" | "back" | "next-section" | "previous-section";

/** An arrow key, by the direction it points on screen. */
export type Arrow = "left" | "right" | "up" | "down";

const ARROW_VECTORS: Record<Arrow, [number, number]> = { left: [-1, 0], right: [1, 0], up: [0, -1], down: [0, 1] };

/**
 * Which move along the row or between rows goes the way an arrow key points on screen, from
 * seat `from`. A row's seat numbers and its front (toward the stage) point different ways in
 * different sections: in a section beside the stage a row runs up or down the screen and the row
 * in front is to the left or right. Each of the four moves gets its direction on the plan (the
 * neighbours in the row; the nearest seat of the row in front, else the opposite of the row
 * behind) and the arrow takes the one nearest its own direction. The plan is drawn unrotated
 * (y down, as on screen), so the plan's directions are the screen's.
 */
export function arrowMove(data: Pick<SeatMapData, "seats">, index: SeatIndex, from: number, arrow: Arrow): SeatMove {
  const { seats } = data;
  const list = index.rows[seats.row[from]!] ?? [from];
  const place = index.placeInRow[from]!;
  const prev = list[Math.max(0, place - 1)]!;
  const next = list[Math.min(list.length - 1, place + 1)]!;
  const along: [number, number] = [seats.x[next]! - seats.x[prev]!, seats.y[next]! - seats.y[prev]!];
  const toward = (move: "front" | "back"): [number, number] => {
    const to = moveFrom(data, index, from, move);
    return [seats.x[to]! - seats.x[from]!, seats.y[to]! - seats.y[from]!];
  };
  const ahead = toward("front");
  const behind = toward("back");
  // The front's direction: toward the row in front, or away from the row behind in a front row.
  const front: [number, number] = ahead[0] !== 0 || ahead[1] !== 0 ? ahead : [-behind[0], -behind[1]];
  const unit = ([x, y]: [number, number]): [number, number] => {
    const d = Math.hypot(x, y);
    return d > 0 ? [x / d, y / d] : [0, 0];
  };
  const candidates: [SeatMove, [number, number]][] = [
    ["right", unit(along)],
    ["left", unit([-along[0], -along[1]])],
    ["front", unit(front)],
    ["back", unit([-front[0], -front[1]])],
  ];
  const [ax, ay] = ARROW_VECTORS[arrow];
  let best: SeatMove = arrow === "left" || arrow === "right" ? arrow : arrow === "up" ? "front" : "back";
  let bestDot = 0;
  for (const [move, [x, y]] of candidates) {
    const dot = x * ax + y * ay;
    if (dot > bestDot + 1e-9) {
      bestDot = dot;
      best = move;
    }
  }
  return best;
}

/**
 * Where a keyboard move from seat `from` lands. Left and right step along the row (by seat
 * number); front and back go to the nearest seat of the row in front (toward the stage) or
 * behind, in the same section; the section moves go to the first seat of the next or previous
 * section. A move with nowhere to go stays on `from`.
 */
export function moveFrom(data: Pick<SeatMapData, "seats">, index: SeatIndex, from: number, move: SeatMove): number {
  const { seats } = data;
  const row = seats.row[from]!;
  const place = index.placeInRow[from]!;
  const list = index.rows[row] ?? [from];
  switch (move) {
    case "left":
      return list[Math.max(0, place - 1)]!;
    case "right":
      return list[Math.min(list.length - 1, place + 1)]!;
    case "front":
    case "back": {
      const target = index.rows[row + (move === "front" ? -1 : 1)];
      if (!target?.length || seats.section[target[0]!] !== seats.section[from]) return from;
      const near = seatNear({ x: target.map((o) => seats.x[o]!), y: target.map((o) => seats.y[o]!) }, seats.x[from]!, seats.y[from]!, Infinity);
      return target[near]!;
    }
    case "next-section":
    case "previous-section": {
      const n = index.sections.length;
      const step = move === "next-section" ? 1 : -1;
      for (let k = 1; k < n; k++) {
        const s = (((seats.section[from]! + step * k) % n) + n) % n;
        if (index.sections[s]?.length) return index.sections[s]![0]!;
      }
      return from;
    }
  }
}
