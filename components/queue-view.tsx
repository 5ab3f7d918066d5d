"use client";
/**
 * The waiting room as a fan sees it. Joins once (idempotent, so reloads keep the place),
 * then polls the cheap, CDN-cacheable public status with jitter and compares the
 * serving counter with the fan's own position; asks for its own status (and the
 * admission token) only when its turn has come. A pre-queue fan's place is drawn at the
 * on-sale: until its turn is near it shows an estimate from its draw (preQueueTurnNear),
 * so the on-sale does not send every pre-queue fan to the origin in the same second.
 * When the public status names another generation of the queue than the fan's (Redis lost
 * it), it asks for its own status, which re-seats it from its queue ticket; a re-seated
 * place (negative position) does not follow the serving counter, so it asks for its own
 * status at the pace its `ahead` allows (docs/adr/0028).
 * Backs off on 429 using Retry-After; on trouble (503, no answer) it says the place is kept
 * and retries with exponential back-off (components/trouble.ts).
 */
import { useLocale, useTranslations } from "next-intl";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useRef, useState } from "react";
import { isTrouble, troubleDelayMs, troubleMessage } from "@/components/trouble";
import { formatCount } from "@/lib/format";
import { intlLocale } from "@/lib/i18n/config";
import { estimatedPreQueuePosition, pollDelayMs, preQueueTurnNear } from "@/lib/waiting-room/draw";
import { rateInForce } from "@/lib/waiting-room/rate";
import type { FanQueueStatus, PublicQueueStatus } from "@/lib/waiting-room/room";

type Fan = FanQueueStatus & { admissionToken: string | null };
const jitter = (ms: number) => ms * (0.75 + Math.random() * 0.5);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One request; a network failure comes back as status 0 with no message (never throws). The server's message is in the page's language already. */
async function call<T>(url: string, init?: RequestInit): Promise<{ ok: true; data: T } | { ok: false; status: number; error: string | null; retryAfter: number }> {
  let res: Response;
  try {
    res = await fetch(url, init);
  } catch {
    return { ok: false, status: 0, error: null, retryAfter: 0 };
  }
  if (res.ok) return { ok: true, data: (await res.json()) as T };
  const body = (await res.json().catch(() => ({}))) as { error?: string };
  return { ok: false, status: res.status, error: body.error ?? null, retryAfter: Number(res.headers.get("Retry-After") ?? 0) };
}

type TimeTranslator = ReturnType<typeof useTranslations<"Time">>;

/** A wait in words: "less than a minute", "about 7 minutes", "about 1 h 5 min". */
function formatEta(t: TimeTranslator, seconds: number): string {
  if (seconds < 60) return t("lessThanMinute");
  const m = Math.round(seconds / 60);
  return t("about", { eta: m < 60 ? t("minutes", { n: m }) : t("hoursMinutes", { h: Math.floor(m / 60), m: m % 60 }) });
}

