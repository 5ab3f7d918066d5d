"use client";
/**
 * The live view: polls /api/admin/events/:id/live every 2 s; waiting-room controls post to
 * /api/admin/events/:id/queue and take effect at once. Words from the `Live` catalogue,
 * numbers in the page's locale, times in the show's venue zone (like every other page).
 */
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useLocale, useTranslations } from "next-intl";
import { useState } from "react";
import { SalesChart } from "@/components/sales-chart";
import type { LiveStats } from "@/lib/dashboard/live";
import { formatCount, formatMoney, formatTimeInZone } from "@/lib/format";
import { intlLocale } from "@/lib/i18n/config";
import { rateInForce } from "@/lib/waiting-room/rate";

function Tile({ label, value, testId, warn }: { label: string; value: string; testId?: string; warn?: boolean }) {
  return (
    <div className={`min-w-0 rounded-xl border p-3 sm:p-4 ${warn ? "border-red-400/60 bg-red-500/10" : "border-white/10 bg-white/5"}`}>
      <p className="text-xs uppercase tracking-wide text-white/60">{label}</p>
      <p className="mt-1 break-words text-xl font-semibold tabular-nums sm:text-2xl" data-testid={testId}>
        {value}
      </p>
    </div>
  );
}

/** A typed control value: a whole number ≥ 1, null when left empty, NaN when it is not one. */
function wholeNumber(text: string): number | null {
  const t = text.trim();
  if (t === "") return null;
  return /^\d+$/.test(t) && Number(t) >= 1 ? Number(t) : Number.NaN;
}

/**
 * @param name the show's name, as the organizer entered it.
 * @param timeZone the show's venue zone: the "updated" time and the chart's times are read there.
 */
