"use client";
/**
 * The seat map: one canvas for every seat (20,000 draw in a few milliseconds; no per-seat DOM
 * nodes), with pan and zoom by react-zoom-pan-pinch (pinch, wheel, drag, the +/− buttons).
 * The library keeps the view; the canvas is redrawn for it, sharp at every zoom.
 *
 * Picking is section-first: seats are tappable only at a zoom where neighbours are at least
 * 24 CSS px apart (lib/venues/seat-map-nav.ts); below it a tap zooms to the tapped section.
 * Zoomed in that far, each row's label is written at its two ends and the section's name in
 * the map's corner. From the keyboard the map is one stop: arrows move to the neighbouring seat
 * in their direction on screen (also in the side sections, whose rows run up and down), Page
 * Up/Down between sections, Enter or Space picks, +/− zoom, 0 shows the whole venue; every move
 * is announced (seat, level, price, free or taken). A list of a section's free seats is the
 * fallback for screen readers and small phones. Picked seats are white circles (shape and
 * colour), taken seats small dark squares. Geometry loads once; availability (a bitset)
 * refreshes every 2 s.
 *
 * Every word is the reader's language: seat labels are composed from the seat's parts
 * (lib/venues/seat-label.ts), section names from their codes. Nothing above the map changes
 * height while a fan picks (the hint is below it, the zoom buttons beside the tabs), so a tap
 * lands where the fan aimed.
 */
import { useQuery } from "@tanstack/react-query";
import { useLocale, useTranslations } from "next-intl";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { TransformComponent, TransformWrapper, type ReactZoomPanPinchContentRef } from "react-zoom-pan-pinch";
import type { Availability } from "@/lib/inventory/availability";
import type { SeatMapData } from "@/lib/venues/seat-map";
import { seatLabel, type SeatWords } from "@/lib/venues/seat-label";
import { arrowMove, canPick, indexSeats, moveFrom, pickScale, rowEnds, sectionAt, seatNear, seatParts, seatsBox, toPlan, viewOf, viewShowing, type Arrow, type MapView, type SeatMove } from "@/lib/venues/seat-map-nav";
import { formatCount, formatMoney } from "@/lib/format";
import { intlLocale } from "@/lib/i18n/config";

const TAKEN = "#3b4257";
const NOT_ON_SALE = "#1f2433";
const FOCUS = "#facc15";
/** A tap moves less than this (CSS px) and lasts less than TAP_MS; anything else is a pan. */
const TAP_SLOP_PX = 8;
const TAP_MS = 600;

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  return (await res.json()) as T;
}