/** @param timeZone the venue's IANA zone (times are said in it); @param onSaleLabel the on-sale, formatted in it for the page's language. */
export function QueueView(props: { eventId: string; slug: string; name: string; onSaleAt: string; onSaleLabel: string; timeZone: string }) {
  const router = useRouter();
  const t = useTranslations("Queue");
  const time = useTranslations("Time");
  const troubleText = useTranslations("Trouble");
  const fmt = intlLocale(useLocale());
  const [fan, setFan] = useState<Fan | null>(null);
  const [pub, setPub] = useState<PublicQueueStatus | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const [notice, setNotice] = useState<string | null>(null);
  const stopped = useRef(false);
  const base = `/api/events/${props.eventId}/queue`;

  const join = useCallback(
    async (rejoin = false) => {
      for (let trouble = 0; !stopped.current; ) {
        const r = await call<Fan>(`${base}${rejoin ? "?rejoin=1" : ""}`, { method: "POST" });
        if (r.ok) {
          setNotice(null);
          return setFan(r.data);
        }
        if (isTrouble(r.status)) {
          const wait = troubleDelayMs(trouble++, r.retryAfter);
          setNotice(troubleMessage(troubleText, wait));
          await sleep(wait);
          continue;
        }
        if (r.status !== 429) return setNotice(r.error ?? t("errorStatus", { status: r.status }));
        setNotice(t("busyJoining", { seconds: r.retryAfter }));
        await sleep(jitter(r.retryAfter * 1000));
      }
    },
    [base, t, troubleText],
  );

  useEffect(() => {
    stopped.current = false;
    // Sent here by the show page's "Join the queue" (`?rejoin=1`): a fan whose earlier turn has
    // ended is put back in line at once instead of being shown "your turn has ended" first.
    const rejoin = new URLSearchParams(window.location.search).get("rejoin") === "1";
    const first = setTimeout(() => void join(rejoin), 0);
    const tick = setInterval(() => setNow(Date.now()), 1_000);
    return () => {
      stopped.current = true;
      clearTimeout(first);
      clearInterval(tick);
    };
  }, [join]);

  // Poll: public status while waiting; our own status when the on-sale passes or our turn comes.
  useEffect(() => {
    if (!fan) return;
    if (fan.state === "admitted") {
      router.push(`/events/${props.slug}?admitted=1`);
      return;
    }
    if (fan.state === "expired" || fan.state === "none") return;
    let cancelled = false;
    let trouble = 0;
    (async () => {
      while (!cancelled && !stopped.current) {
        if (fan.state === "waiting" && fan.position < 0) {
          await sleep(jitter(pollDelayMs(fan.ahead, fan.paused ? 0 : fan.ratePerMinute)));
          if (cancelled) return;
          const me = await call<Fan>(`${base}/me`);
          if (me.ok) return !cancelled && setFan(me.data);
          if (isTrouble(me.status)) await sleep(troubleDelayMs(trouble++, me.retryAfter));
          continue;
        }
        if (fan.state === "pre" && Date.now() < fan.onSaleAt) {
          await sleep(fan.onSaleAt - Date.now() + jitter(1_500));
          continue;
        }
        const r = await call<PublicQueueStatus>(base);
        if (cancelled) return;
        if (r.ok) {
          trouble = 0;
          setPub(r.data);
          setNotice(null);
          if (r.data.generation !== fan.generation || (fan.state === "pre" ? preQueueTurnNear(fan.draw, r.data) : r.data.servingCounter >= fan.position)) {
            const me = await call<Fan>(`${base}/me`);
            if (me.ok) return !cancelled && setFan(me.data);
          }
          const mine = fan.state === "pre" && fan.draw !== null ? estimatedPreQueuePosition(fan.draw, r.data.preQueueSize) : fan.position;
          await sleep(jitter(pollDelayMs(mine - r.data.servingCounter - 1, r.data.paused ? 0 : rateInForce(r.data).rate)));
        } else if (isTrouble(r.status)) {
          const wait = troubleDelayMs(trouble++, r.retryAfter);
          setNotice(troubleMessage(troubleText, wait));
          await sleep(wait);
        } else {
          if (r.status === 429) setNotice(t("busyChecking", { seconds: r.retryAfter }));
          await sleep(jitter(Math.max(3, r.retryAfter) * 1000));
        }
      }
    })();
    return () => {
      cancelled = true;
    };
  }, [fan, base, props.slug, router, t, troubleText]);

  const onSaleIn = Math.max(0, Math.ceil((new Date(props.onSaleAt).getTime() - now) / 1000));
  const serving = pub?.servingCounter ?? fan?.servingCounter ?? 0;
  const rate = pub ? rateInForce(pub).rate : (fan?.ratePerMinute ?? 0);
  const paused = pub?.paused ?? fan?.paused ?? false;
  // After the on-sale a pre-queue fan sees an estimate of its drawn place until its turn is near.
  const drawn = fan?.state === "pre" && now >= fan.onSaleAt && fan.draw !== null;
  const estimated = drawn && pub ? estimatedPreQueuePosition(fan.draw!, pub.preQueueSize) : null;
  // A re-seated place (negative) is shown as its place among the fans let in before the serving counter.
  const reseated = fan?.state === "waiting" && fan.position < 0;
  const position = reseated ? fan.ahead + 1 : fan?.state === "waiting" ? fan.position : (estimated ?? 0);
  const ahead = reseated ? fan.ahead : position > 0 ? Math.max(0, position - serving - 1) : 0;
  const progress = reseated ? 0 : position > 0 ? Math.min(1, serving / position) : 0;
  const state = drawn ? "waiting" : (fan?.state ?? "joining");

  return (
    <div className="mx-auto max-w-xl space-y-6 text-center" data-testid="queue" data-state={state} data-position={estimated !== null ? "estimated" : "exact"}>
      <h1 className="text-3xl font-bold">{props.name}</h1>
      {!fan && <p className="text-white/70">{t("joining")}</p>}

      {fan?.state === "pre" && !drawn && (
        <div className="space-y-3">
          <p className="text-lg">{t("inWaitingRoom", { when: props.onSaleLabel })}</p>
          <p className="font-mono text-5xl tabular-nums" data-testid="countdown">
            {String(Math.floor(onSaleIn / 3600)).padStart(2, "0")}:{String(Math.floor((onSaleIn % 3600) / 60)).padStart(2, "0")}:
            {String(onSaleIn % 60).padStart(2, "0")}
          </p>
          <p className="text-sm text-white/60">
            {t("preQueueExplain")}
          </p>
        </div>
      )}

      {state === "waiting" && (
        <div className="space-y-4">
          <p className="text-lg">
            {t("yourPlace")}{" "}
            {position > 0 ? (
              <span className="font-bold" data-testid="position">
                {estimated !== null ? t("aboutPosition", { position: formatCount(position, fmt) }) : formatCount(position, fmt)}
              </span>
            ) : (
              <span className="text-white/70">{t("beingDrawn")}</span>
            )}
          </p>
          {estimated !== null && <p className="text-xs text-white/50">{t("drawnNote")}</p>}
          {position > 0 && (
            <p data-testid="ahead">{ahead === 0 ? t("next") : t(estimated !== null ? "aheadAbout" : "ahead", { n: ahead })}</p>
          )}
          <div
            className="h-4 w-full overflow-hidden rounded-full bg-white/10"
            role="progressbar"
            aria-label={t("progressLabel")}
            aria-valuenow={Math.round(progress * 100)}
            aria-valuemin={0}
            aria-valuemax={100}
            data-testid="queue-progress"
          >
            <div className="h-full bg-indigo-400 transition-all" style={{ width: `${Math.round(progress * 100)}%` }} />
          </div>
          <p className="text-sm text-white/70" data-testid="eta">
            {paused
              ? t("paused")
              : rate > 0
                ? t("eta", { eta: formatEta(time, ((ahead + 1) * 60) / rate), rate: formatCount(rate, fmt) })
                : ""}
          </p>
          <p className="text-xs text-white/50">{t("keepOpen")}</p>
        </div>
      )}

      {fan?.state === "expired" && (
        <div className="space-y-3">
          <p>{t("ended")}</p>
          <button onClick={() => void join(true)} className="button-primary px-5 py-2">
            {t("joinAgain")}
          </button>
        </div>
      )}
      {fan?.state === "admitted" && <p>{t("admitted")}</p>}
      {notice && (
        <p role="status" className="text-amber-200">
          {notice}
        </p>
      )}
    </div>
  );
}
