"use client";
/**
 * Buying on the event page: best available N in a price level, or seats picked on the
 * map; then a hold and a move to the order page. Errors come back in words a fan
 * understands (seat just taken, over the per-fan limit, not on sale yet…); trouble on our
 * side (an outage) keeps the fan's turn and retries with back-off (components/trouble.ts).
 *
 * The quantity menu offers only what the fan may still buy: the server counts the fan's seats
 * of this show as the hold path's limit check counts them (GET /api/events/:id/fan-seats).
 *
 * While picking on the map nothing above the map changes height (a fan's next tap must land
 * where they aimed): the picked seats, the turn's clock, errors and the Hold button live in a
 * bar of fixed height below the map, which sticks to the bottom of the screen while the
 * panel is in view (the bottom bar of a ticketing app on a phone).
 */
import { useLocale, useTranslations } from "next-intl";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useState, useTransition } from "react";
import { holdSeatsAction } from "@/app/[locale]/events/[slug]/actions";
import { SeatMap, type MapSeat } from "@/components/seat-map";
import { isTrouble, isTroubleCode, troubleDelayMs, troubleMessage } from "@/components/trouble";
import { Countdown, formatClock, useTimeLeft } from "@/components/countdown";
import { authClient } from "@/lib/auth/client";
import { formatMoney, formatTimeInZone } from "@/lib/format";
import { intlLocale } from "@/lib/i18n/config";

interface Level {
  id: string;
  name: string;
  priceMinor: number;
  currency: string;
  remaining: number;
}

/** The fan's seats of this show against its per-fan limit, as the server counts them (held + bought). */
interface FanSeats {
  limit: number;
  have: number;
  left: number;
}

