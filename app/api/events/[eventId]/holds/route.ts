/**
 * POST: hold seats for the signed-in, admitted fan — the JSON twin of the event page's
 * hold action (app/events/[slug]/actions.ts), for API clients and the on-sale simulator.
 * Body: `{ kind: "seats", ordinals }` or `{ kind: "best", priceLevelId, quantity }`.
 * Admission token: `Authorization: Bearer <admissionToken>` or the cookie set by
 * /queue and /queue/me. `Idempotency-Key: <8–100 chars>` (optional): the same key returns
 * the same order (201 again, with `Idempotent-Replayed: true`). 201 `{ orderId, seats,
 * holdExpiresAt, totalMinor, currency }`; 4xx `{ error, code }` with the action's messages
 * (429 with Retry-After when throttled; 409 `order_pending` with `orderId` when the fan
 * already has a hold for this show; 403 `admission_slot_ended` once the fan's turn is over).
 */
import { cookies } from "next/headers";
import { NextResponse } from "next/server";
import { getSessionUser } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { errorResponse, eventIdSchema, jsonError } from "@/lib/http";
import { holdForFan } from "@/lib/orders/hold-for-fan";
import { holdRequestSchema, idempotencyKeySchema, PendingOrderError } from "@/lib/orders/place-order";
import { admissionCookieName } from "@/lib/waiting-room/token";

/** The admission token from `Authorization: Bearer …`, else from the event's admission cookie. */
async function admissionToken(req: Request, eventId: string): Promise<string | undefined> {
  const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.get("authorization") ?? "")?.[1];
  return bearer ?? (await cookies()).get(admissionCookieName(eventId))?.value;
}

/** Holds seats (explicit ordinals or best available N) and answers with the pending order. */
export async function POST(req: Request, ctx: RouteContext<"/api/events/[eventId]/holds">) {
  const user = await getSessionUser(req.headers);
  if (!user) return jsonError(401, "Sign in to hold seats.");
  const id = eventIdSchema.safeParse((await ctx.params).eventId);
  if (!id.success) return jsonError(404, "There is no such show.");
  let body: unknown;
  try {
    body = await req.json();
  } catch {
    return jsonError(400, 'Body must be JSON: {"kind":"best","priceLevelId":"pl_…","quantity":2} or {"kind":"seats","ordinals":[…]}');
  }
  const parsed = holdRequestSchema.safeParse(body);
  if (!parsed.success) return jsonError(400, parsed.error.issues[0]!.message);
  const rawKey = req.headers.get("idempotency-key");
  const key = rawKey === null ? undefined : idempotencyKeySchema.safeParse(rawKey);
  if (key && !key.success) return jsonError(400, key.error.issues[0]!.message, undefined, "bad_idempotency_key");
  const token = await admissionToken(req, id.data);
  try {
    const order = await holdForFan(db(), { eventId: id.data, fanId: user.id, request: parsed.data, admissionToken: token, idempotencyKey: key?.data });
    return NextResponse.json(
      { orderId: order.orderId, seats: order.seats, holdExpiresAt: order.holdExpiresAt.toISOString(), totalMinor: order.totalMinor, currency: order.currency },
      { status: 201, headers: { "Cache-Control": "private, no-store", ...(order.replayed ? { "Idempotent-Replayed": "true" } : {}) } },
    );
  } catch (error) {
    if (error instanceof PendingOrderError) {
      const headers = error.retryAfterSeconds ? { "Retry-After": String(error.retryAfterSeconds) } : undefined;
      return NextResponse.json({ error: error.message, code: error.code, orderId: error.orderId }, { status: 409, headers });
    }
    const res = errorResponse(error);
    if (res) return res;
    throw error;
  }
}
