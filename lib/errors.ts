/**
 * StarArena's one error model (docs/design.md "Errors"). Every refusal a person may see is
 * an {@link AppError}: a `kind` that fixes the HTTP status, a stable snake_case `code` for
 * programs (`seat_taken`, `order_pending`, `admission_slot_ended`…), a message written for
 * the person, and optionally the form `field` at fault, `retryAfter` (seconds) and
 * `details` for clients. Domain errors are AppErrors (subclasses only where they carry
 * typed data, e.g. {@link import("@/lib/inventory/errors").SeatsTakenError}'s seats).
 *
 * Two functions turn any thrown value into an answer — {@link toErrorResponse} for route
 * handlers and {@link toActionError} for server actions — and they are called only by
 * the shared wrappers (lib/http/route.ts, lib/http/action.ts). Anything that is not an
 * AppError (or a zod validation error) is a bug or a dead dependency: it is logged with
 * a request id and answered 500 with that id, never with an empty body.
 *
 * Modelled on vercel/ai-chatbot's lib/errors.ts (one class, status from the type, one
 * mapping to responses).
 */
import { z } from "zod";
import { noteDependencyFailure } from "@/lib/dependency-state";
import { DEFAULT_LOCALE, type Locale } from "@/lib/i18n/config";
import { translateErrorCode } from "@/lib/i18n/translate";

/** What kind of refusal, which fixes the HTTP status. */
export type ErrorKind =
  | "bad_request"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "method_not_allowed"
  | "conflict"
  | "payload_too_large"
  | "unsupported_media_type"
  | "unprocessable"
  | "rate_limited"
  | "internal"
  | "bad_gateway"
  | "unavailable";

/** The HTTP status of each kind. */
const STATUS_OF: Readonly<Record<ErrorKind, number>> = Object.freeze({
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  rate_limited: 429,
  internal: 500,
  bad_gateway: 502,
  unavailable: 503,
});

/** Options of an {@link AppError}. */
export interface AppErrorOptions {
  /** The form field at fault, as a path (`"slug"`, `"priceLevels.1.rows"`). */
  field?: string;
  /** Seconds a client should wait before trying again (sent as `Retry-After`). */
  retryAfter?: number;
  /** Extra JSON-safe facts for clients (e.g. `{ orderId }`), merged into the response body. */
  details?: Record<string, unknown>;
  /** What an operator needs and a person does not (a PSP's own error text): logged with 5xx answers, never sent. */
  detail?: string;
  /** The facts the message is made of (`{ limit: 4 }`), the ICU arguments of its translations (lib/i18n/messages, `errors.<code>`). */
  params?: Record<string, string | number>;
  cause?: unknown;
}

/** Marks AppErrors across module copies (see {@link AppError}'s `Symbol.hasInstance`). */
const APP_ERROR = Symbol.for("stararena.AppError");

/**
 * A refusal with a kind (→ status), a stable code and a message for a person.
 *
 * `x instanceof AppError` is true for an AppError made by any copy of this module: Next
 * bundles lib/ once per entry (routes, pages, instrumentation) while process-wide clients
 * (the Redis requester, cached on `globalThis`) are created by whichever copy came first, so
 * their errors' prototypes may belong to another copy. Subclasses keep ordinary `instanceof`.
 */
export class AppError extends Error {
  static [Symbol.hasInstance](value: unknown): boolean {
    if (this !== AppError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[APP_ERROR] === true;
  }

  readonly [APP_ERROR] = true;
  readonly field?: string;
  readonly retryAfter?: number;
  readonly details?: Record<string, unknown>;
  readonly detail?: string;
  readonly params?: Record<string, string | number>;

  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    message: string,
    opts: AppErrorOptions = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.field = opts.field;
    this.retryAfter = opts.retryAfter;
    this.details = opts.details;
    this.detail = opts.detail;
    this.params = opts.params;
  }

  /** The HTTP status of this error's kind. */
  get status(): number {
    return STATUS_OF[this.kind];
  }
}

/** The answer's body for an error: `{ error, code, field?, retryAfter?, requestId?, ...details }`. */
export interface ErrorBody {
  error: string;
  code: string;
  field?: string;
  /** Seconds to wait before trying again (also the `Retry-After` header). */
  retryAfter?: number;
  requestId?: string;
  [detail: string]: unknown;
}

/** What a server action returns when it refused: the same fields as a JSON error. */
export type ActionFailure = { ok: false } & ErrorBody;

const INTERNAL_MESSAGE = "Something went wrong on our side. Please try again in a moment.";

/** Seconds a client is asked to wait after a dependency outage (`Retry-After`). */
export const OUTAGE_RETRY_AFTER_SECONDS = 3;

