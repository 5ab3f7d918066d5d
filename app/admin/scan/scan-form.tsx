"use client";
/** The door's scan box: paste or type a code, press Check in; the result shows big, the field clears for the next one. */
import { useActionState, useEffect, useRef } from "react";
import { scanAction } from "./actions";

const TONE = {
  ok: "border-emerald-400/60 bg-emerald-500/15 text-emerald-100",
  warn: "border-amber-300/60 bg-amber-300/10 text-amber-100",
  bad: "border-red-400/60 bg-red-500/15 text-red-100",
} as const;

/** Scan form plus the last outcome. */
export function ScanForm() {
  const [outcome, action, pending] = useActionState(scanAction, null);
  const input = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    if (!outcome) return;
    if (input.current) input.current.value = "";
    input.current?.focus();
  }, [outcome]);
  return (
    <div className="space-y-4">
      <form action={action} className="space-y-3">
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
          placeholder="Scan the QR code or paste the code"
          className="w-full rounded bg-black/40 px-3 py-2 font-mono text-xs"
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey) {
              e.preventDefault();
              e.currentTarget.form?.requestSubmit();
            }
          }}
        />
        <button disabled={pending} className="rounded bg-indigo-500 px-5 py-2 font-semibold hover:bg-indigo-400 disabled:opacity-50">
          {pending ? "Checking…" : "Check in"}
        </button>
      </form>
      {outcome && (
        <div key={outcome.n} role="status" data-testid="scan-result" data-tone={outcome.tone} className={`rounded-xl border p-5 ${TONE[outcome.tone]}`}>
          <p className="text-2xl font-bold" data-testid="scan-title">
            {outcome.title}
          </p>
          <p className="mt-1 text-sm opacity-80">{outcome.detail}</p>
        </div>
      )}
    </div>
  );
}
