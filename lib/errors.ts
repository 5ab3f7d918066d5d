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

/** What kind of refusal, which fixes the HTTP status. */
export type ErrorKind =
  | "bad_request"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "payload_too_large"
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
  conflict: 409,
  payload_too_large: 413,
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
  cause?: unknown;
}

/** A refusal with a kind (→ status), a stable code and a message for a person. */
export class AppError extends Error {
  readonly field?: string;
  readonly retryAfter?: number;
  readonly details?: Record<string, unknown>;
  readonly detail?: string;

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
  }

  /** The HTTP status of this error's kind. */
  get status(): number {
    return STATUS_OF[this.kind];
  }
}

/** The answer's body for an error: `{ error, code, field?, requestId?, ...details }`. */
export interface ErrorBody {
  error: string;
  code: string;
  field?: string;
  requestId?: string;
  [detail: string]: unknown;
}

/** What a server action returns when it refused: the same fields as a JSON error. */
export type ActionFailure = { ok: false } & ErrorBody;

const INTERNAL_MESSAGE = "Something went wrong on our side. Please try again in a moment.";

/** Any thrown value as an AppError: zod validation → 400 `invalid_input`; the rest → null (unknown). */
export function asAppError(error: unknown): AppError | null {
  if (error instanceof AppError) return error;
  if (error instanceof z.ZodError) {
    const issue = error.issues[0];
    return new AppError("bad_request", "invalid_input", issue?.message ?? "Invalid request", { field: issue?.path.length ? issue.path.join(".") : undefined });
  }
  return null;
}

/**
 * The body and status for any thrown value. Unknown errors are logged with `requestId`
 * (console.error: message and stack) and answered 500 `internal` with that id.
 */
function describeError(error: unknown, requestId: string): { status: number; body: ErrorBody; retryAfter?: number } {
  const known = asAppError(error);
  if (!known) {
    console.error(`[${requestId}] unexpected error`, error);
    return { status: 500, body: { error: INTERNAL_MESSAGE, code: "internal", requestId } };
  }
  const body: ErrorBody = { ...known.details, error: known.message, code: known.code };
  if (known.field) body.field = known.field;
  if (known.status >= 500) {
    body.requestId = requestId;
    console.error(`[${requestId}] ${known.code}: ${known.detail ?? known.message}`);
  }
  return { status: known.status, body, retryAfter: known.retryAfter };
}

/** A JSON error response for any thrown value (`Retry-After` when the error has one, never cached). */
export function toErrorResponse(error: unknown, requestId: string): Response {
  const { status, body, retryAfter } = describeError(error, requestId);
  const headers: Record<string, string> = { "Cache-Control": "no-store", "X-Request-Id": requestId };
  if (retryAfter !== undefined) headers["Retry-After"] = String(Math.max(1, Math.ceil(retryAfter)));
  return Response.json(body, { status, headers });
}

/** A server action's failure for any thrown value. */
export function toActionError(error: unknown, requestId: string): ActionFailure {
  return { ok: false, ...describeError(error, requestId).body };
}
