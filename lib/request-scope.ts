/**
 * What the HTTP server needs to know about a request that died inside Next (docs/design.md
 * "Edges"). Route handlers and server actions answer their own errors through the wrappers
 * (lib/http/route.ts, lib/http/action.ts); a page render or Next's own decoding of an action
 * does not, and Next answers those with a bare 500. The server (scripts/serve.ts) runs each
 * request inside a {@link RequestScope}; Next's `onRequestError` hook (instrumentation.ts)
 * records the error there through {@link noteRequestFailure}; and when the response's status
 * is written, the server turns a 500 whose cause is known into the right one — 503 with
 * `Retry-After` for a dependency outage, 400 for an action payload that does not decode.
 *
 * The store lives on `globalThis` under a registered symbol because the server (loaded by
 * tsx) and Next's bundles each get their own copy of this module.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { AppError, asAppError } from "@/lib/errors";

/** One request's record. */
export interface RequestScope {
  /** When the server received the request (`performance.now()` ms), set by the server that made the scope. */
  startedAt?: number;
  /** The first failure Next reported for this request, as an AppError when it is one we understand. */
  failure?: AppError;
  /**
   * Time spent waiting on each dependency during the request (ms, the sum of its calls'
   * durations: concurrent calls overlap), for the `Server-Timing` header the server writes.
   */
  timings?: { redis: number; postgres: number } & Partial<Record<TimedPart, number>>;
}

const KEY = Symbol.for("stararena.requestScope");
type Holder = { [KEY]?: AsyncLocalStorage<RequestScope> };

/** The process-wide store (created on first use). */
export function requestScopes(): AsyncLocalStorage<RequestScope> {
  const g = globalThis as Holder;
  g[KEY] ??= new AsyncLocalStorage<RequestScope>();
  return g[KEY];
}

/** What Next says about where an error happened (the `context` of `onRequestError`). */
export interface ErrorContext {
  routeType?: string;
}

/**
 * Records `error` on the current request's scope, when there is one and nothing was recorded yet.
 * - anything lib/errors.ts `asAppError` understands (an AppError, a dependency outage) → that error;
 * - an error while Next decodes a server action's arguments (`routeType` "action": our action
 *   wrapper catches everything inside the action itself, so what reaches here is the payload)
 *   → 400 `invalid_action_payload`;
 * - anything else stays a 500 (a bug), unrecorded.
 */
export function noteRequestFailure(error: unknown, context: ErrorContext = {}): void {
  const scope = requestScopes().getStore();
  if (!scope || scope.failure) return;
  const known = asAppError(error);
  if (known) scope.failure = known;
  else if (context.routeType === "action") {
    scope.failure = new AppError("bad_request", "invalid_action_payload", "This page sent something we could not read. Reload it and try again.");
  }
}

/**
 * Adds `ms` spent on `part` to the current request's timings (lib/redis-tcp.ts and lib/db.ts
 * call it for every command and query, lib/metrics/holds.ts for the hold path); nothing outside a request.
 */
export function noteTiming(part: TimedPart, ms: number): void {
  const scope = requestScopes().getStore();
  if (!scope) return;
  scope.timings ??= { redis: 0, postgres: 0 };
  scope.timings[part] = (scope.timings[part] ?? 0) + ms;
}

/** When the current request reached the server (`performance.now()` ms), or undefined outside a request (or a server that does not say). */
export function requestStartedAt(): number | undefined {
  return requestScopes().getStore()?.startedAt;
}

/** What a request's time is broken down into: its dependencies, and the hold path as the dashboard measures it (lib/metrics/holds.ts). */
export type TimedPart = "redis" | "postgres" | "hold";
