/**
 * Dependency outages in the on-sale simulation (`npm run onsale -- --outage`; docs/design.md
 * "Edges"): while Redis or Postgres is down, a probe fan asks the app's main endpoints twice a
 * second and every answer is judged against the rule "a dead dependency gets a fast 503 with a
 * body": a 2xx–4xx (the endpoint did not need the dead dependency) or a 503 whose body says
 * what is wrong, within {@link OUTAGE_ANSWER_MS}. After the dependency is back, every endpoint
 * must answer without a 503 again within {@link RECOVERY_MS} — with no restart of anything.
 * The verdict can fail: an outage that never showed (no 503 from /api/health while the
 * dependency was down) counts as a failure too, so a harness that forgot to break anything
 * cannot pass.
 */
import type { CookieJar, SimClient, SimResponse } from "@/lib/simulator/client";

/** Longest acceptable answer during an outage (ms). */
export const OUTAGE_ANSWER_MS = 2_000;
/** Longest acceptable time from the dependency's return to every endpoint answering normally (ms). */
export const RECOVERY_MS = 20_000;

/** One endpoint the probe asks. */
export interface ProbeTarget {
  name: string;
  method: "GET" | "POST";
  path: string;
  body?: unknown;
}

/** One probe's answer. */
export interface ProbeAnswer {
  target: string;
  status: number;
  ms: number;
  /** What was wrong with it, or null when it obeys the rule. */
  wrong: string | null;
}

/** What one outage showed. */
export interface OutageReport {
  dependency: "redis" | "postgres";
  downForMs: number;
  probes: number;
  /** Answers breaking the rule (a 5xx other than 503, no body, too slow, no answer). */
  wrong: ProbeAnswer[];
  /** 503s seen, by endpoint. */
  unavailable: Record<string, number>;
  /** Slowest answer during the outage (ms). */
  maxMs: number;
  /** ms from the dependency's return until every endpoint answered without a 503; null when it never did within RECOVERY_MS. */
  recoveredInMs: number | null;
  /** Whether /api/health reported the outage at least once (else the outage did not happen). */
  observed: boolean;
}

/** The probe's endpoints for one show (the probe fan is signed in but never queues). */
export function probeTargets(eventId: string, slug: string): ProbeTarget[] {
  return [
    { name: "health", method: "GET", path: "/api/health" },
    { name: "queue status", method: "GET", path: `/api/events/${eventId}/queue` },
    { name: "queue me", method: "GET", path: `/api/events/${eventId}/queue/me` },
    { name: "availability", method: "GET", path: `/api/events/${eventId}/availability` },
    { name: "hold", method: "POST", path: `/api/events/${eventId}/holds`, body: { kind: "best", priceLevelId: "pl_probe", quantity: 1 } },
    { name: "order", method: "GET", path: "/api/orders/ord_0000000000000000" },
    { name: "event page", method: "GET", path: `/events/${slug}` },
  ];
}

function judge(r: SimResponse, ms: number): string | null {
  if (r.status === 0) return "no answer";
  if (ms > OUTAGE_ANSWER_MS) return `took ${Math.round(ms)} ms`;
  if (r.status >= 500 && r.status !== 503) return `answered ${r.status}`;
  if (r.status === 503) {
    const body = r.body as { error?: unknown } | string | null;
    const says = typeof body === "string" ? body.length > 20 : typeof body?.error === "string" && body.error.length > 10;
    if (!says) return "503 without a message";
    if (!r.headers["retry-after"]) return "503 without Retry-After";
  }
  return null;
}

async function round(client: SimClient, targets: ProbeTarget[], jar: CookieJar): Promise<ProbeAnswer[]> {
  return Promise.all(
    targets.map(async (t) => {
      const started = performance.now();
      const r = await client.request(t.path, { method: t.method, body: t.body, jar: new Map(jar), endpoint: `probe ${t.name}`, lane: "probe", timeoutMs: 10_000, headers: { "x-forwarded-for": "192.0.2.251" } });
      const ms = performance.now() - started;
      return { target: t.name, status: r.status, ms, wrong: judge(r, ms) };
    }),
  );
}

/**
 * Breaks `dependency` with `down()`, probes every 500 ms for `downForMs`, restores it with
 * `up()`, then probes until every endpoint answers without a 503 (or RECOVERY_MS passes).
 */
export async function runOutage(
  client: SimClient,
  opts: { dependency: "redis" | "postgres"; targets: ProbeTarget[]; jar: CookieJar; downForMs: number; down: () => Promise<void>; up: () => Promise<void>; log: (line: string) => void },
): Promise<OutageReport> {
  const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
  const answers: ProbeAnswer[] = [];
  opts.log(`OUTAGE: ${opts.dependency} goes down for ${Math.round(opts.downForMs / 1000)} s`);
  client.setDependencyDown(true);
  let recoveredInMs: number | null = null;
  try {
    await opts.down();
    const until = Date.now() + opts.downForMs;
    while (Date.now() < until) {
      const t0 = Date.now();
      answers.push(...(await round(client, opts.targets, opts.jar)));
      await sleep(Math.max(0, 500 - (Date.now() - t0)));
    }
    await opts.up();
    const back = Date.now();
    opts.log(`OUTAGE: ${opts.dependency} is back; waiting for every endpoint to answer normally`);
    while (Date.now() - back < RECOVERY_MS) {
      const r = await round(client, opts.targets, opts.jar);
      if (r.every((a) => a.status !== 503 && a.status !== 0 && a.status < 500)) {
        recoveredInMs = Date.now() - back;
        break;
      }
      await sleep(250);
    }
  } finally {
    client.setDependencyDown(false);
  }
  const unavailable: Record<string, number> = {};
  for (const a of answers) if (a.status === 503) unavailable[a.target] = (unavailable[a.target] ?? 0) + 1;
  const report: OutageReport = {
    dependency: opts.dependency,
    downForMs: opts.downForMs,
    probes: answers.length,
    wrong: answers.filter((a) => a.wrong !== null),
    unavailable,
    maxMs: Math.round(Math.max(0, ...answers.map((a) => a.ms))),
    recoveredInMs,
    observed: (unavailable.health ?? 0) > 0,
  };
  opts.log(
    `OUTAGE: ${opts.dependency}: ${report.probes} probes, 503s ${JSON.stringify(unavailable)}, slowest ${report.maxMs} ms, wrong ${report.wrong.length}` +
      `${report.wrong.length ? ` (${report.wrong.slice(0, 5).map((w) => `${w.target}: ${w.wrong}`).join("; ")})` : ""}, recovered ${recoveredInMs === null ? "NOT within 20 s" : `in ${(recoveredInMs / 1000).toFixed(1)} s`}`,
  );
  return report;
}

/** The verdict's counts for the outages of a run (each must be 0). */
export function outageViolations(reports: OutageReport[]): Record<string, number> {
  return {
    outageWrongAnswers: reports.reduce((n, r) => n + r.wrong.length, 0),
    outageNotObserved: reports.filter((r) => !r.observed).length,
    outageNotRecovered: reports.filter((r) => r.recoveredInMs === null).length,
  };
}