export function LiveView({ eventId, name, timeZone }: { eventId: string; name: string; timeZone: string }) {
  const t = useTranslations("Live");
  const fmt = intlLocale(useLocale());
  const client = useQueryClient();
  const { data, error } = useQuery({
    queryKey: ["live", eventId],
    queryFn: async () => {
      const res = await fetch(`/api/admin/events/${eventId}/live`);
      if (!res.ok) throw new Error(((await res.json().catch(() => ({}))) as { error?: string }).error ?? t("httpError", { status: res.status }));
      return (await res.json()) as LiveStats;
    },
    refetchInterval: 2_000,
  });
  const [rate, setRate] = useState("");
  const [cap, setCap] = useState("");
  const [message, setMessage] = useState<string | null>(null);

  async function control(body: Record<string, unknown>) {
    const res = await fetch(`/api/admin/events/${eventId}/queue`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const json = (await res.json().catch(() => ({}))) as { error?: string };
    setMessage(res.ok ? t("applied") : (json.error ?? t("httpError", { status: res.status })));
    await client.invalidateQueries({ queryKey: ["live", eventId] });
  }

  function applyLimits() {
    const r = wholeNumber(rate);
    const c = wholeNumber(cap);
    if (Number.isNaN(r) || Number.isNaN(c)) return setMessage(t("wholeNumbers"));
    if (r === null && c === null) return setMessage(t("nothingToApply"));
    void control({ ...(r !== null ? { ratePerMinute: r } : {}), ...(c !== null ? { activeCap: c } : {}) });
  }

  if (error) return <p className="text-red-300">{t("loadFailed", { error: error.message })}</p>;
  if (!data) return <p className="text-white/60">{t("loading")}</p>;
  const q = data.queue;
  const n = (x: number) => formatCount(x, fmt);
  /** A share as a percentage; "—" when there is nothing to divide (no payments yet is not 0 % success). */
  const pct = (x: number | null) => (x === null ? "—" : new Intl.NumberFormat(fmt, { style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(x));
  const money = data.currency ? formatMoney(data.revenueMinor, data.currency, fmt) : "—";
  const inForce = rateInForce(q);
  const p99 = data.holdPath.p99 === null ? "—" : t("ms", { ms: data.holdPath.p99 });
  return (
    <div className="space-y-6" data-testid="live-view">
      <header className="flex flex-wrap items-baseline justify-between gap-2">
        <h1 className="min-w-0 break-words text-2xl font-bold sm:text-3xl">{t("title", { name })}</h1>
        <p className="text-sm text-white/60" data-testid="live-updated" data-at={data.at}>
          {t("updated", { time: formatTimeInZone(new Date(data.at), timeZone, fmt, { seconds: true }), minutes: data.windowMinutes })}
        </p>
      </header>

      <section className="grid grid-cols-2 gap-2 sm:gap-3 md:grid-cols-4">
        <Tile label={t("soldOfCapacity")} value={`${n(data.sold)} / ${n(data.capacity)}`} testId="live-sold" />
        <Tile label={t("revenue")} value={money} testId="live-revenue" />
        <Tile label={t("liveHolds")} value={n(data.liveHolds)} testId="live-holds" />
        <Tile label={t("seatsHeld")} value={n(data.held)} />
        <Tile label={t("waiting")} value={n(data.waiting)} testId="live-waiting" />
        <Tile label={t("joined")} value={n(q.queueLength)} testId="live-queue" />
        <Tile label={t("admitted")} value={n(q.servingCounter)} />
        <Tile label={t("activeOfCap")} value={`${n(q.active)} / ${n(q.activeCap)}`} testId="live-cap" />
        <Tile
          label={inForce.paced ? t("ratePaced") : t("rate")}
          value={t("rateValue", { rate: n(inForce.rate), max: n(q.ratePerMinute), paced: String(inForce.paced), paused: String(q.paused) })}
          warn={q.paused}
          testId="live-rate"
        />
        <Tile label={t("holdExpiry")} value={data.holdExpiryRate === null ? "—" : `${pct(data.holdExpiryRate)} (${n(data.holdsExpired)}/${n(data.holdsStarted)})`} />
        <Tile label={t("paymentSuccess")} value={pct(data.paymentSuccessRate)} />
        <Tile label={t("paymentDeclines")} value={pct(data.paymentDeclineRate)} warn={(data.paymentDeclineRate ?? 0) > 0.2} />
        <Tile
          label={t("holdPathHealth")}
          value={`${p99} · ${pct(data.holdPath.attempts ? data.holdPath.errorRate : null)}`}
          warn={(data.holdPath.p99 ?? 0) > 800 || data.holdPath.errorRate > 0.01}
        />
      </section>

      <section className="rounded-xl border border-white/10 bg-white/5 p-3 sm:p-4">
        <h2 className="mb-2 font-semibold">{t("salesHeading")}</h2>
        <SalesChart points={data.sales} timeZone={timeZone} />
      </section>

      <section className="space-y-3 rounded-xl border border-white/10 bg-white/5 p-3 sm:p-4">
        <h2 className="font-semibold">{t("waitingRoom")}</h2>
        <p className="text-sm text-white/60">
          {t("holdPath", {
            attempts: data.holdPath.attempts,
            held: data.holdPath.held,
            refused: data.holdPath.refused,
            errors: data.holdPath.errors,
            p50: data.holdPath.p50 === null ? "—" : t("ms", { ms: data.holdPath.p50 }),
          })}
        </p>
        <div className="flex flex-wrap items-end gap-3">
          <button onClick={() => control({ paused: !q.paused })} className="rounded bg-amber-500 px-4 py-2 font-semibold text-black">
            {q.paused ? t("resume") : t("pause")}
          </button>
          <label className="text-sm">
            {t("rateInput")}
            <input value={rate} onChange={(e) => setRate(e.target.value)} placeholder={String(q.ratePerMinute)} inputMode="numeric" className="mt-1 block w-32 rounded bg-black/40 px-3 py-2" />
          </label>
          <label className="text-sm">
            {t("capInput")}
            <input value={cap} onChange={(e) => setCap(e.target.value)} placeholder={String(q.activeCap)} inputMode="numeric" className="mt-1 block w-32 rounded bg-black/40 px-3 py-2" />
          </label>
          <button onClick={applyLimits} className="button-primary px-4 py-2">
            {t("apply")}
          </button>
          {message && (
            <span role="status" className="text-sm text-white/80">
              {message}
            </span>
          )}
        </div>
      </section>
    </div>
  );
}
