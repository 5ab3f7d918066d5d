/**
 * The local worker (docs/design.md, "Durable jobs"): it runs the same repairs as the Inngest
 * functions on a short interval — hold expiry, payment queries, ticket issuance, late
 * payments, the Redis inventory of shows about to go on sale — and reconciliation every
 * minute, so everything converges with no Inngest
 * server (or an unreachable one). Where Inngest is configured it also relays the outbox.
 * Beside the passes, on its own {@link PACING_INTERVAL_MS} beat (a slow pass must not delay
 * it), it paces admission to what the shop carries (lib/waiting-room/pacing.ts), when pacing is on.
 * Each pass also sends the queued e-mail over SMTP (lib/mail/deliver.ts) when SMTP_URL is set.
 * Each pass calls idempotent lib/ functions, so overlapping with webhooks, browser
 * returns or a second worker is harmless; still, only the holder of the `local-worker`
 * lease (lib/jobs/lease.ts) runs passes, and a second worker says it is standing by.
 */
import type { Db } from "@/lib/db";
import { env } from "@/lib/env";
import { prepareInventories } from "@/lib/inventory/rebuild";
import { keepLease } from "@/lib/jobs/lease";
import { deliverEmails, type SendMail } from "@/lib/mail/deliver";
import { smtpSender } from "@/lib/mail/transport";
import { markOutboxHandledLocally, relayOutbox, type RelayedEvent } from "@/lib/outbox/relay";
import { reconcile } from "@/lib/reconciliation/reconcile";
import { sweep } from "@/lib/reconciliation/sweep";
import { PACING_INTERVAL_MS, paceOnSales } from "@/lib/waiting-room/pacing";

/** True when an Inngest server (dev or cloud) is configured. */
export function inngestConfigured(): boolean {
  const e = env();
  return Boolean(e.INNGEST_DEV || e.INNGEST_BASE_URL || e.INNGEST_EVENT_KEY);
}

/** Options of {@link startLocalWorker}; intervals in ms. */
export interface WorkerOptions {
  intervalMs?: number;
  /** The admission pacer's hold p99 target (ms; 0 = off). Default: env ADMISSION_PACING_HOLD_P99_MS. */
  pacingTargetMs?: number;
  reconcileEveryMs?: number;
  /**
   * Sends relayed events to Inngest (the entry point passes `inngest.send`, inngest/client.ts).
   * Without it the outbox is marked handled locally, as when no Inngest server is configured.
   */
  send?: (events: RelayedEvent[]) => Promise<unknown>;
  /** Sends one e-mail; default: SMTP from SMTP_URL (lib/mail/transport.ts), none when it is unset (messages wait). */
  sendMail?: SendMail | null;
  log?: (line: string) => void;
}

/** A routine reconciliation slower than this (ms) is reported with its parts' times. */
const SLOW_RECONCILE_MS = 5_000;

/** How long one pass may run before the next starts beside it (ms). */
export const PASS_DEADLINE_MS = 30_000;

/**
 * Starts the loop. @returns a function that stops it (resolves when the current pass ends).
 */
