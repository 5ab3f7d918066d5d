"use client";
/**
 * The live view: polls /api/admin/events/:id/live every 2 s; waiting-room controls post to
 * /api/admin/events/:id/queue and take effect at once.
 */
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { SalesChart } from "@/components/sales-chart";
import type { LiveStats } from "@/lib/dashboard/live";
import { formatCount, formatMoney } from "@/lib/format";
import { rateInForce } from "@/lib/waiting-room/rate";

/** A share as a percentage; "—" when there is nothing to divide (no payments yet is not 0 % success). */
const pct = (x: number | null) => (x === null ? "—" : `${(x * 100).toFixed(1)}%`);

function Tile({ label, value, testId, warn }: { label: string; value: string; testId?: string; warn?: boolean }) {
  return (
    <div className={`rounded-xl border p-4 ${warn ? "border-red-400/60 bg-red-500/10" : "border-white/10 bg-white/5"}`}>
      <p className="text-xs uppercase tracking-wide text-white/60">{label}</p>
      <p className="mt-1 text-2xl font-semibold tabular-nums" data-testid={testId}>
        {value}
      </p>
    </div>
  );
}

export function LiveView({ eventId, name }: { eventId: string; name: string }) {
  const client = useQueryClient();
  const { data, error } = useQuery({
    queryKey: ["live", eventId],
    queryFn: async () => {
      const res = await fetch(`/api/admin/events/${eventId}/live`);
      if (!res.ok) throw new Error(((await res.json().catch(() => ({}))) as { error?: string }).error ?? String(res.status));
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
    setMessage(res.ok ? "Applied." : (json.error ?? `Error ${res.status}`));
    await client.invalidateQueries({ queryKey: ["live", eventId] });
  }

  if (error) return <p className="text-red-300">The live view could not load: {error.message}</p>;
  if (!data) return <p className="text-white/60">Loading live figures…</p>;
  const q = data.queue;
  const money = data.currency ? formatMoney(data.revenueMinor, data.currency) : "—";
  return (
    <div className="space-y-6" data-testid="live-view">
      <header className="flex flex-wrap items-baseline justify-between gap-2">
        <h1 className="text-3xl font-bold">{name} — live</h1>
        <p className="text-sm text-white/60">updated {new Intl.DateTimeFormat("en-GB", { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23", timeZoneName: "short" }).format(new Date(data.at))} · rates over the last {data.windowMinutes} min</p>
      </header>

      <section className="grid grid-cols-2 gap-3 md:grid-cols-4">
        <Tile label="Sold / capacity" value={`${formatCount(data.sold)} / ${formatCount(data.capacity)}`} testId="live-sold" />
        <Tile label="Revenue" value={money} testId="live-revenue" />
        <Tile label="Live holds" value={formatCount(data.liveHolds)} testId="live-holds" />
        <Tile label="Seats held" value={formatCount(data.held)} />
        <Tile label="Waiting now" value={formatCount(data.waiting)} testId="live-waiting" />
        <Tile label="Joined the queue" value={formatCount(q.queueLength)} testId="live-queue" />
        <Tile label="Admitted (serving counter)" value={formatCount(q.servingCounter)} />
        <Tile label="Active / cap" value={`${formatCount(q.active)} / ${formatCount(q.activeCap)}`} testId="live-cap" />
        <Tile
          label={rateInForce(q).paced ? "Admission rate (paced to the shop)" : "Admission rate"}
          value={`${formatCount(rateInForce(q).rate)}/min${rateInForce(q).paced ? ` of ${formatCount(q.ratePerMinute)}` : ""}${q.paused ? " · paused" : ""}`}
          warn={q.paused}
          testId="live-rate"
        />
        <Tile label="Hold-expiry rate" value={data.holdExpiryRate === null ? "—" : `${pct(data.holdExpiryRate)} (${data.holdsExpired}/${data.holdsStarted})`} />
        <Tile label="Payment success" value={pct(data.paymentSuccessRate)} />
        <Tile label="Payment declines" value={pct(data.paymentDeclineRate)} warn={(data.paymentDeclineRate ?? 0) > 0.2} />
        <Tile
          label="Hold p99 · error rate"
          value={`${data.holdPath.p99 === null ? "—" : `${data.holdPath.p99} ms`} · ${pct(data.holdPath.attempts ? data.holdPath.errorRate : null)}`}
          warn={(data.holdPath.p99 ?? 0) > 800 || data.holdPath.errorRate > 0.01}
        />
      </section>

      <section className="rounded-xl border border-white/10 bg-white/5 p-4">
        <h2 className="mb-2 font-semibold">Sales over the last hour</h2>
        <SalesChart points={data.sales} />
      </section>

      <section className="space-y-3 rounded-xl border border-white/10 bg-white/5 p-4">
        <h2 className="font-semibold">Waiting room</h2>
        <p className="text-sm text-white/60">
          Hold path: {data.holdPath.attempts} {data.holdPath.attempts === 1 ? "attempt" : "attempts"}, {data.holdPath.held} held, {data.holdPath.refused} refused, {data.holdPath.errors} {data.holdPath.errors === 1 ? "error" : "errors"}; p50{" "}
          {data.holdPath.p50 ?? "—"} ms. If p99 or errors climb, lower the admission rate.
        </p>
        <div className="flex flex-wrap items-end gap-3">
          <button onClick={() => control({ paused: !q.paused })} className="rounded bg-amber-500 px-4 py-2 font-semibold text-black">
            {q.paused ? "Resume" : "Pause"}
          </button>
          <label className="text-sm">
            Rate (fans/min)
            <input value={rate} onChange={(e) => setRate(e.target.value)} placeholder={String(q.ratePerMinute)} inputMode="numeric" className="mt-1 block w-32 rounded bg-black/40 px-3 py-2" />
          </label>
          <label className="text-sm">
            Active cap
            <input value={cap} onChange={(e) => setCap(e.target.value)} placeholder={String(q.activeCap)} inputMode="numeric" className="mt-1 block w-32 rounded bg-black/40 px-3 py-2" />
          </label>
          <button
            onClick={() =>
              control({
                ...(rate.trim() ? { ratePerMinute: Number(rate) } : {}),
                ...(cap.trim() ? { activeCap: Number(cap) } : {}),
              })
            }
            className="button-primary px-4 py-2"
          >
            Apply
          </button>
          {message && <span className="text-sm text-white/80">{message}</span>}
        </div>
      </section>
    </div>
  );
}
