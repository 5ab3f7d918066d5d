/**
 * Seats sold per minute as an SVG bar chart (seats given back — refunds, voided orders — as red
 * bars below the axis), with a cumulative line of the net (pure rendering, no library). The
 * drawing stretches to its box; its words (legend, times in the venue's zone) are HTML text
 * beside it, so they stay readable when a phone shrinks the drawing.
 */
import { useLocale, useTranslations } from "next-intl";
import type { SalesPoint } from "@/lib/dashboard/live";
import { formatTimeInZone } from "@/lib/format";
import { intlLocale } from "@/lib/i18n/config";

/** "20:10": a minute's time of day in the venue's zone, 24-hour; the axis names the zone once, at its last tick. */
function tick(at: Date, timeZone: string, locale: string): string {
  return new Intl.DateTimeFormat(locale, { hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZone }).format(at);
}

export function SalesChart({ points, timeZone, height = 160 }: { points: SalesPoint[]; timeZone: string; height?: number }) {
  const t = useTranslations("Live");
  const fmt = intlLocale(useLocale());
  const width = 720;
  const pad = 8;
  const below = 28; // room under the axis for the given-back bars
  const maxBar = Math.max(1, ...points.map((p) => p.seats));
  const maxReturned = Math.max(1, ...points.map((p) => p.returned));
  const returnedTotal = points.reduce((n, p) => n + p.returned, 0);
  const cumulative = points.reduce<number[]>((acc, p) => [...acc, (acc[acc.length - 1] ?? 0) + p.seats - p.returned], []);
  const running = cumulative[cumulative.length - 1] ?? 0;
  const maxCum = Math.max(1, ...cumulative);
  const bw = (width - 2 * pad) / Math.max(1, points.length);
  const axis = height - below;
  const y = (v: number, max: number) => axis - (v / max) * (axis - pad);
  const line = cumulative.map((c, i) => `${i === 0 ? "M" : "L"}${pad + i * bw + bw / 2},${y(c, maxCum)}`).join(" ");
  const minute = (iso: string) => tick(new Date(iso), timeZone, fmt);
  const first = points[0];
  const middle = points[Math.floor(points.length / 2)];
  const last = points[points.length - 1];
  return (
    <figure className="space-y-2">
      <figcaption className="flex flex-wrap gap-x-4 gap-y-1 text-xs text-white/70" data-testid="sales-legend">
        <span>
          <span className="mr-1 inline-block h-2.5 w-2.5 rounded-sm bg-[#6366f1] align-middle" aria-hidden />
          {t("legendSold", { max: maxBar })}
        </span>
        {returnedTotal > 0 && (
          <span>
            <span className="mr-1 inline-block h-2.5 w-2.5 rounded-sm bg-[#f87171] align-middle" aria-hidden />
            {t("legendReturned", { count: returnedTotal })}
          </span>
        )}
        <span>
          <span className="mr-1 inline-block h-0.5 w-3 bg-[#34d399] align-middle" aria-hidden />
          {t("legendNet", { net: running })}
        </span>
      </figcaption>
      <svg
        viewBox={`0 0 ${width} ${height}`}
        preserveAspectRatio="none"
        className="block h-32 w-full sm:h-40"
        role="img"
        aria-label={t("chartLabel", { net: running, returned: returnedTotal })}
        data-testid="sales-chart"
      >
        <line x1={pad} y1={axis} x2={width - pad} y2={axis} stroke="#334155" vectorEffect="non-scaling-stroke" />
        {points.map((p, i) => (
          <rect key={p.minute} x={pad + i * bw + 1} y={y(p.seats, maxBar)} width={Math.max(1, bw - 2)} height={axis - y(p.seats, maxBar)} fill="#6366f1">
            <title>{t("barSold", { time: minute(p.minute), seats: p.seats })}</title>
          </rect>
        ))}
        {points.map((p, i) =>
          p.returned > 0 ? (
            <rect key={`r${p.minute}`} x={pad + i * bw + 1} y={axis} width={Math.max(1, bw - 2)} height={Math.max(2, (p.returned / maxReturned) * (below - 6))} fill="#f87171">
              <title>{t("barReturned", { time: minute(p.minute), seats: p.returned })}</title>
            </rect>
          ) : null,
        )}
        <path d={line} fill="none" stroke="#34d399" strokeWidth={2} vectorEffect="non-scaling-stroke" />
      </svg>
      {first && last && (
        <div className="flex justify-between text-xs tabular-nums text-white/60" data-testid="sales-axis">
          <span>{minute(first.minute)}</span>
          {middle && <span>{minute(middle.minute)}</span>}
          <span>{formatTimeInZone(new Date(last.minute), timeZone, fmt)}</span>
        </div>
      )}
    </figure>
  );
}