export function startLocalWorker(db: Db, opts: WorkerOptions = {}): () => Promise<void> {
  const intervalMs = opts.intervalMs ?? 2_000;
  const reconcileEveryMs = opts.reconcileEveryMs ?? 60_000;
  const log = opts.log ?? ((line: string) => console.log(`[worker] ${line}`));
  // Trouble goes to stderr, which every supervisor of the worker shows (the simulator shows only that).
  const warn = opts.log ?? ((line: string) => console.error(`[worker] ${line}`));
  const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
  const send = opts.send;
  const withInngest = inngestConfigured() && send !== undefined;
  let stopped = false;
  let lastReconcile = 0;
  let lastRelayWarning = 0;
  let lastMailWarning = 0;
  const sendMail = opts.sendMail === undefined ? smtpSender() : opts.sendMail;
  let current: Promise<void> = Promise.resolve();

  async function pass() {
    if (withInngest) {
      const r = await relayOutbox(db, send!);
      // Failures repeat while Inngest is down: say so at most once a minute.
      if (r.sent || (r.failed && Date.now() - lastRelayWarning >= 60_000)) {
        if (r.failed) lastRelayWarning = Date.now();
        log(`outbox: ${r.sent} sent, ${r.failed} to retry${r.error ? ` (${r.error}; the sweeps keep things moving meanwhile)` : ""}`);
      }
    } else {
      await markOutboxHandledLocally(db);
    }
    // The sweeps run either way: without Inngest they are the jobs; with Inngest they are a
    // harmless (idempotent) safety net for when it is unreachable.
    const s = await sweep(db);
    // Shows about to go on sale get their Redis inventory now, not at their first hold.
    // (Redis or Postgres out: said, and the rest of the pass still runs; the next pass tries again.)
    await prepareInventories(db).then(
      (prepared) => prepared.length > 0 && log(`inventory built ahead of the on-sale: ${prepared.join(", ")}`),
      (error: unknown) => warn(`building inventories ahead of their on-sale failed (will retry): ${error instanceof Error ? error.message : String(error)}`),
    );
    const did = s.expired + s.paidAtExpiry + s.paymentsQueried + s.ticketed + s.latePayments + s.extraCapturesRefunded + s.mismatchesRefunded;
    if (s.errors.length > 0) warn(`sweep: ${JSON.stringify(s)}`);
    else if (did > 0) log(`sweep: ${JSON.stringify(s)}`);
    if (sendMail) {
      const m = await deliverEmails(db, sendMail, { from: env().MAIL_FROM });
      if (m.sent) log(`mail: ${m.sent} sent`);
      // A dead mail server repeats every pass: say so at most once a minute.
      if (m.failed && Date.now() - lastMailWarning >= 60_000) {
        lastMailWarning = Date.now();
        warn(`mail: ${m.failed} could not be sent, retried later (${m.errors[0]})`);
      }
    }
    if (Date.now() - lastReconcile >= reconcileEveryMs) {
      lastReconcile = Date.now();
      const r = await reconcile(db, { routine: true });
      const took = Object.values(r.ms).reduce((a, b) => a + b, 0);
      if (took >= SLOW_RECONCILE_MS) warn(`reconcile took ${(took / 1000).toFixed(1)} s (ms: ${JSON.stringify(r.ms)})`);
      const ledger = r.ledger.filter((l) => l.capturesApplied + l.capturesVoided + l.refundsRecorded + l.refundsResent + l.unknown > 0 || l.errors.length > 0);
      if (r.redisRebuilt.length || r.ticketsWithoutPayment.length || ledger.length) {
        log(`reconcile: ${JSON.stringify({ redisRebuilt: r.redisRebuilt, ticketsWithoutPayment: r.ticketsWithoutPayment, ledger })}`);
      }
    }
  }

  const lease = keepLease(db, "local-worker", { log });
  const loop = async () => {
    log(`${withInngest ? "relaying the outbox to Inngest and " : "no Inngest server configured: "}running the sweeps every ${intervalMs} ms`);
    if (!sendMail) log("no SMTP_URL: e-mail waits in the outbox until one is set");
    await lease.ready;
    let overdue: Promise<void> | null = null;
    while (!stopped) {
      if (lease.held()) current = pass().catch((error: unknown) => warn(`pass failed (will retry): ${error instanceof Error ? error.message : String(error)}`));
      // A pass that hangs (a query or a call that never answers) must not stop every later
      // sweep: past its deadline the next pass starts beside it — the sweeps are idempotent
      // guarded transitions — but only one overdue pass at a time, so hung passes cannot pile up.
      const finished = await Promise.race([current.then(() => true), sleep(PASS_DEADLINE_MS).then(() => false)]);
      if (!finished) {
        if (overdue) await overdue;
        warn(`a pass is still running after ${PASS_DEADLINE_MS / 1000} s: the next one starts beside it`);
        overdue = current.finally(() => {
          overdue = null;
        });
      }
      await sleep(intervalMs);
    }
  };
  // The pacer: one step per beat while holding the lease, a step never overlapping the last.
  const pacingTargetMs = opts.pacingTargetMs ?? env().ADMISSION_PACING_HOLD_P99_MS;
  let pacing: Promise<void> = Promise.resolve();
  let lastPacingWarning = 0;
  const pacer = setInterval(() => {
    if (stopped || !lease.held()) return;
    // Pacing off: one step clears any paced cap an earlier run left, and the beat stops.
    if (pacingTargetMs <= 0) clearInterval(pacer);
    pacing = pacing.then(async () => {
      try {
        for (const step of await paceOnSales(db, pacingTargetMs)) {
          if (step.to !== step.from) log(`pacing ${step.eventId}: rate ${step.from ?? "none"} → ${step.to}/min (hold p99 ${step.p99 ?? "–"} ms, p50 ${step.p50 ?? "–"} ms against an unloaded ${step.baseP50 ?? "–"} ms, of ${step.samples})`);
        }
      } catch (error) {
        if (Date.now() - lastPacingWarning >= 60_000) {
          lastPacingWarning = Date.now();
          warn(`pacing failed (will retry): ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    });
  }, PACING_INTERVAL_MS);
  void loop();
  return async () => {
    stopped = true;
    clearInterval(pacer);
    await Promise.all([current, pacing]);
    await lease.stop();
  };
}
