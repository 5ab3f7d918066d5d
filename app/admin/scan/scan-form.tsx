"use client";
/**
 * The door's scan box: scan with the camera, or paste/type a code (the signed code from a
 * keyboard scanner, or the short code a fan reads out) and press Check in. The verdict shows
 * where the eyes are — over the camera view while it runs, else in a panel above the code box —
 * with a vibration and a beep (./feedback.ts). Every verdict about a ticket is remembered on this
 * device (lib/tickets/offline-door.ts): without a network a second scan of a ticket seen here is refused at once,
 * an unseen genuine code is accepted and queued, and uploaded when the network is back, with any
 * conflict shown.
 */
import type { JWK } from "jose";
import { useTranslations } from "next-intl";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { toneOf, type DoorVerdict } from "@/lib/tickets/verdict";
import { scanAction, syncOfflineCheckInsAction, type SyncedCheckIn } from "./actions";
import { CameraScanner, type CameraState } from "./camera-scanner";
import { prepareSound, signal } from "./feedback";
import { decideOffline, forgetOtherShows, isNetworkError, readQueue, rememberVerdict, writeQueue, type DoorShow, type OfflineDoor, type QueuedCheckIn, type StoredLabelWords } from "@/lib/tickets/offline-door";
import { ReadyPanel, useVerdictWords, VerdictView } from "./verdict-view";

/** How often (ms) a waiting offline queue is retried while the page believes it is online. */
const SYNC_EVERY_MS = 10_000;
/** Scans kept in the list under the code box. */
const LOG_LENGTH = 8;

/** A verdict as shown: `n` numbers it on this page. */
interface Shown {
  verdict: DoorVerdict;
  n: number;
}

/**
 * Scan form plus the verdict, the recent scans and the offline queue.
 * @param props.organizerId whose shows this door admits (keys the device's memory and queue).
 * @param props.publicJwk the ticket public key, for verifying codes offline.
 * @param props.shows the organizer's shows (other shows' tickets are refused offline; names and time zones for offline verdicts).
 * @param props.words the English seat-label grammar, to read a code's stored label into parts offline.
 */
