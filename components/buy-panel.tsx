"use client";
/**
 * Buying on the event page: best available N in a price level, or seats picked on the
 * map; then a hold and a move to the order page. Errors come back in words a fan
 * understands (seat just taken, over the per-fan limit, not on sale yet…); trouble on our
 * side (an outage) keeps the fan's turn and retries with back-off (components/trouble.ts).
 */
import { useLocale, useTranslations } from "next-intl";
import { useRouter } from "next/navigation";
import { useEffect, useState, useTransition } from "react";
import { holdSeatsAction } from "@/app/[locale]/events/[slug]/actions";
import { SeatMap, type MapSeat } from "@/components/seat-map";
import { isTrouble, isTroubleCode, troubleDelayMs, troubleMessage } from "@/components/trouble";
import { Countdown } from "@/components/countdown";
import { formatMoney, formatTimeInZone } from "@/lib/format";
import { intlLocale } from "@/lib/i18n/config";

interface Level {
  id: string;
  name: string;
  priceMinor: number;
  currency: string;
  remaining: number;
}

/** @param timeZone the venue's IANA zone: the end of the fan's turn is said in it. */
export function BuyPanel(props: { eventId: string; slug: string; levels: Level[]; perFanLimit: number; onSaleAt: string; timeZone: string }) {
  const router = useRouter();
  const t = useTranslations("Buy");
  const troubleText = useTranslations("Trouble");
  const fmt = intlLocale(useLocale());
  const [mode, setMode] = useState<"best" | "map">("best");
  const [levelId, setLevelId] = useState(props.levels[0]?.id ?? "");
  const [quantity, setQuantity] = useState(2);
  const [picked, setPicked] = useState<MapSeat[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [pendingOrderId, setPendingOrderId] = useState<string | null>(null);
  // The hold's idempotency key: the same one, with the same request, until an answer arrives, so
  // a double click or a retry returns the same order; a new one for the next attempt (a key is
  // bound to its request: another request under it is refused, docs/adr/0025).
  const [nonce, setNonce] = useState(() => crypto.randomUUID());
  const [pending, startTransition] = useTransition();
  const [open, setOpen] = useState(true);
  const [turn, setTurn] = useState<{ state: "loading" | "signed-out" | "waiting" | "admitted"; until?: number }>({ state: "loading" });
  useEffect(() => {
    const check = () => setOpen(Date.now() >= new Date(props.onSaleAt).getTime());
    const first = setTimeout(check, 0);
    const id = setInterval(check, 1_000);
    return () => {
      clearTimeout(first);
      clearInterval(id);
    };
  }, [props.onSaleAt]);
  // Whose turn is it? Asked once (not cacheable, so not polled): admitted fans shop, others queue.
  useEffect(() => {
    let cancelled = false;
    (async () => {
      let res: Response | null = null;
      for (let trouble = 0; !cancelled; trouble++) {
        res = await fetch(`/api/events/${props.eventId}/queue/me`).catch(() => null);
        if (res && !isTrouble(res.status)) break;
        await new Promise((r) => setTimeout(r, troubleDelayMs(trouble, Number(res?.headers.get("Retry-After") ?? 0))));
      }
      if (cancelled || !res) return;
      if (res.status === 401) return setTurn({ state: "signed-out" });
      const me = res.ok ? ((await res.json()) as { state: string; admittedUntil: number | null }) : null;
      setTurn(me?.state === "admitted" ? { state: "admitted", until: me.admittedUntil ?? undefined } : { state: "waiting" });
    })();
    return () => {
      cancelled = true;
    };
  }, [props.eventId]);
  const queueUrl = `/events/${props.slug}/queue`;

  function hold(request: unknown) {
    setError(null);
    setPendingOrderId(null);
    startTransition(async () => {
      // Trouble on our side (an outage, no answer): keep the turn and the same idempotency key, so
      // a hold that did land comes back as the same order, and retry with back-off.
      let result: Awaited<ReturnType<typeof holdSeatsAction>> | null = null;
      for (let trouble = 0; trouble < 6; trouble++) {
        result = await holdSeatsAction(props.eventId, request, nonce).catch(() => null);
        if (result && (result.ok || !isTroubleCode(result.code))) break;
        const wait = troubleDelayMs(trouble, result && !result.ok ? result.retryAfter : 0);
        setError(troubleMessage(troubleText, wait, "turn"));
        await new Promise((r) => setTimeout(r, wait));
      }
      if (!result) return setError(t("unreachable"));
      setNonce(crypto.randomUUID());
      if (result.ok) return router.push(`/orders/${result.orderId}`);
      if (result.code === "sign_in_required") return router.push(`/sign-in?next=${encodeURIComponent(`/events/${props.slug}`)}`);
      if (result.code.startsWith("admission_")) return router.push(queueUrl);
      setError(result.error);
      setPendingOrderId(typeof result.orderId === "string" ? result.orderId : null);
      setPicked([]);
    });
  }

  function toggle(seat: MapSeat) {
    setError(null);
    if (picked.some((p) => p.ordinal === seat.ordinal)) return setPicked(picked.filter((p) => p.ordinal !== seat.ordinal));
    if (!seat.level) return setError(t("notForSale", { seat: seat.label }));
    if (!seat.free) return setError(t("taken", { seat: seat.label }));
    if (picked.length >= props.perFanLimit) return setError(t("atMost", { n: props.perFanLimit }));
    setPicked([...picked, seat]);
  }

  const total = picked.reduce((n, p) => n + (p.level?.priceMinor ?? 0), 0);
  if (turn.state !== "admitted") {
    return (
      <div className="space-y-4" data-testid="buy-panel" data-turn={turn.state}>
        <div className="flex flex-wrap items-center gap-4 rounded-xl border border-indigo-300/30 bg-indigo-300/5 p-4">
          {turn.state === "loading" && <p className="text-white/60">{t("checking")}</p>}
          {turn.state === "signed-out" && (
            <>
              <p>{t("signInToQueue")}</p>
              <a href={`/sign-in?next=${encodeURIComponent(queueUrl)}`} className="button-primary px-5 py-2">
                {t("signIn")}
              </a>
              <a href={`/sign-up?next=${encodeURIComponent(queueUrl)}`} className="rounded bg-white/10 px-5 py-2 font-semibold hover:bg-white/20">
                {t("createAccount")}
              </a>
            </>
          )}
          {turn.state === "waiting" && (
            <>
              <p>
                {open ? t("waitingRoomOpen") : t("waitingRoomBefore")} <span data-testid="fan-limit-before">{t("limitBefore", { limit: props.perFanLimit })}</span>
              </p>
              {/* One click: a fan whose earlier turn ended (e.g. after buying) queues again at once (rejoin). */}
              <a href={`${queueUrl}?rejoin=1`} className="button-primary px-5 py-2">
                {open ? t("joinQueue") : t("joinWaitingRoom")}
              </a>
            </>
          )}
        </div>
        <SeatMap eventId={props.eventId} />
      </div>
    );
  }
  return (
    <div className="space-y-4" data-testid="buy-panel" data-turn="admitted">
      <p className="text-emerald-300">{turn.until ? t("yourTurnUntil", { time: formatTimeInZone(new Date(turn.until), props.timeZone, fmt) }) : t("yourTurn")}</p>
      {turn.until && (
        <Countdown until={turn.until} label={t("turnEndsIn")} warnBelowMs={2 * 60_000} warning={t("turnEndingSoon")} testId="admission-countdown" />
      )}
      <div className="flex gap-2">
        {(["best", "map"] as const).map((m) => (
          <button
            key={m}
            onClick={() => setMode(m)}
            className={`rounded px-4 py-2 text-sm ${mode === m ? "bg-indigo-600 font-semibold" : "bg-white/10 hover:bg-white/20"}`}
          >
            {m === "best" ? t("best") : t("map")}
          </button>
        ))}
      </div>
      {!open && <p className="text-amber-200">{t("notOpenYet")}</p>}
      {mode === "best" && (
        <div className="flex flex-wrap items-center gap-3">
          <label className="text-sm" htmlFor="buy-level">
            {t("priceLevel")}
          </label>
          <select id="buy-level" value={levelId} onChange={(e) => setLevelId(e.target.value)} className="rounded bg-black/40 px-3 py-2">
              {props.levels.map((l) => (
                <option key={l.id} value={l.id}>
                  {l.name} — {formatMoney(l.priceMinor, l.currency, fmt)}
                </option>
              ))}
          </select>
          <label className="text-sm" htmlFor="buy-quantity">
            {t("seats")}
          </label>
          <select id="buy-quantity" value={quantity} onChange={(e) => setQuantity(Number(e.target.value))} className="rounded bg-black/40 px-3 py-2">
              {Array.from({ length: props.perFanLimit }, (_, i) => i + 1).map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
          </select>
          <button
            disabled={pending || !open}
            onClick={() => hold({ kind: "best", priceLevelId: levelId, quantity })}
            className="rounded bg-emerald-500 px-5 py-2 font-semibold text-black hover:bg-emerald-400 disabled:opacity-50"
          >
            {t("holdBest", { n: quantity })}
          </button>
        </div>
      )}
      {mode === "map" && (
        <div className="flex flex-wrap items-center gap-3 text-sm">
          <span data-testid="picked-seats">{picked.length === 0 ? t("pickHint") : picked.map((p) => p.label).join(", ")}</span>
          {picked.length > 0 && (
            <button
              disabled={pending || !open}
              onClick={() => hold({ kind: "seats", ordinals: picked.map((p) => p.ordinal) })}
              className="rounded bg-emerald-500 px-5 py-2 font-semibold text-black hover:bg-emerald-400 disabled:opacity-50"
            >
              {t("holdPicked", { n: picked.length, total: formatMoney(total, picked[0]!.level!.currency, fmt) })}
            </button>
          )}
        </div>
      )}
      {error && (
        <p role="alert" className="text-red-300" data-testid="buy-error">
          {error}
          {pendingOrderId && (
            <>
              {" "}
              <a href={`/orders/${pendingOrderId}`} className="underline" data-testid="pending-order-link">
                {t("goToOrder")}
              </a>
            </>
          )}
        </p>
      )}
      <SeatMap eventId={props.eventId} selected={picked.map((p) => p.ordinal)} onSeatClick={mode === "map" ? toggle : undefined} />
    </div>
  );
}
