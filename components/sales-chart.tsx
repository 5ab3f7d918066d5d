/**
 * Seats sold per minute as an SVG bar chart (seats given back — refunds, voided orders — as red
 * bars below the axis), with a cumulative line of the net (pure rendering, no library).
 */
import type { SalesPoint } from "@/lib/dashboard/live";

export function SalesChart({ points, height = 160 }: { points: SalesPoint[]; height?: number }) {
  const width = 720;
  const pad = 24;
  const maxBar = Math.max(1, ...points.map((p) => p.seats));
  const maxReturned = Math.max(1, ...points.map((p) => p.returned));
  const returnedTotal = points.reduce((n, p) => n + p.returned, 0);
  const cumulative = points.reduce<number[]>((acc, p) => [...acc, (acc[acc.length - 1] ?? 0) + p.seats - p.returned], []);
  const running = cumulative[cumulative.length - 1] ?? 0;
  const maxCum = Math.max(1, ...cumulative);
  const bw = (width - 2 * pad) / Math.max(1, points.length);
  const y = (v: number, max: number) => height - pad - (v / max) * (height - 2 * pad);
  const line = cumulative.map((c, i) => `${i === 0 ? "M" : "L"}${pad + i * bw + bw / 2},${y(c, maxCum)}`).join(" ");
  return (
    <svg viewBox={`0 0 ${width} ${height}`} className="w-full" role="img" aria-label={`Sales over the last hour: ${running} seats net${returnedTotal ? `, after ${returnedTotal} given back` : ""}`} data-testid="sales-chart">
      <line x1={pad} y1={height - pad} x2={width - pad} y2={height - pad} stroke="#334155" />
      {points.map((p, i) => (
        <rect key={p.minute} x={pad + i * bw + 1} y={y(p.seats, maxBar)} width={Math.max(1, bw - 2)} height={height - pad - y(p.seats, maxBar)} fill="#6366f1">
          <title>{`${new Date(p.minute).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}: ${p.seats} seats`}</title>
        </rect>
      ))}
      {points.map((p, i) =>
        p.returned > 0 ? (
          <rect key={`r${p.minute}`} x={pad + i * bw + 1} y={height - pad} width={Math.max(1, bw - 2)} height={Math.max(2, (p.returned / maxReturned) * (pad - 12))} fill="#f87171">
            <title>{`${new Date(p.minute).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}: ${p.returned} seats given back`}</title>
          </rect>
        ) : null,
      )}
      <path d={line} fill="none" stroke="#34d399" strokeWidth={2} />
      <text x={pad} y={14} fill="#94a3b8" fontSize={11}>
        seats per minute (bars, max {maxBar}){returnedTotal ? ` · given back (red, ${returnedTotal})` : ""} · net cumulative (line, {running})
      </text>
      <text x={pad} y={height - 6} fill="#94a3b8" fontSize={10}>
        −60 min
      </text>
      <text x={width - pad} y={height - 6} fill="#94a3b8" fontSize={10} textAnchor="end">
        now
      </text>
    </svg>
  );
}