export function ScanForm({ organizerId, publicJwk, shows, words }: { organizerId: string; publicJwk: JWK; shows: DoorShow[]; words: StoredLabelWords }) {
  const t = useTranslations("Scan");
  const wordsOf = useVerdictWords();
  const [current, setCurrent] = useState<Shown | null>(null);
  const [log, setLog] = useState<Shown[]>([]);
  const [pending, setPending] = useState(0);
  const [queued, setQueued] = useState<QueuedCheckIn[]>([]);
  const [conflicts, setConflicts] = useState<SyncedCheckIn[]>([]);
  const [synced, setSynced] = useState(0);
  const [camera, setCamera] = useState<CameraState>("off");
  const input = useRef<HTMLTextAreaElement>(null);
  const n = useRef(0);
  const syncing = useRef(false);
  const door = useMemo<OfflineDoor>(() => ({ organizerId, jwk: publicJwk, shows, words }), [organizerId, publicJwk, shows, words]);

  useEffect(() => forgetOtherShows(organizerId, shows), [organizerId, shows]);

  const show = useCallback((verdict: DoorVerdict) => {
    n.current += 1;
    const next = { verdict, n: n.current };
    setCurrent(next);
    setLog((l) => [next, ...l].slice(0, LOG_LENGTH));
    signal(toneOf(verdict));
  }, []);

  /** The verdict this device gives alone (no network): from its memory, or accepted and queued. */
  const decideHere = useCallback(
    async (code: string) => {
      const verdict = await decideOffline(door, code);
      setQueued(readQueue(organizerId));
      show(verdict);
    },
    [door, organizerId, show],
  );

  const submit = useCallback(
    async (code: string) => {
      if (code.trim() === "") return show({ kind: "empty" });
      if (!navigator.onLine) return decideHere(code);
      setPending((p) => p + 1);
      try {
        const verdict = await scanAction(code);
        rememberVerdict(organizerId, verdict);
        show(verdict);
      } catch (error) {
        if (isNetworkError(error)) await decideHere(code);
        else show({ kind: "failed", message: null });
      } finally {
        setPending((p) => p - 1);
      }
    },
    [decideHere, organizerId, show],
  );

  const sync = useCallback(async () => {
    const queue = readQueue(organizerId);
    setQueued(queue);
    if (syncing.current || queue.length === 0 || !navigator.onLine) return;
    syncing.current = true;
    try {
      const batch = queue.slice(0, 200);
      const results = await syncOfflineCheckInsAction(batch.map(({ code, scannedAt }) => ({ code, scannedAt })));
      if (!Array.isArray(results)) return; // a refusal (signed out, …): keep the queue
      const done = new Set(batch.map((q) => q.code));
      const rest = readQueue(organizerId).filter((q) => !done.has(q.code));
      writeQueue(organizerId, rest);
      setQueued(rest);
      for (const r of results) rememberVerdict(organizerId, r.verdict);
      setSynced((s) => s + results.filter((r) => r.result === "ok").length);
      const bad = results.filter((r) => r.result !== "ok");
      if (bad.length > 0) setConflicts((c) => [...bad, ...c]);
    } catch {
      // Still no network: the queue waits for the next try.
    } finally {
      syncing.current = false;
    }
  }, [organizerId]);

  useEffect(() => {
    const first = setTimeout(() => void sync(), 0);
    const timer = setInterval(() => void sync(), SYNC_EVERY_MS);
    const online = () => void sync();
    window.addEventListener("online", online);
    return () => {
      clearTimeout(first);
      clearInterval(timer);
      window.removeEventListener("online", online);
    };
  }, [sync]);

  const checking = pending > 0 && (
    <span className="absolute left-2 top-2 z-10 rounded bg-black/70 px-2 py-1 text-xs text-white" data-testid="scan-checking">
      {t("checking")}
    </span>
  );

  return (
    <div className="space-y-4">
      <CameraScanner
        onCode={(code) => void submit(code)}
        onStart={prepareSound}
        onState={setCamera}
        overlay={
          <>
            {checking}
            {current && <VerdictView key={current.n} verdict={current.verdict} n={current.n} over />}
          </>
        }
      />
      {camera === "off" && (current ? <VerdictView key={current.n} verdict={current.verdict} n={current.n} over={false} /> : <ReadyPanel checking={pending > 0} />)}
      <form
        className="space-y-2"
        onSubmit={(e) => {
          e.preventDefault();
          prepareSound();
          const code = input.current?.value ?? "";
          if (input.current) input.current.value = "";
          input.current?.focus({ preventScroll: true });
          void submit(code);
        }}
      >
        <label className="block text-sm" htmlFor="ticket-code">
          {t("ticketCode")}
        </label>
        <div className="flex items-stretch gap-2">
          <textarea
            ref={input}
            id="ticket-code"
            name="code"
            rows={2}
            autoFocus
            spellCheck={false}
            autoCapitalize="characters"
            autoComplete="off"
            placeholder={t("ticketCodePlaceholder")}
            className="min-w-0 flex-1 rounded bg-black/40 px-3 py-2 font-mono text-xs"
            onKeyDown={(e) => {
              if (e.key === "Enter" && !e.shiftKey) {
                e.preventDefault();
                e.currentTarget.form?.requestSubmit();
              }
            }}
          />
          <button disabled={pending > 0} className="button-primary shrink-0 px-5 py-2">
            {pending > 0 ? t("checkingButton") : t("checkIn")}
          </button>
        </div>
      </form>
      {(queued.length > 0 || synced > 0 || conflicts.length > 0) && (
        <section className="space-y-2 rounded border border-white/15 p-3 text-sm" data-testid="offline-queue">
          {queued.length > 0 && <p data-testid="offline-waiting">{t("offlineWaiting", { count: queued.length })}</p>}
          {synced > 0 && <p data-testid="offline-synced">{t("offlineSynced", { count: synced })}</p>}
          {conflicts.map((c, i) => {
            const w = wordsOf(c.verdict);
            return (
              <p key={`${c.code}-${i}`} data-testid="offline-conflict" className="rounded border border-red-400/60 bg-red-500/15 p-2 break-words text-red-100">
                {t("conflict", { title: w.title, detail: w.detail })}
              </p>
            );
          })}
        </section>
      )}
      {log.length > 0 && (
        <ol className="space-y-1 text-sm text-white/70" aria-label={t("recentScans")} data-testid="scan-log">
          {log.map((l) => (
            <li key={l.n} data-testid="scan-log-entry" data-tone={toneOf(l.verdict)} className="break-words">
              {wordsOf(l.verdict).title}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
