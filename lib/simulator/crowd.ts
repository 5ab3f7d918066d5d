/**
 * The messages between the on-sale simulator (scripts/onsale.ts, the shop's side: admitted
 * fans shopping, the monitor, the checks) and its crowd process (scripts/lib/onsale-crowd.ts:
 * a million fans from their arrival to their turn — joins, retries, waiting, /queue/me). The
 * crowd runs apart, at a lower CPU priority, because on one machine its flood would otherwise
 * sit in front of the admitted fans' requests in one event loop, and because a million
 * waiting fans need a heap of their own. Over Node's IPC channel (JSON).
 */
import type { EndpointStats, SimClient } from "@/lib/simulator/client";
import type { SaleCounters } from "@/lib/simulator/fans";
import type { FairnessReport } from "@/lib/simulator/report";

/** What the crowd needs to know to create its fans and reach the server. */
export interface CrowdSetup {
  fans: number;
  /** One more fan (index `fans`), who never queues: the outage probe's (lib/simulator/outage.ts). */
  probeFan?: boolean;
  runTag: string;
  baseUrls: string[];
  doorUrl?: string;
  connections: number;
  doorShare: number;
  doorConnections: number;
  /** A real caching proxy answers status reads (SimClient.realCdn). */
  realCdn?: boolean;
  edges: number;
  pollSeconds: number;
}

/** The sale, once the show exists. Times are epoch ms. */
export interface CrowdStart {
  eventId: string;
  onSaleAt: number;
  preFrom: number;
  preShare: number;
  firstShare: number;
  burstSeconds: number;
  retries: number;
}

/** Parent → crowd. */
export type CrowdCommand =
  | { type: "create"; setup: CrowdSetup }
  | { type: "start"; start: CrowdStart }
  | { type: "dependency-down"; down: boolean }
  /** The show sold out: waiting fans stop waiting (their page says so); fans still clicking get their first answer. */
  | { type: "sold-out" }
  | { type: "stop" };

/** The crowd's requests, errors and counters so far. */
export interface CrowdProgress {
  counters: SaleCounters;
  requests: number;
  cdnHits: number;
  errors: number;
  /** Fans waiting on the poll wheel for their turn. */
  waiting: number;
  /** Fans who clicked but whose join has not been sent yet (the door's backlog is full). */
  arrivedNotLaunched: number;
  /** Fans whose first join was sent but not answered yet. */
  joining: number;
  /** Fans whose arrival time has not come yet. */
  yetToArrive: number;
  /** The crowd has seen "sold-out". */
  soldOut: boolean;
}

/** Crowd → parent. */
export type CrowdEvent =
  | { type: "log"; line: string }
  /** The fans exist; `probeSession`: the probe fan's session cookies (by name), when asked for. */
  | { type: "created"; firstFanId: string; probeSession?: Record<string, string> }
  | { type: "progress"; progress: CrowdProgress }
  /** Fan `i`'s turn: its admission token, the cookies the app set, and its session cookies, for the shop to carry on. */
  | { type: "admitted"; i: number; token: string | null; jar: [string, string][]; session: Record<string, string> }
  | { type: "result"; progress: CrowdProgress; stats: [string, EndpointStats][]; errors: [string, number][]; fairness: FairnessReport }
  | { type: "failed"; error: string };

/** Adds the crowd's endpoint statistics and errors to the shop side's client, so the report sees every request once. */
export function mergeCrowdStats(client: SimClient, stats: [string, EndpointStats][], errors: [string, number][], progress: CrowdProgress): void {
  for (const [name, s] of stats) {
    const mine = client.stats.get(name);
    if (!mine) {
      client.stats.set(name, s);
      continue;
    }
    mine.count += s.count;
    for (const key of ["latencies", "server", "queued"] as const) for (const v of s[key]) mine[key].push(v);
    for (const [part, xs] of Object.entries(s.serverParts)) for (const v of xs) (mine.serverParts[part] ??= []).push(v);
    mine.firstAt = Math.min(mine.firstAt, s.firstAt);
    mine.lastAt = Math.max(mine.lastAt, s.lastAt);
  }
  for (const [kind, n] of errors) client.errors.set(kind, (client.errors.get(kind) ?? 0) + n);
  client.requests += progress.requests;
  client.cdnHits += progress.cdnHits;
}

/** The two sides' counters added up. */
export function sumCounters(a: SaleCounters, b: SaleCounters | undefined): SaleCounters {
  if (!b) return { ...a };
  const out = { ...a };
  for (const k of Object.keys(out) as (keyof SaleCounters)[]) out[k] = a[k] + b[k];
  return out;
}