/** Warn this long before the fan's turn ends. */
const TURN_WARNING_MS = 2 * 60_000;

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
  const [askedTurn, setTurn] = useState<{ state: "loading" | "signed-out" | "waiting" | "admitted"; until?: number }>({ state: "loading" });
  // A signed-out visitor has no turn to ask about (no request, no 401): the header's session, one shared request, says so.
  const session = authClient.useSession();
  const signedIn = session.isPending ? null : Boolean(session.data);
  const turn: typeof askedTurn = signedIn === false ? { state: "signed-out" } : askedTurn;
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
    if (!signedIn) return;
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
  }, [props.eventId, signedIn]);
  const queueUrl = `/events/${props.slug}/queue`;

  // How many more seats the fan may buy, once admitted; asked again after a refusal over the limit.
  const [fanSeats, setFanSeats] = useState<FanSeats | null>(null);
  const loadFanSeats = useCallback(async () => {
    const res = await fetch(`/api/events/${props.eventId}/fan-seats`).catch(() => null);
    if (res?.ok) setFanSeats((await res.json()) as FanSeats);
  }, [props.eventId]);
  useEffect(() => {
    if (turn.state !== "admitted") return;
    const first = setTimeout(() => void loadFanSeats(), 0);
    return () => clearTimeout(first);
  }, [turn.state, loadFanSeats]);
  const left = fanSeats ? Math.min(fanSeats.left, props.perFanLimit) : props.perFanLimit;
  const quotaLine = fanSeats && fanSeats.have > 0 ? t(fanSeats.left === 0 ? "quotaFull" : "quota", { have: fanSeats.have, limit: fanSeats.limit }) : null;

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
      if (result.code === "fan_limit") void loadFanSeats();
    });
  }

  function toggle(seat: MapSeat) {
    setError(null);
    if (picked.some((p) => p.ordinal === seat.ordinal)) return setPicked(picked.filter((p) => p.ordinal !== seat.ordinal));
    if (!seat.level) return setError(t("notForSale", { seat: seat.label }));
    if (!seat.free) return setError(t("taken", { seat: seat.label }));
    if (left === 0 && quotaLine) return setError(quotaLine);
    if (picked.length >= left) return setError(t("atMost", { n: left }));
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
  const separator = t("seatSeparator");
  return (
    <div className="space-y-4" data-testid="buy-panel" data-turn="admitted">
      <p className="text-emerald-300">{turn.until ? t("yourTurnUntil", { time: formatTimeInZone(new Date(turn.until), props.timeZone, fmt) }) : t("yourTurn")}</p>
      {/* On the map the clock is in the bar below it (its warning line would push the map down). */}
      {turn.until && mode === "best" && (
        <Countdown until={turn.until} label={t("turnEndsIn")} warnBelowMs={TURN_WARNING_MS} warning={t("turnEndingSoon")} testId="admission-countdown" />
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
      {mode === "best" && (
        <>
          {!open && <p className="text-amber-200">{t("notOpenYet")}</p>}
          {quotaLine && (
            <p className="text-sm text-white/80" data-testid="fan-quota">
              {quotaLine}
            </p>
          )}
          {left > 0 && (
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
              <select id="buy-quantity" value={Math.min(quantity, left)} onChange={(e) => setQuantity(Number(e.target.value))} className="rounded bg-black/40 px-3 py-2">
                {Array.from({ length: left }, (_, i) => i + 1).map((n) => (
                  <option key={n} value={n}>
                    {n}
                  </option>
                ))}
              </select>
              <button
                disabled={pending || !open}
                onClick={() => hold({ kind: "best", priceLevelId: levelId, quantity: Math.min(quantity, left) })}
                className="rounded bg-emerald-500 px-5 py-2 font-semibold text-black hover:bg-emerald-400 disabled:opacity-50"
              >
                {t("holdBest", { n: Math.min(quantity, left) })}
              </button>
            </div>
          )}
          {error && <ErrorLine error={error} pendingOrderId={pendingOrderId} goTo={t("goToOrder")} />}
        </>
      )}
      <SeatMap eventId={props.eventId} selected={picked.map((p) => p.ordinal)} onSeatClick={mode === "map" ? toggle : undefined} />
      {mode === "map" && (
        // Fixed height whatever it says; sticks to the bottom of the screen while the panel is in view.
        <div className="sticky bottom-0 z-10 -mx-1 flex h-28 flex-col justify-between gap-2 rounded-t-xl border-t border-white/15 bg-[#0b1020]/95 px-3 py-2 backdrop-blur" role="region" aria-label={t("pickedBar")} data-testid="buy-bar">
          <div className="h-10 overflow-y-auto text-sm leading-5">
            {error ? (
              <ErrorLine error={error} pendingOrderId={pendingOrderId} goTo={t("goToOrder")} />
            ) : !open ? (
              <p className="text-amber-200">{t("notOpenYet")}</p>
            ) : (
              <>
                {turn.until && <TurnWarning until={turn.until} warning={t("turnEndingSoon")} />}
                {picked.length > 0 ? (
                  <p data-testid="picked-seats">{picked.map((p) => p.label).join(separator)}</p>
                ) : (
                  <p className="text-white/70">
                    {quotaLine && <span data-testid="fan-quota">{quotaLine} </span>}
                    {left > 0 && <span data-testid="picked-seats">{t("pickHint")}</span>}
                  </p>
                )}
              </>
            )}
          </div>
          <div className="flex items-center gap-3">
            {turn.until && <TurnClock until={turn.until} label={t("turnEndsIn")} />}
            <button
              disabled={pending || !open || picked.length === 0}
              onClick={() => hold({ kind: "seats", ordinals: picked.map((p) => p.ordinal) })}
              className="ml-auto h-11 flex-1 rounded bg-emerald-500 px-4 font-semibold text-black hover:bg-emerald-400 disabled:opacity-50 sm:max-w-xs"
            >
              {picked.length === 0 ? t("holdNone") : t("holdPicked", { n: picked.length, total: formatMoney(total, picked[0]!.level!.currency, fmt) })}
            </button>
          </div>
        </div>
      )}
    </div>
  );
}

/** A refusal in words, with a link to the fan's held order when that is what stands in the way. */
function ErrorLine({ error, pendingOrderId, goTo }: { error: string; pendingOrderId: string | null; goTo: string }) {
  return (
    <p role="alert" className="text-red-300" data-testid="buy-error">
      {error}
      {pendingOrderId && (
        <>
          {" "}
          <a href={`/orders/${pendingOrderId}`} className="underline" data-testid="pending-order-link">
            {goTo}
          </a>
        </>
      )}
    </p>
  );
}

/** The turn's clock in the bar, amber in its last two minutes (the warning itself is {@link TurnWarning}, in the bar's status lines). */
function TurnClock({ until, label }: { until: number; label: string }) {
  const left = useTimeLeft(until);
  const warn = left > 0 && left <= TURN_WARNING_MS;
  return (
    <p className={`shrink-0 text-xs leading-4 ${warn ? "text-amber-300" : "text-white/70"}`} data-testid="admission-countdown" data-warning={warn ? "true" : "false"}>
      {label}
      <br />
      <span role="timer" className="font-mono text-lg font-semibold tabular-nums" data-testid="admission-countdown-clock">
        {formatClock(left)}
      </span>
    </p>
  );
}

/** "Your turn is almost over…" in the turn's last two minutes, else nothing (its own clock, so the panel does not re-render twice a second). */
function TurnWarning({ until, warning }: { until: number; warning: string }) {
  const left = useTimeLeft(until);
  if (!(left > 0 && left <= TURN_WARNING_MS)) return null;
  return (
    <p role="status" className="font-semibold text-amber-300">
      {warning}
    </p>
  );
}
