"use client";
/**
 * A live countdown to an instant: "Your turn ends in 7:42", ticking every half second, with a
 * visible warning once less than `warnBelowMs` is left (amber text plus the warning line,
 * announced politely to screen readers once). Used for the admission window, the hold, and the
 * PSP's checkout expiry — every deadline a fan races (issue 16: one rule for time).
 */
import { useEffect, useState } from "react";

/** Milliseconds left until `until` (epoch ms or ISO string), never negative, updated every 500 ms. */
export function useTimeLeft(until: number | string): number {
  const end = typeof until === "number" ? until : new Date(until).getTime();
  const [left, setLeft] = useState(() => Math.max(0, end - Date.now()));
  useEffect(() => {
    const tick = () => setLeft(Math.max(0, end - Date.now()));
    tick();
    const id = setInterval(tick, 500);
    return () => clearInterval(id);
  }, [end]);
  return left;
}

/** "7:42" for 462,000 ms; "1:02:03" from an hour up. */
export function formatClock(ms: number): string {
  const total = Math.ceil(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/**
 * @param until the deadline (epoch ms or ISO string)
 * @param label what ends, shown before the clock ("Your turn ends in")
 * @param warnBelowMs from how much time left the warning shows
 * @param warning the warning's words
 */
export function Countdown(props: { until: number | string; label: string; warnBelowMs: number; warning: string; testId?: string; className?: string }) {
  const left = useTimeLeft(props.until);
  const warn = left > 0 && left <= props.warnBelowMs;
  return (
    <div className={props.className} data-testid={props.testId} data-warning={warn ? "true" : "false"}>
      <p>
        {props.label}{" "}
        <span role="timer" className={`font-mono text-2xl tabular-nums ${warn ? "text-amber-300" : ""}`} data-testid={props.testId ? `${props.testId}-clock` : undefined}>
          {formatClock(left)}
        </span>
      </p>
      {warn && (
        <p role="status" className="font-semibold text-amber-300">
          {props.warning}
        </p>
      )}
    </div>
  );
}
