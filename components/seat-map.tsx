"use client";
/**
 * The whole seat map on one canvas: every seat a small square coloured by price level,
 * greyed out when taken, with section outlines and the stage. 20,000 seats draw in a
 * few milliseconds; no per-seat DOM nodes. Geometry loads once; availability (a
 * bitset) refreshes every 2 s.
 */
import { useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState } from "react";
import type { Availability } from "@/lib/inventory/availability";
import type { SeatMapData } from "@/lib/venues/seat-map";
import { formatCount, formatMoney } from "@/lib/format";

const TAKEN = "#3b4257";
const NOT_ON_SALE = "#1f2433";
const SEAT_SIZE = 3.2;

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

/** Index of the seat nearest to plan point (px, py) within 3 plan units, or -1. */
function nearestSeat(data: SeatMapData, px: number, py: number): number {
  let best = -1;
  let bestD = 9;
  for (let i = 0; i < data.seats.x.length; i++) {
    const dx = data.seats.x[i]! - px;
    const dy = data.seats.y[i]! - py;
    const d = dx * dx + dy * dy;
    if (d < bestD) {
      bestD = d;
      best = i;
    }
  }
  return best;
}

/** A seat as the map reports it to its parent. */
export interface MapSeat {
  ordinal: number;
  label: string;
  level: { id: string; name: string; priceMinor: number; currency: string } | null;
  free: boolean;
}

/**
 * @param selected seat ordinals drawn highlighted.
 * @param onSeatClick called with the clicked seat; omit for a view-only map.
 */