function decodeBits(b64: string): Uint8Array {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

const isFree = (bits: Uint8Array | null, i: number) => (bits ? ((bits[i >> 3] ?? 0) & (0x80 >> (i & 7))) !== 0 : true);

/** A seat as the map reports it to its parent; `label` in the reader's language. */
export interface MapSeat {
  ordinal: number;
  label: string;
  level: { id: string; name: string; priceMinor: number; currency: string } | null;
  free: boolean;
}

/** The map's words: the `SeatMap` and `Seat` namespaces' translators and the Intl locale numbers are formatted in. */
interface Words {
  t: ReturnType<typeof useTranslations<"SeatMap">>;
  seat: SeatWords;
  fmt: string;
}

/** Whether seat `i` is on sale and free (without composing its label: cheap enough for every seat). */
const seatFree = (data: SeatMapData, bits: Uint8Array | null, i: number) => data.seats.level[i]! >= 0 && isFree(bits, i);

function seatOf(words: Words, data: SeatMapData, bits: Uint8Array | null, i: number): MapSeat {
  const level = data.levels[data.seats.level[i]!] ?? null;
  return { ordinal: i, label: seatLabel(words.seat, seatParts(data, i)), level, free: level !== null && isFree(bits, i) };
}

/** A section's name in the reader's language, from its code ("Section 110" / "110区"; the standing floor by its kind). */
function sectionName(t: Words["t"], section: SeatMapData["sections"][number]): string {
  return section.kind === "general_admission" ? t("floorName") : t("sectionName", { code: section.code });
}

/** What a screen reader hears for a seat: label, level, price (or "taken"), "picked". */
function describe({ t, fmt }: Words, seat: MapSeat, picked: boolean): string {
  const state = !seat.level ? t("notOnSale") : seat.free || picked ? formatMoney(seat.level.priceMinor, seat.level.currency, fmt) : t("taken");
  return `${seat.label}, ${seat.level ? `${seat.level.name}, ` : ""}${state}${picked ? `, ${t("picked")}` : ""}`;
}

/** Milliseconds on the page's monotonic clock (tap timing, read in event handlers only). */
const clock = () => performance.now();

/** Arrow keys by their direction on screen (lib/venues/seat-map-nav.ts `arrowMove` turns one into a move along the row or between rows); the section keys. */
const ARROWS: Record<string, Arrow> = { ArrowLeft: "left", ArrowRight: "right", ArrowUp: "up", ArrowDown: "down" };
const SECTION_KEYS: Record<string, SeatMove> = { PageDown: "next-section", PageUp: "previous-section" };

/**
 * @param selected seat ordinals drawn as picked.
 * @param onSeatClick called with a tapped (or Enter-ed) seat; omit for a view-only map.
 */
export function SeatMap({ eventId, selected = [], onSeatClick }: { eventId: string; selected?: number[]; onSeatClick?: (seat: MapSeat) => void }) {
  const t = useTranslations("SeatMap");
  const seatWords = useTranslations("Seat") as unknown as SeatWords;
  const fmt = intlLocale(useLocale());
  const words: Words = { t, seat: seatWords, fmt };
  const map = useQuery({ queryKey: ["seat-map", eventId], queryFn: () => getJson<SeatMapData>(`/api/events/${eventId}/seat-map`), staleTime: Infinity });
  const availability = useQuery({
    queryKey: ["availability", eventId],
    queryFn: () => getJson<Availability>(`/api/events/${eventId}/availability`),
    refetchInterval: 2_000,
  });
  const bits = useMemo(() => (availability.data ? decodeBits(availability.data.bits) : null), [availability.data]);
  const data = map.data;
  const index = useMemo(() => (data ? indexSeats(data) : null), [data]);
  const [tab, setTab] = useState<"map" | "list">("map");

  const boxRef = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const zoomRef = useRef<ReactZoomPanPinchContentRef>(null);
  const [boxWidth, setBoxWidth] = useState(0);
  const [viewportHeight, setViewportHeight] = useState(0);
  const [view, setView] = useState<MapView>({ scale: 1, x: 0, y: 0 });
  const viewRef = useRef(view);
  const [focus, setFocus] = useState<number | null>(null);
  const [hover, setHover] = useState<{ label: string; x: number; y: number } | null>(null);
  const tap = useRef<{ x: number; y: number; at: number; id: number } | null>(null);

  useEffect(() => {
    const box = boxRef.current;
    if (!box) return;
    const measure = () => {
      setBoxWidth(box.clientWidth);
      setViewportHeight(window.innerHeight);
    };
    const observer = new ResizeObserver(measure);
    observer.observe(box);
    measure();
    return () => observer.disconnect();
  }, [tab]);

  // As wide as the page allows, but never taller than 72 % of the window: the controls around it stay in sight.
  const width = data && boxWidth ? Math.min(boxWidth, Math.floor((viewportHeight * 0.72 * data.width) / data.height)) : 0;
  const height = data && width ? Math.round((width * data.height) / data.width) : 0;
  const base = data && width ? width / data.width : 1;
  const minPick = data ? pickScale(data.pitch, base) : 1;
  const maxScale = Math.max(4, minPick * 2.5);
  const pickable = data ? canPick(view, data.pitch, base) : false;

  // The canvas's words, in the reader's language.
  const stageWord = t("stage");
  const floorWord = t("floor");
  const sectionNames = useMemo(() => (data ? data.sections.map((s) => sectionName(t, s)) : []), [data, t]);

  const draw = useCallback(() => {
    const canvas = canvasRef.current;
    if (!canvas || !data || !width) return;
    const dpr = window.devicePixelRatio || 1;
    if (canvas.width !== Math.round(width * dpr)) canvas.width = Math.round(width * dpr);
    if (canvas.height !== Math.round(height * dpr)) canvas.height = Math.round(height * dpr);
    const ctx = canvas.getContext("2d");
    if (!ctx) return;
    const started = performance.now();
    const v = viewRef.current;
    const k = v.scale * base;
    const px = 1 / k; // one CSS px in plan units
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width, height);
    ctx.setTransform(dpr * k, 0, 0, dpr * k, dpr * v.x, dpr * v.y);
    const trace = (points: [number, number][]) => {
      ctx.beginPath();
      points.forEach(([x, y], i) => (i === 0 ? ctx.moveTo(x, y) : ctx.lineTo(x, y)));
      ctx.closePath();
    };
    ctx.fillStyle = "#111729";
    for (const section of data.sections) {
      trace(section.outline);
      ctx.fill();
    }
    ctx.fillStyle = "#f8fafc";
    trace(data.stage);
    ctx.fill();
    const [sx = 0, sy = 0] = data.stage.reduce(([ax, ay], [x, y]) => [ax + x / data.stage.length, ay + y / data.stage.length], [0, 0]);
    ctx.fillStyle = "#0b1020";
    ctx.font = `bold ${Math.max(16, 12 * px)}px sans-serif`;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    ctx.fillText(stageWord, sx, sy);

    // Only what is on screen (plus a seat's margin).
    const x0 = -v.x / k - data.pitch;
    const y0 = -v.y / k - data.pitch;
    const x1 = (width - v.x) / k + data.pitch;
    const y1 = (height - v.y) / k + data.pitch;
    const { x, y, level } = data.seats;
    const size = Math.max(data.pitch * 0.78, 1.6 * px);
    const small = size * 0.55;
    const colours = [...data.levels.map((l) => l.color), TAKEN, NOT_ON_SALE];
    for (let c = 0; c < colours.length; c++) {
      ctx.fillStyle = colours[c]!;
      const s = c < data.levels.length ? size : small;
      for (let i = 0; i < x.length; i++) {
        const xi = x[i]!;
        const yi = y[i]!;
        if (xi < x0 || xi > x1 || yi < y0 || yi > y1) continue;
        const lv = level[i]!;
        const colour = lv < 0 ? colours.length - 1 : isFree(bits, i) ? lv : colours.length - 2;
        if (colour === c) ctx.fillRect(xi - s / 2, yi - s / 2, s, s);
      }
    }
    // Picked: white discs with a dark ring, never smaller than 9 px across.
    const r = Math.max(size * 0.62, 4.5 * px);
    for (const o of selected) {
      ctx.beginPath();
      ctx.arc(x[o]!, y[o]!, r, 0, 2 * Math.PI);
      ctx.fillStyle = "#ffffff";
      ctx.fill();
      ctx.lineWidth = 1.5 * px;
      ctx.strokeStyle = "#0b1020";
      ctx.stroke();
    }
    if (focus !== null && x[focus] !== undefined) {
      ctx.beginPath();
      ctx.arc(x[focus]!, y[focus]!, Math.max(size * 0.95, 7 * px), 0, 2 * Math.PI);
      ctx.lineWidth = 2.5 * px;
      ctx.strokeStyle = FOCUS;
      ctx.stroke();
    }
    ctx.fillStyle = "rgba(255,255,255,0.8)";
    ctx.font = `${11 * px}px sans-serif`;
    if (!canPick(v, data.pitch, base)) {
      for (const section of data.sections) ctx.fillText(section.kind === "general_admission" ? floorWord : section.code, section.labelX, section.labelY);
    } else if (index) {
      // Zoomed in to pick: each seated row's label at both of its ends, in the aisle. A row whose
      // ends are both out of view has its label pinned to the map's edge beside it (left for a
      // row across the screen, bottom for one up and down it), so the row is always named.
      ctx.fillStyle = "rgba(255,255,255,0.7)";
      ctx.font = `${10 * px}px sans-serif`;
      const pinned: { text: string; x: number; y: number }[] = [];
      const written: [number, number][] = [];
      const inView = (ux: number, uy: number) => ux >= -v.x / k && ux <= (width - v.x) / k && uy >= -v.y / k && uy <= (height - v.y) / k;
      for (let r = 0; r < index.rows.length; r++) {
        const row = index.rows[r]!;
        if (row.length === 0 || data.sections[data.seats.section[row[0]!]!]?.kind !== "seated") continue;
        const ends = rowEnds(data.seats, row, data.pitch * 1.1);
        if (!ends) continue;
        let named = false;
        for (const [ex, ey] of ends) {
          if (!inView(ex, ey)) continue;
          named = true;
          // In an aisle the same row of the next section ends a few px away: one label serves both.
          const sx = v.x + k * ex;
          const sy = v.y + k * ey;
          if (written.some((w) => Math.abs(w[0] - sx) < 18 && Math.abs(w[1] - sy) < 10)) continue;
          written.push([sx, sy]);
          ctx.fillText(data.rows[r] ?? "", ex, ey);
        }
        if (named) continue;
        const across = Math.abs(ends[1][0] - ends[0][0]) >= Math.abs(ends[1][1] - ends[0][1]);
        let at = -1;
        for (const o of row) {
          if (!inView(x[o]!, y[o]!)) continue;
          if (at < 0 || (across ? x[o]! < x[at]! : y[o]! > y[at]!)) at = o;
        }
        if (at >= 0) pinned.push({ text: data.rows[r] ?? "", x: across ? 0 : v.x + k * x[at]!, y: across ? v.y + k * y[at]! : height });
      }
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.font = "bold 10px sans-serif";
      for (const pin of pinned) {
        const w = Math.max(16, ctx.measureText(pin.text).width + 6);
        const left = pin.x === 0 ? 2 : Math.min(width - w - 2, Math.max(2, pin.x - w / 2));
        const top = pin.y === height ? height - 16 : pin.y - 7;
        ctx.fillStyle = "rgba(11,16,32,0.8)";
        ctx.beginPath();
        ctx.roundRect(left, top, w, 14, 4);
        ctx.fill();
        ctx.fillStyle = "#f8fafc";
        ctx.fillText(pin.text, left + w / 2, top + 7);
      }
      // The section in the middle of the view, named in the map's top-right corner (clear of the rows' labels on the left).
      const [cx, cy] = toPlan(v, base, width / 2, height / 2);
      const near = seatNear(data.seats, cx, cy, Infinity);
      const name = near >= 0 ? sectionNames[data.seats.section[near]!] : undefined;
      if (name) {
        ctx.font = "bold 13px sans-serif";
        const w = ctx.measureText(name).width + 16;
        ctx.fillStyle = "rgba(11,16,32,0.85)";
        ctx.beginPath();
        ctx.roundRect(width - 8 - w, 8, w, 24, 6);
        ctx.fill();
        ctx.fillStyle = "#f8fafc";
        ctx.fillText(name, width - 8 - w / 2, 20);
      }
    }
    // Read by `npm run bench:seatmap` (frame time while panning), and visible in the browser's performance panel.
    performance.measure("seat-map draw", { start: started, end: performance.now() });
  }, [data, index, bits, selected, focus, width, height, base, stageWord, floorWord, sectionNames]);

  const frame = useRef(0);
  const redraw = useCallback(() => {
    cancelAnimationFrame(frame.current);
    frame.current = requestAnimationFrame(draw);
  }, [draw]);
  useEffect(() => {
    redraw();
    return () => cancelAnimationFrame(frame.current);
  }, [redraw]);

  // After the current event: the library ends its own gesture on the same pointer's touchend
  // (after our pointerup), and that would cancel an animation started now.
  const goTo = (v: MapView, ms = 250) => void setTimeout(() => void zoomRef.current?.setTransform(v.x, v.y, v.scale, ms), 0);

  function pick(i: number) {
    if (!data) return;
    setFocus(i);
    onSeatClick?.(seatOf(words, data, bits, i));
  }

  /** A tap or click at (px, py), CSS px from the map's corner. */
  function tapAt(px: number, py: number) {
    if (!data || !index) return;
    const v = viewRef.current;
    const [ux, uy] = toPlan(v, base, px, py);
    if (!canPick(v, data.pitch, base)) {
      // The "click to zoom in" tooltip has done its job.
      setHover(null);
      const s = sectionAt(data.sections, ux, uy);
      const box = s >= 0 ? seatsBox(data.seats, index.sections[s] ?? [], data.pitch * 2) : null;
      if (box) goTo(viewOf(box, { width, height, base, minScale: minPick, maxScale, focus: [ux, uy] }));
      else goTo({ scale: Math.min(maxScale, v.scale * 2), x: px - (px - v.x) * 2, y: py - (py - v.y) * 2 });
      return;
    }
    const i = seatNear(data.seats, ux, uy, data.pitch * 0.6);
    if (i >= 0) pick(i);
  }

  function onKeyDown(e: React.KeyboardEvent) {
    if (!data || !index) return;
    const v = viewRef.current;
    const first = () => {
      const seats = index.sections.find((s) => s.length > 0) ?? [];
      return seats.find((o) => seatFree(data, bits, o)) ?? seats[0] ?? 0;
    };
    let to: number | null = null;
    const arrow = ARROWS[e.key];
    const sectionMove = SECTION_KEYS[e.key];
    if (arrow || sectionMove) to = focus === null ? first() : moveFrom(data, index, focus, sectionMove ?? arrowMove(data, index, focus, arrow!));
    else if ((e.key === "Enter" || e.key === " ") && onSeatClick) {
      if (focus === null) to = first();
      else {
        e.preventDefault();
        return pick(focus);
      }
    } else if (e.key === "+" || e.key === "=") void zoomRef.current?.zoomIn(0.5);
    else if (e.key === "-") void zoomRef.current?.zoomOut(0.5);
    else if (e.key === "0" || e.key === "Escape") void zoomRef.current?.resetTransform();
    else return;
    e.preventDefault();
    if (to === null) return;
    setFocus(to);
    const next = viewShowing(v, data.seats.x[to]!, data.seats.y[to]!, { width, height, base, scale: Math.max(v.scale, minPick), margin: 48 });
    if (next) goTo(next, 150);
  }

  function onPointerMove(e: React.PointerEvent<HTMLDivElement>) {
    if (!data || e.pointerType !== "mouse") return;
    const rect = e.currentTarget.getBoundingClientRect();
    const px = e.clientX - rect.left;
    const py = e.clientY - rect.top;
    const v = viewRef.current;
    const [ux, uy] = toPlan(v, base, px, py);
    if (!canPick(v, data.pitch, base)) {
      const s = sectionAt(data.sections, ux, uy);
      return setHover(s >= 0 ? { label: t("zoomSection", { section: sectionNames[s] ?? "" }), x: px, y: py } : null);
    }
    const i = seatNear(data.seats, ux, uy, data.pitch * 0.6);
    setHover(i >= 0 ? { label: describe(words, seatOf(words, data, bits, i), selected.includes(i)), x: px, y: py } : null);
  }

  if (map.isError) return <p className="text-red-300">{t("loadFailed")}</p>;
  const seatCount = data?.seats.x.length ?? 0;
  // What the live region says: the focused seat as it is now (moved to, picked, unpicked, or just taken).
  const announcement = focus !== null && data ? describe(words, seatOf(words, data, bits, focus), selected.includes(focus)) : "";
  const hint = !onSeatClick
    ? t("hintView")
    : pickable
      ? t("hintPick")
      : t("hintSection");

  return (
    <div className="space-y-3">
      {/* One row of fixed height above the map: the tabs, and the zoom buttons (beside the map, never over its labels). */}
      <div className="flex flex-wrap items-center justify-between gap-2 text-sm">
        <div className="flex gap-2" role="tablist" aria-label={t("howToShow")}>
          {(["map", "list"] as const).map((which) => (
            <button key={which} role="tab" aria-selected={tab === which} onClick={() => setTab(which)} className={`h-9 rounded px-3 ${tab === which ? "bg-white/20 font-semibold" : "bg-white/5 hover:bg-white/10"}`}>
              {which === "map" ? t("tabMap") : t("tabList")}
            </button>
          ))}
        </div>
        {tab === "map" && (
          <div className="flex gap-1" role="group" aria-label={t("zoomControls")} data-testid="seat-map-zoom">
            <ZoomButton label={t("zoomIn")} disabled={!data} onClick={() => void zoomRef.current?.zoomIn(0.6)}>
              +
            </ZoomButton>
            <ZoomButton label={t("zoomOut")} disabled={!data} onClick={() => void zoomRef.current?.zoomOut(0.6)}>
              −
            </ZoomButton>
            <ZoomButton label={t("wholeVenue")} disabled={!data} onClick={() => void zoomRef.current?.resetTransform()}>
              ⤢
            </ZoomButton>
          </div>
        )}
      </div>
      {tab === "map" ? (
        <div ref={boxRef} className="w-full">
          <div className="relative mx-auto" style={{ width: width || undefined }}>
          {data && width > 0 && (
            <TransformWrapper
              ref={zoomRef}
              minScale={1}
              maxScale={maxScale}
              limitToBounds
              doubleClick={{ disabled: true }}
              wheel={{ step: 0.15 }}
              velocityAnimation={{ disabled: true }}
              onTransform={(_ref, state) => {
                const v = { scale: state.scale, x: state.positionX, y: state.positionY };
                viewRef.current = v;
                setView(v);
                // A tooltip says what was under the pointer before the view moved: gone until the pointer moves.
                setHover(null);
                redraw();
              }}
            >
              <TransformComponent
                wrapperClass={`rounded-xl bg-[#0d1326] ring-1 ring-white/10 focus:outline-2 focus:outline-amber-300 ${onSeatClick ? "cursor-pointer" : ""}`}
                wrapperStyle={{ width: "100%", height, touchAction: "none" }}
                contentStyle={{ width, height }}
                wrapperProps={{
                  tabIndex: 0,
                  role: "application",
                  "aria-roledescription": t("roleDescription"),
                  "aria-label": t(onSeatClick ? "labelPick" : "label", { count: formatCount(seatCount, fmt) }),
                  "aria-describedby": `seat-map-live-${eventId}`,
                  onKeyDown,
                  onPointerDown: (e) => {
                    tap.current = { x: e.clientX, y: e.clientY, at: clock(), id: e.pointerId };
                  },
                  onPointerUp: (e) => {
                    const down = tap.current;
                    tap.current = null;
                    if (!down || down.id !== e.pointerId || clock() - down.at > TAP_MS || Math.hypot(e.clientX - down.x, e.clientY - down.y) > TAP_SLOP_PX) return;
                    const rect = e.currentTarget.getBoundingClientRect();
                    tapAt(e.clientX - rect.left, e.clientY - rect.top);
                  },
                  onPointerMove,
                  onPointerLeave: () => setHover(null),
                  onBlur: () => setFocus(null),
                } as React.HTMLAttributes<HTMLDivElement>}
              >
                {/* The library's content: an empty box of the map's size, which it moves and scales; the canvas below draws what it would show. */}
                <div style={{ width, height }} />
              </TransformComponent>
            </TransformWrapper>
          )}
          {data && width > 0 && (
                <canvas
              ref={canvasRef}
              style={{ width, height }}
              className="pointer-events-none absolute left-0 top-0 rounded-xl"
              data-testid="seat-map"
              data-seat-count={seatCount}
              data-available-count={availability.data?.available ?? ""}
              data-view={`${view.scale} ${view.x} ${view.y}`}
              data-base={base}
              data-pickable={pickable ? "true" : "false"}
              data-focus={focus ?? ""}
              aria-hidden="true"
            />
          )}
          {!data && <div className="aspect-[1000/820] w-full rounded-xl border border-white/10 bg-[#0d1326]" data-testid="seat-map-loading" />}
          {hover && (
            <div className="pointer-events-none absolute max-w-[16rem] rounded bg-black/85 px-2 py-1 text-xs" style={{ left: Math.min(hover.x + 12, Math.max(0, width - 200)), top: hover.y + 12 }}>
              {hover.label}
            </div>
          )}
          </div>
        </div>
      ) : (
        data && index && <SeatList words={words} data={data} index={index} bits={bits} selected={selected} onSeatClick={onSeatClick} />
      )}
      <p id={`seat-map-live-${eventId}`} aria-live="polite" className="sr-only" data-testid="seat-map-announcement">
        {announcement}
      </p>
      {/* Below the map: it changes as the fan zooms, and nothing above the map may change height. */}
      <p className="text-sm text-white/60" data-testid="seat-map-hint">
        {tab === "map" ? hint : t("listHint")}
      </p>
      <div className="flex flex-wrap items-center gap-x-4 gap-y-1 text-sm">
        {data?.levels.map((l) => (
          <span key={l.id} className="flex items-center gap-1">
            <span className="inline-block h-3 w-3 rounded-sm" style={{ background: l.color }} /> {l.name}
          </span>
        ))}
        <span className="flex items-center gap-1">
          <span className="inline-block h-2 w-2 rounded-sm" style={{ background: TAKEN }} /> {t("legendTaken")}
        </span>
        <span className="flex items-center gap-1">
          <span className="inline-block h-3 w-3 rounded-full border border-black bg-white" /> {t("legendPicked")}
        </span>
        <span className="ml-auto text-white/70" data-testid="seat-map-caption">
          {map.isPending ? t("loading") : t("seatCount", { count: formatCount(seatCount, fmt) })}
          {availability.data && t("available", { count: formatCount(availability.data.available, fmt) })}
        </span>
      </div>
    </div>
  );
}

