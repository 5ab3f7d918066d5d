"use client";
/**
 * The door's scan box: scan with the camera, or paste/type a code (the signed code from a
 * keyboard scanner, or the short code a fan reads out) and press Check in; the result shows
 * big, the field clears for the next one. Without a network a signed code is verified here
 * and queued (./offline.ts), and uploaded when the network is back, with any conflict shown.
 */
import type { JWK } from "jose";
import { useCallback, useEffect, useRef, useState } from "react";
import { scanAction, syncOfflineCheckInsAction, type ScanOutcome, type SyncedCheckIn } from "./actions";
import { CameraScanner } from "./camera-scanner";
import { isNetworkError, readQueue, verifyOffline, writeQueue, type QueuedCheckIn } from "./offline";

const TONE = {
  ok: "border-emerald-400/60 bg-emerald-500/15 text-emerald-100",
  warn: "border-amber-300/60 bg-amber-300/10 text-amber-100",
  bad: "border-red-400/60 bg-red-500/15 text-red-100",
} as const;

/** How often (ms) a waiting offline queue is retried while the page believes it is online. */
const SYNC_EVERY_MS = 10_000;
/** Scans kept in the list under the result. */
const LOG_LENGTH = 8;

const clock = (at: number) => new Date(at).toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit", second: "2-digit" });

/**
 * Scan form plus the last outcome, the recent scans and the offline queue.
 * @param props.organizerId whose shows this door admits (keys the offline queue).
 * @param props.publicJwk the ticket public key, for verifying codes offline.
 * @param props.eventIds the organizer's shows, for refusing other shows' tickets offline.
 */
export function ScanForm({ organizerId, publicJwk, eventIds }: { organizerId: string; publicJwk: JWK; eventIds: string[] }) {
  const [outcome, setOutcome] = useState<ScanOutcome | null>(null);
  const [log, setLog] = useState<ScanOutcome[]>([]);
  const [pending, setPending] = useState(0);
  const [queued, setQueued] = useState<QueuedCheckIn[]>([]);
  const [conflicts, setConflicts] = useState<(SyncedCheckIn & { seatLabel: string })[]>([]);
  const [synced, setSynced] = useState(0);
  const input = useRef<HTMLTextAreaElement>(null);
  const n = useRef(0);
  const syncing = useRef(false);

  const show = useCallback((o: Omit<ScanOutcome, "n">) => {
    n.current += 1;
    const next = { ...o, n: n.current };
    setOutcome(next);
    setLog((l) => [next, ...l].slice(0, LOG_LENGTH));
  }, []);

  const acceptOffline = useCallback(
    async (code: string) => {
      const verdict = await verifyOffline(code, publicJwk, eventIds);
      if (!verdict.ok) return show({ tone: "bad", title: verdict.title, detail: verdict.why });
      const queue = readQueue(organizerId);
      const earlier = queue.find((q) => q.ticketId === verdict.ticketId);
      if (earlier) return show({ tone: "bad", title: `Already used at ${clock(earlier.scannedAt)}`, detail: `${verdict.seatLabel} · accepted offline at this door before` });
      const next = [...queue, { code: code.trim(), ticketId: verdict.ticketId, seatLabel: verdict.seatLabel, scannedAt: Date.now() }];
      writeQueue(organizerId, next);
      setQueued(next);
      show({ tone: "ok", title: `Accepted offline (will sync) — ${verdict.seatLabel}`, detail: "Genuine ticket. No network: it is checked in for real when the network is back." });
    },
    [eventIds, organizerId, publicJwk, show],
  );

  const submit = useCallback(
    async (code: string) => {
      if (code.trim() === "") return show({ tone: "bad", title: "Nothing scanned", detail: "Paste or type a ticket code." });
      if (!navigator.onLine) return acceptOffline(code);
      setPending((p) => p + 1);
      try {
        const form = new FormData();
        form.set("code", code);
        const o = await scanAction(null, form);
        show(o);
      } catch (error) {
        if (isNetworkError(error)) await acceptOffline(code);
        else show({ tone: "bad", title: "Not checked in", detail: "Something went wrong on our side. Try again." });
      } finally {
        setPending((p) => p - 1);
      }
    },
    [acceptOffline, show],
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
      setSynced((s) => s + results.filter((r) => r.result === "ok").length);
      const bad = results.filter((r) => r.result !== "ok").map((r) => ({ ...r, seatLabel: batch.find((q) => q.code === r.code)?.seatLabel ?? "" }));
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

  return (
    <div className="space-y-4">
      <CameraScanner onCode={(code) => void submit(code)} />
      <form
        className="space-y-3"
        onSubmit={(e) => {
          e.preventDefault();
          const code = input.current?.value ?? "";
          if (input.current) input.current.value = "";
          input.current?.focus();
          void submit(code);
        }}
      >
        <label className="block text-sm" htmlFor="ticket-code">
          Ticket code
        </label>
        <textarea
          ref={input}
          id="ticket-code"
          name="code"
          rows={3}
          autoFocus
          spellCheck={false}
          autoCapitalize="characters"
          autoComplete="off"
          placeholder="Scan the QR code, paste the code, or type the short code (7K3QD-M9XW2)"
          className="w-full rounded bg-black/40 px-3 py-2 font-mono text-xs"
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey) {
              e.preventDefault();
              e.currentTarget.form?.requestSubmit();
            }
          }}
        />
        <button disabled={pending > 0} className="button-primary px-5 py-2">
          {pending > 0 ? "Checking…" : "Check in"}
        </button>
      </form>
      {outcome && (
        <div key={outcome.n} role="status" data-testid="scan-result" data-tone={outcome.tone} className={`rounded-xl border p-5 break-words ${TONE[outcome.tone]}`}>
          <p className="text-2xl font-bold" data-testid="scan-title">
            {outcome.title}
          </p>
          <p className="mt-1 text-sm opacity-80">{outcome.detail}</p>
        </div>
      )}
      {(queued.length > 0 || synced > 0 || conflicts.length > 0) && (
        <section className="space-y-2 rounded border border-white/15 p-3 text-sm" data-testid="offline-queue">
          {queued.length > 0 && <p data-testid="offline-waiting">{queued.length === 1 ? "1 check-in" : `${queued.length} check-ins`} accepted offline, waiting to sync.</p>}
          {synced > 0 && <p data-testid="offline-synced">{synced === 1 ? "1 offline check-in" : `${synced} offline check-ins`} synced.</p>}
          {conflicts.map((c, i) => (
            <p key={`${c.code}-${i}`} data-testid="offline-conflict" className="rounded border border-red-400/60 bg-red-500/15 p-2 break-words text-red-100">
              Conflict: {c.seatLabel} — {c.outcome.title} ({c.outcome.detail})
            </p>
          ))}
        </section>
      )}
      {log.length > 0 && (
        <ol className="space-y-1 text-sm text-white/70" aria-label="Recent scans" data-testid="scan-log">
          {log.map((l) => (
            <li key={l.n} data-testid="scan-log-entry" data-tone={l.tone} className="break-words">
              {l.title}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