/** Connection-level failures of postgres.js (its own codes, and lib/db.ts's QUERY_TIMEOUT) and of Node's sockets. */
const CONNECTION_CODES = new Set([
  "CONNECT_TIMEOUT",
  "QUERY_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

/**
 * SQLSTATEs that mean "the database cannot serve right now", not "this query is wrong":
 * class 08 (connection exception), 57P01–57P03 (shutting down, crashed, not yet accepting
 * connections), 53300 (too many connections), 57014 (cancelled by `statement_timeout`).
 * Source: PostgreSQL 15 manual, Appendix A "PostgreSQL Error Codes".
 */
function isOutageSqlState(code: string): boolean {
  return code.startsWith("08") || code === "57P01" || code === "57P02" || code === "57P03" || code === "53300" || code === "57014";
}

/**
 * Which dependency a thrown value says is down, walking its `cause` chain (drizzle wraps
 * postgres.js errors in a `DrizzleQueryError`): "redis" for lib/redis-tcp.ts's typed
 * outage, "postgres" for a connection failure or an outage SQLSTATE, else null (a bug, a
 * constraint, a refusal — not an outage). Network failures outside any wrapper are
 * counted as the database's: Redis and PSP calls report their own.
 */
export function dependencyOf(error: unknown): "postgres" | "redis" | null {
  for (const e of causeChain(error)) {
    if (e instanceof AppError) return e.code === "redis_unavailable" ? "redis" : e.code === "postgres_unavailable" ? "postgres" : null;
    const code = typeof e.code === "string" ? e.code : "";
    if (CONNECTION_CODES.has(code)) return "postgres";
    if (e.name === "PostgresError" && isOutageSqlState(code)) return "postgres";
  }
  return null;
}

/** `error` and its `cause`s, outermost first, at most 8 deep (drizzle and our wrappers nest them). */
function* causeChain(error: unknown): Generator<{ code?: unknown; cause?: unknown; name?: unknown; knownTrouble?: unknown; neverStarted?: unknown }> {
  let e = error as { cause?: unknown } | null | undefined;
  for (let depth = 0; e && typeof e === "object" && depth < 8; depth++) {
    yield e;
    e = e.cause as typeof e;
  }
}

/**
 * Whether a failed Postgres transaction certainly did not commit: Postgres itself answered with
 * an error (a postgres.js `PostgresError`), so it rolled the transaction back; or nothing reached
 * it (no connection could be made: ECONNREFUSED, CONNECT_TIMEOUT…; or lib/db.ts gave up waiting
 * for a connection, `neverStarted`). Anything else leaves the outcome unknown — our deadline in
 * the middle of the work, a connection reset, a pool ended while the COMMIT was on its way:
 * Postgres may have committed what the client saw fail, so callers look before undoing what
 * depended on the write (lib/inventory/hold.ts `releaseUnlessWritten`).
 */
export function certainlyRolledBack(error: unknown): boolean {
  for (const e of causeChain(error)) {
    if (e.name === "PostgresError" || e.neverStarted === true) return true;
    if (typeof e.code === "string" && NEVER_CONNECTED_CODES.has(e.code)) return true;
  }
  return false;
}

/** Failures to open a connection: the request never reached Postgres. */
const NEVER_CONNECTED_CODES = new Set(["ECONNREFUSED", "CONNECT_TIMEOUT", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);

/** True when `error` (or a cause of it) is a query timeout under the troubled deadline (lib/db.ts `timedOut`). */
function knownTrouble(error: unknown): boolean {
  for (const e of causeChain(error)) if (e.knownTrouble === true) return true;
  return false;
}

/**
 * The answer to a Postgres outage: 503 with `Retry-After`, in words a person understands.
 * @param cause what failed (its message becomes the error's detail).
 * @param opts.knownTrouble true when the failure follows from trouble already known (the server's
 *   own outage deadline, scripts/serve.ts): the answer is the same, but it does not renew the
 *   trouble (lib/dependency-state.ts), so slow answers on saturated cores cannot keep a healthy
 *   Postgres called down.
 */
export function postgresUnavailable(cause: unknown, opts: { knownTrouble?: boolean } = {}): AppError {
  // A timeout under the short deadline of a Postgres already known to be in trouble is not news (lib/db.ts).
  if (!opts.knownTrouble && !knownTrouble(cause)) noteDependencyFailure("postgres");
  return new AppError("unavailable", "postgres_unavailable", "We're having trouble reaching our database right now. Nothing was lost: please try again in a few seconds.", {
    retryAfter: OUTAGE_RETRY_AFTER_SECONDS,
    detail: cause instanceof Error ? cause.message : String(cause),
    cause,
  });
}

/** A throttled request (429 `rate_limited`): how long to wait, in whole seconds (≥ 1), as `retryAfter`. */
export class RateLimitedError extends AppError {
  constructor(retryAfterSeconds: number) {
    super("rate_limited", "rate_limited", `Too many requests. Please wait ${retryAfterSeconds} second${retryAfterSeconds === 1 ? "" : "s"} and try again.`, { retryAfter: retryAfterSeconds, params: { retryAfter: retryAfterSeconds } });
  }
}

/**
 * Redis is down, unreachable or too slow: 503 with `Retry-After` (docs/design.md "Edges").
 * The TCP client (lib/redis-tcp.ts) raises it instead of an error reply, the door
 * (lib/door/handler.ts) for a REST call that failed at the network, so callers and the
 * wrappers see an outage, not a bug. Raising it marks Redis troubled (lib/dependency-state.ts)
 * unless `opts.knownTrouble` says the failure follows from trouble already known (the server's
 * own outage deadline, scripts/serve.ts), which is not news and must not renew it.
 */
export class RedisUnavailableError extends AppError {
  constructor(detail: string, opts: { knownTrouble?: boolean } = {}) {
    if (!opts.knownTrouble) noteDependencyFailure("redis");
    super("unavailable", "redis_unavailable", "We're having trouble on our side right now (our queue and seat service is not answering). Your place and your seats are kept: please try again in a few seconds.", {
      retryAfter: OUTAGE_RETRY_AFTER_SECONDS,
      detail: `Redis: ${detail}`,
    });
  }
}

/**
 * Any thrown value as an AppError: an AppError as it is; zod validation → 400
 * `invalid_input`; a Postgres outage ({@link dependencyOf}) → 503 `postgres_unavailable`
 * with `Retry-After`; the rest → null (unknown: a bug).
 */
export function asAppError(error: unknown): AppError | null {
  if (error instanceof AppError) return error;
  if (error instanceof z.ZodError) {
    const issue = error.issues[0];
    return new AppError("bad_request", "invalid_input", issue?.message ?? "Invalid request", { field: issue?.path.length ? issue.path.join(".") : undefined });
  }
  const dependency = dependencyOf(error);
  if (dependency === "postgres") return postgresUnavailable(error);
  // A Redis outage arrives as lib/redis-tcp.ts's AppError, possibly wrapped by a caller.
  if (dependency === "redis") return findAppError(error);
  return null;
}

function findAppError(error: unknown): AppError | null {
  let e = error as { cause?: unknown } | null | undefined;
  for (let depth = 0; e && typeof e === "object" && depth < 8; depth++, e = e.cause as typeof e) if (e instanceof AppError) return e;
  return null;
}

/**
 * The body and status for any thrown value, its message in `locale` (English: the AppError's
 * own words; others: the catalogue's `errors.<code>` with the error's params, else English).
 * Unknown errors are logged with `requestId` (console.error: message and stack) and answered
 * 500 `internal` with that id.
 */
function describeError(error: unknown, requestId: string, locale: Locale): { status: number; body: ErrorBody; retryAfter?: number } {
  const known = asAppError(error);
  if (!known) {
    console.error(`[${requestId}] unexpected error`, error);
    return { status: 500, body: { error: translateErrorCode(locale, "internal") ?? INTERNAL_MESSAGE, code: "internal", requestId } };
  }
  const message = translateErrorCode(locale, known.code, known.params) ?? known.message;
  const body: ErrorBody = { ...known.details, error: message, code: known.code };
  if (known.field) body.field = known.field;
  // Also in the body, for server actions (they have no headers) and clients that ignore them.
  if (known.retryAfter !== undefined) body.retryAfter = Math.max(1, Math.ceil(known.retryAfter));
  if (known.status >= 500) {
    body.requestId = requestId;
    console.error(`[${requestId}] ${known.code}: ${known.detail ?? known.message}`);
  }
  return { status: known.status, body, retryAfter: known.retryAfter };
}

/**
 * A JSON error response for any thrown value (`Retry-After` when the error has one, never cached),
 * its message in `locale` (lib/i18n/config.ts `localeOfRequest`; English when not given).
 */
export function toErrorResponse(error: unknown, requestId: string, locale: Locale = DEFAULT_LOCALE): Response {
  const { status, body, retryAfter } = describeError(error, requestId, locale);
  const headers: Record<string, string> = { "Cache-Control": "no-store", "X-Request-Id": requestId, "Content-Language": locale };
  if (retryAfter !== undefined) headers["Retry-After"] = String(Math.max(1, Math.ceil(retryAfter)));
  return Response.json(body, { status, headers });
}

/** The JSON body (`{ error, code, … }`) the answer to any thrown value carries, for a failure reported inside a successful answer. */
export function toErrorBody(error: unknown, requestId: string, locale: Locale = DEFAULT_LOCALE): ErrorBody {
  return describeError(error, requestId, locale).body;
}

/** A server action's failure for any thrown value, its message in `locale` (English when not given). */
export function toActionError(error: unknown, requestId: string, locale: Locale = DEFAULT_LOCALE): ActionFailure {
  return { ok: false, ...toErrorBody(error, requestId, locale) };
}