export function SeatMap({ eventId, selected = [], onSeatClick }: { eventId: string; selected?: number[]; onSeatClick?: (seat: MapSeat) => void }) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const [hover, setHover] = useState<{ label: string; x: number; y: number } | null>(null);
  const map = useQuery({ queryKey: ["seat-map", eventId], queryFn: () => getJson<SeatMapData>(`/api/events/${eventId}/seat-map`), staleTime: Infinity });
  const availability = useQuery({
    queryKey: ["availability", eventId],
    queryFn: () => getJson<Availability>(`/api/events/${eventId}/availability`),
    refetchInterval: 2_000,
  });
  const bits = useMemo(() => (availability.data ? decodeBits(availability.data.bits) : null), [availability.data]);

  useEffect(() => {
    const canvas = canvasRef.current;
    const data = map.data;
    if (!canvas || !data) return;
    const dpr = window.devicePixelRatio || 1;
    const cssWidth = canvas.clientWidth;
    const scale = cssWidth / data.width;
    canvas.width = Math.round(cssWidth * dpr);
    canvas.height = Math.round(data.height * scale * dpr);
    const ctx = canvas.getContext("2d");
    if (!ctx) return;
    ctx.setTransform(dpr * scale, 0, 0, dpr * scale, 0, 0);
    ctx.clearRect(0, 0, data.width, data.height);

    ctx.fillStyle = "#111729";
    for (const section of data.sections) {
      ctx.beginPath();
      section.outline.forEach(([x, y], i) => (i === 0 ? ctx.moveTo(x, y) : ctx.lineTo(x, y)));
      ctx.closePath();
      ctx.fill();
    }
    ctx.fillStyle = "#f8fafc";
    ctx.beginPath();
    data.stage.forEach(([x, y], i) => (i === 0 ? ctx.moveTo(x, y) : ctx.lineTo(x, y)));
    ctx.closePath();
    ctx.fill();
    const [sx = 0, sy = 0] = data.stage.reduce(([ax, ay], [x, y]) => [ax + x / data.stage.length, ay + y / data.stage.length], [0, 0]);
    ctx.fillStyle = "#0b1020";
    ctx.font = "bold 16px sans-serif";
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    ctx.fillText("STAGE", sx, sy);

    const { x, y, level } = data.seats;
    const half = SEAT_SIZE / 2;
    // Batch by colour: one fillStyle change per level instead of one per seat.
    const colours = [...data.levels.map((l) => l.color), TAKEN, NOT_ON_SALE];
    for (let c = 0; c < colours.length; c++) {
      ctx.fillStyle = colours[c]!;
      for (let i = 0; i < x.length; i++) {
        const lv = level[i]!;
        const colour = lv < 0 ? colours.length - 1 : isFree(bits, i) ? lv : colours.length - 2;
        if (colour === c) ctx.fillRect(x[i]! - half, y[i]! - half, SEAT_SIZE, SEAT_SIZE);
      }
    }
    ctx.strokeStyle = "#ffffff";
    ctx.lineWidth = 1.2;
    ctx.fillStyle = "#ffffff";
    for (const o of selected) {
      ctx.fillRect(x[o]! - half - 0.6, y[o]! - half - 0.6, SEAT_SIZE + 1.2, SEAT_SIZE + 1.2);
      ctx.strokeRect(x[o]! - half - 1.6, y[o]! - half - 1.6, SEAT_SIZE + 3.2, SEAT_SIZE + 3.2);
    }
    ctx.fillStyle = "rgba(255,255,255,0.75)";
    ctx.font = "9px sans-serif";
    for (const section of data.sections) ctx.fillText(section.code, section.labelX, section.labelY);
  }, [map.data, bits, selected]);

  if (map.isError) return <p className="text-red-300">The seat map could not be loaded. Reload the page to try again.</p>;
  const seatCount = map.data?.seats.x.length ?? 0;

  function seatAt(e: React.MouseEvent<HTMLCanvasElement>): { seat: MapSeat; x: number; y: number } | null {
    const data = map.data;
    const canvas = canvasRef.current;
    if (!data || !canvas) return null;
    const rect = canvas.getBoundingClientRect();
    const scale = rect.width / data.width;
    const i = nearestSeat(data, (e.clientX - rect.left) / scale, (e.clientY - rect.top) / scale);
    if (i < 0) return null;
    const lv = data.levels[data.seats.level[i]!] ?? null;
    return {
      seat: { ordinal: i, label: data.seats.label[i]!, level: lv, free: lv !== null && isFree(bits, i) },
      x: e.clientX - rect.left,
      y: e.clientY - rect.top,
    };
  }

  function onMove(e: React.MouseEvent<HTMLCanvasElement>) {
    const hit = seatAt(e);
    if (!hit) return setHover(null);
    const { seat } = hit;
    const state = !seat.level ? "not on sale" : seat.free ? formatMoney(seat.level.priceMinor, seat.level.currency) : "taken";
    setHover({ label: `${seat.label} — ${seat.level ? `${seat.level.name}, ` : ""}${state}`, x: hit.x, y: hit.y });
  }

  function onClick(e: React.MouseEvent<HTMLCanvasElement>) {
    const hit = seatAt(e);
    if (hit && onSeatClick) onSeatClick(hit.seat);
  }

  return (
    <div className="space-y-3">
      <div className="relative">
        <canvas
          ref={canvasRef}
          className={`w-full rounded-xl border border-white/10 bg-[#0d1326] ${onSeatClick ? "cursor-pointer" : ""}`}
          style={{ aspectRatio: map.data ? `${map.data.width} / ${map.data.height}` : "1000 / 820" }}
          data-testid="seat-map"
          data-seat-count={seatCount}
          data-available-count={availability.data?.available ?? ""}
          role="img"
          aria-label={`Seat map with ${seatCount} seats`}
          onMouseMove={onMove}
          onMouseLeave={() => setHover(null)}
          onClick={onClick}
        />
        {hover && (
          <div className="pointer-events-none absolute rounded bg-black/85 px-2 py-1 text-xs" style={{ left: hover.x + 12, top: hover.y + 12 }}>
            {hover.label}
          </div>
        )}
      </div>
      <div className="flex flex-wrap items-center gap-4 text-sm">
        {map.data?.levels.map((l) => (
          <span key={l.id} className="flex items-center gap-1">
            <span className="inline-block h-3 w-3 rounded-sm" style={{ background: l.color }} /> {l.name}
          </span>
        ))}
        <span className="flex items-center gap-1">
          <span className="inline-block h-3 w-3 rounded-sm" style={{ background: TAKEN }} /> Taken
        </span>
        <span className="ml-auto text-white/70" data-testid="seat-map-caption">
          {map.isPending ? "Loading seat map…" : `${formatCount(seatCount)} seats`}
          {availability.data && ` · ${formatCount(availability.data.available)} available`}
        </span>
      </div>
    </div>
  );
}