function ZoomButton({ label, onClick, disabled, children }: { label: string; onClick: () => void; disabled?: boolean; children: React.ReactNode }) {
  return (
    <button type="button" aria-label={label} title={label} onClick={onClick} disabled={disabled} className="h-9 w-9 rounded bg-white/10 text-lg leading-none hover:bg-white/20 disabled:opacity-50">
      {children}
    </button>
  );
}

/**
 * The list fallback: one section's free seats, row by row, as buttons (pressed = picked).
 * Sections are offered in the plan's order with their free counts.
 */
function SeatList({ words, data, index, bits, selected, onSeatClick }: { words: Words; data: SeatMapData; index: ReturnType<typeof indexSeats>; bits: Uint8Array | null; selected: number[]; onSeatClick?: (seat: MapSeat) => void }) {
  const sections = data.sections.map((s, i) => ({ ...s, i, free: (index.sections[i] ?? []).filter((o) => seatFree(data, bits, o)).length })).filter((s) => (index.sections[s.i] ?? []).length > 0);
  const [section, setSection] = useState(sections.find((s) => s.free > 0)?.i ?? sections[0]?.i ?? 0);
  const rows = new Map<number, number[]>();
  for (const o of index.sections[section] ?? []) {
    if (!seatFree(data, bits, o) && !selected.includes(o)) continue;
    const r = data.seats.row[o]!;
    rows.set(r, [...(rows.get(r) ?? []), o]);
  }
  const { t, fmt } = words;
  const rowName = (o: number) => data.rows[data.seats.row[o]!] ?? "";
  return (
    <div className="space-y-3" data-testid="seat-list">
      <label className="flex flex-wrap items-center gap-2 text-sm">
        {t("section")}
        <select value={section} onChange={(e) => setSection(Number(e.target.value))} className="max-w-full rounded bg-black/40 px-3 py-2">
          {sections.map((s) => (
            <option key={s.i} value={s.i}>
              {t("sectionFree", { name: sectionName(t, s), count: formatCount(s.free, fmt) })}
            </option>
          ))}
        </select>
      </label>
      {rows.size === 0 && <p className="text-white/60">{t("noFree")}</p>}
      <div className="max-h-96 space-y-2 overflow-y-auto pr-1">
        {[...rows.entries()].map(([r, ordinals]) => (
          <div key={r} className="flex flex-wrap items-center gap-1" role="group" aria-label={t("row", { row: rowName(ordinals[0]!) })}>
            <span className="w-16 shrink-0 text-xs text-white/60">{t("row", { row: rowName(ordinals[0]!) })}</span>
            {ordinals.map((o) => {
              const seat = seatOf(words, data, bits, o);
              const picked = selected.includes(o);
              return (
                <button
                  key={o}
                  type="button"
                  aria-pressed={picked}
                  aria-label={describe(words, seat, picked)}
                  disabled={!onSeatClick}
                  onClick={() => onSeatClick?.(seat)}
                  className={`h-8 min-w-8 rounded px-1 text-xs ${picked ? "bg-white font-bold text-black ring-2 ring-black" : "bg-white/10 hover:bg-white/20"}`}
                >
                  {data.seats.number[o]}
                </button>
              );
            })}
          </div>
        ))}
      </div>
    </div>
  );
}
