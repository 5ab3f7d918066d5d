/**
 * Small helpers for route handlers: JSON errors people can read, and Cache-Control
 * values. Route handlers stay thin: parse, check the caller, call one lib function.
 */
import { NextResponse } from "next/server";
import { z } from "zod";

/** A JSON error response `{ error: message }` (plus `code`, a stable machine-readable reason, when given) with the given 4xx status. */
export function jsonError(status: number, message: string, headers?: HeadersInit, code?: string): NextResponse {
  return NextResponse.json(code ? { error: message, code } : { error: message }, { status, headers });
}

/** `public, s-maxage=…, stale-while-revalidate=…` so a CDN can absorb polling (seconds). */
export function publicCache(sMaxAge: number, staleWhileRevalidate = sMaxAge): string {
  return `public, max-age=0, s-maxage=${sMaxAge}, stale-while-revalidate=${staleWhileRevalidate}`;
}

/** An event id as it appears in URLs (`evt_` + lower-case base-32). */
export const eventIdSchema = z.string().regex(/^evt_[0-9a-z]{1,32}$/, "That is not an event id (they look like evt_…)");

/** An order id as it appears in URLs (`ord_` + lower-case base-32). */
export const orderIdSchema = z.string().regex(/^ord_[0-9a-z]{1,32}$/, "That is not an order id (they look like ord_…)");

/** Anything with a fan-readable message and an HTTP status (typed errors from lib/), maybe a stable `code`. */
type StatusError = Error & { status: number; retryAfterSeconds?: number; code?: unknown };

function hasStatus(error: unknown): error is StatusError {
  return error instanceof Error && typeof (error as { status?: unknown }).status === "number";
}

/**
 * Maps a typed lib/ error to a JSON 4xx `{ error, code? }` (429 with Retry-After for
 * throttling, 400 for zod validation); returns null for anything else, which the route
 * must rethrow.
 */
export function errorResponse(error: unknown): NextResponse | null {
  if (error instanceof z.ZodError) return jsonError(400, error.issues[0]?.message ?? "Invalid request");
  if (hasStatus(error) && error.status >= 400 && error.status < 600) {
    const headers = error.retryAfterSeconds ? { "Retry-After": String(error.retryAfterSeconds) } : undefined;
    return jsonError(error.status, error.message, headers, typeof error.code === "string" ? error.code : undefined);
  }
  return null;
}
