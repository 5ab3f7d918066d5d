"use client";
/**
 * A door verdict (lib/tickets/verdict.ts) in the reader's language: colour, icon and words, the
 * seat composed in the reader's language (lib/venues/seat-label.ts) and times in the show's time
 * zone. Over the camera view it covers the picture for a moment, then shrinks to a band at its
 * bottom so the next ticket can be aimed; without the camera it is a panel above the code box.
 */
import { useLocale, useTranslations } from "next-intl";
import { useEffect, useState } from "react";
import { intlLocale, type Locale } from "@/lib/i18n/config";
import { toneOf, type DoorVerdict, type VerdictTicket, type VerdictTone } from "@/lib/tickets/verdict";
import { seatLabel, type SeatWords } from "@/lib/venues/seat-label";

/** How long (ms) a verdict covers the camera view before it shrinks to a band. */
export const VERDICT_COVER_MS = 2_500;

const TONE: Record<VerdictTone, { panel: string; cover: string; icon: string }> = {
  ok: { panel: "border-emerald-400/70 bg-emerald-500/15 text-emerald-50", cover: "bg-emerald-700/95 text-white", icon: "✓" },
  bad: { panel: "border-red-400/70 bg-red-500/15 text-red-50", cover: "bg-red-700/95 text-white", icon: "✕" },
  warn: { panel: "border-amber-300/70 bg-amber-300/10 text-amber-50", cover: "bg-amber-700/95 text-white", icon: "!" },
};

/** The words of a verdict: `title` (the headline) and `detail`. */
export function useVerdictWords(): (v: DoorVerdict) => { title: string; detail: string } {
  const t = useTranslations("Scan");
  const tSeat = useTranslations("Seat") as unknown as SeatWords;
  const locale = useLocale() as Locale;
  const seat = (ticket: VerdictTicket) => (ticket.seat ? seatLabel(tSeat, ticket.seat) : ticket.seatLabel);
  const time = (at: number, timeZone: string) =>
    new Intl.DateTimeFormat(intlLocale(locale), { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23", timeZone }).format(at);
  return (v) => {
    switch (v.kind) {
      case "admitted":
        return v.offline
          ? { title: t("admittedOffline", { seat: seat(v.ticket) }), detail: t("admittedOfflineDetail") }
          : { title: t("admitted", { seat: seat(v.ticket) }), detail: t("showAndTime", { show: v.ticket.eventName, time: time(v.at, v.ticket.timeZone) }) };
      case "used":
        return { title: v.here ? t("usedHere", { time: time(v.at, v.ticket.timeZone) }) : t("used", { time: time(v.at, v.ticket.timeZone) }), detail: t("seatAndShow", { seat: seat(v.ticket), show: v.ticket.eventName }) };
      case "refunded":
        return { title: t("refunded"), detail: t("refundedDetail", { seat: seat(v.ticket) }) };
      case "void":
        return { title: t("void"), detail: t("voidDetail", { seat: seat(v.ticket) }) };
      case "replaced":
        return { title: t("replaced"), detail: t("replacedDetail", { seat: seat(v.ticket) }) };
      case "wrong_show":
        return { title: t("wrongShow"), detail: t("wrongShowDetail") };
      case "unknown":
        return { title: t("unknown"), detail: t("unknownDetail") };
      case "not_genuine":
        return { title: t("notGenuine"), detail: v.reason === "malformed" ? t("notGenuineMalformed") : t("notGenuineForged") };
      case "needs_network":
        return { title: t("needsNetwork"), detail: t("needsNetworkDetail") };
      case "empty":
        return { title: t("empty"), detail: t("emptyDetail") };
      case "failed":
        return { title: t("failed"), detail: v.message ?? t("failedDetail") };
    }
  };
}

/**
 * One verdict.
 * @param props.verdict what to show; `n` numbers it (render with `key={n}`: a new verdict covers again).
 * @param props.over true over the camera view (absolutely placed in it), false as a panel.
 */
export function VerdictView({ verdict, n, over }: { verdict: DoorVerdict; n: number; over: boolean }) {
  const t = useTranslations("Scan");
  const words = useVerdictWords()(verdict);
  const tone = toneOf(verdict);
  // The page keys each verdict by `n`, so a new verdict mounts covering again.
  const [covering, setCovering] = useState(true);
  useEffect(() => {
    const timer = setTimeout(() => setCovering(false), VERDICT_COVER_MS);
    return () => clearTimeout(timer);
  }, [n]);
  const compact = over && !covering;
  const box = over
    ? `absolute inset-x-0 bottom-0 flex flex-col ${compact ? "gap-0.5 px-3 py-2" : "top-0 items-center justify-center gap-2 p-4 text-center"} ${TONE[tone].cover}`
    : `flex min-h-36 items-start gap-4 rounded-xl border p-4 ${TONE[tone].panel}`;
  return (
    <div role="status" aria-atomic="true" data-testid="scan-result" data-tone={tone} data-kind={verdict.kind} data-compact={compact || undefined} className={`break-words ${box}`}>
      <span aria-hidden="true" className={`shrink-0 font-black leading-none ${compact ? "hidden" : over ? "text-6xl" : "text-5xl"}`}>
        {TONE[tone].icon}
      </span>
      <div className="min-w-0">
        <span className="sr-only">{tone === "ok" ? t("toneOk") : tone === "bad" ? t("toneBad") : t("toneWarn")}: </span>
        <p className={`font-bold ${compact ? "text-base leading-snug" : "text-2xl leading-tight sm:text-3xl"}`} data-testid="scan-title">
          {words.title}
        </p>
        <p className={`mt-1 text-sm ${compact ? "hidden" : "opacity-90"}`} data-testid="scan-detail">
          {words.detail}
        </p>
      </div>
    </div>
  );
}

/** The panel before the first scan: where verdicts will appear. */
export function ReadyPanel({ checking }: { checking: boolean }) {
  const t = useTranslations("Scan");
  return (
    <div data-testid="scan-ready" className="flex min-h-36 items-center gap-4 rounded-xl border border-dashed border-white/25 p-4 text-white/70">
      <span aria-hidden="true" className="text-5xl leading-none">
        ▢
      </span>
      <p className="text-lg">{checking ? t("checking") : t("ready")}</p>
    </div>
  );
}
