/**
 * POST: hold seats for the signed-in, admitted fan — the JSON twin of the event page's
 * hold action (app/[locale]/events/[slug]/actions.ts), for API clients and the on-sale simulator.
 * Body: `{ kind: "seats", ordinals }` or `{ kind: "best", priceLevelId, quantity }`.
 * Admission token: `Authorization: Bearer <admissionToken>` or the cookie set by
 * /queue and /queue/me. `Idempotency-Key: <8–100 chars>` (optional): the same key with the same
 * body returns the same order (201 again, with `Idempotent-Replayed: true`, and its `status` now,
 * even when it was given back or expired); the same key with another body (other seats, another
 * quantity or level, another show) is a 422 `idempotency_key_mismatch` (docs/adr/0025). 201
 * `{ orderId, status, seats, holdExpiresAt, totalMinor, currency }`; 4xx `{ error, code }` with the action's messages
 * (429 with Retry-After when throttled; 409 `order_pending` with `orderId` when the fan
 * already has a hold for this show; 409 `not_enough` / `not_together` with `requested` and
 * `bestGroup`, the most seats one hold could get at that price now; 403 `admission_slot_ended` once the fan's turn is over, `admission_queue_restarted` when Redis lost the queue it was in).
 * `?pay=1`: the fan chose to pay at once — the checkout is started in the same request and the
 * 201 carries `checkoutUrl` (the PSP's pay page), or `checkoutError` `{ error, code }` when the PSP
 * could not be reached (the hold stands; POST /api/orders/:id/checkout tries again). One request
 * per order fewer at the on-sale's busiest moment.
 */
import { z } from "zod";
import { cookieValue } from "@/lib/auth/cookie-cache";
import { db } from "@/lib/db";
import { AppError, toErrorBody } from "@/lib/errors";
import { PRIVATE_NO_STORE } from "@/lib/http/cache";
import { route } from "@/lib/http/route";
import { eventIdSchema } from "@/lib/ids";
import { holdForFan } from "@/lib/orders/hold-for-fan";
import { holdRequestSchema, idempotencyKeySchema } from "@/lib/orders/place-order";
import { defaultProvider } from "@/lib/payments";
import { startCheckout } from "@/lib/payments/checkout";
import { admissionCookieName } from "@/lib/waiting-room/token";

export const POST = route(
  {
    who: "user",
    signIn: "Sign in to hold seats.",
    params: z.object({ eventId: eventIdSchema }),
    query: z.object({ pay: z.literal("1", "pay must be 1 when given").optional() }).loose(),
    body: holdRequestSchema,
    bodyHint: 'Body must be JSON: {"kind":"best","priceLevelId":"pl_…","quantity":2} or {"kind":"seats","ordinals":[…]}',
  },
  async ({ req, params, query, body, user, requestId }) => {
    const rawKey = req.headers.get("idempotency-key");
    const key = rawKey === null ? undefined : idempotencyKeySchema.safeParse(rawKey);
    if (key && !key.success) throw new AppError("bad_request", "bad_idempotency_key", key.error.issues[0]!.message);
    // The admission token from `Authorization: Bearer …`, else from the event's admission cookie.
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.get("authorization") ?? "")?.[1];
    const token = bearer ?? cookieValue(req.headers.get("cookie") ?? "", admissionCookieName(params.eventId));
    const order = await holdForFan(db(), { eventId: params.eventId, fanId: user.id, request: body, admissionToken: token, idempotencyKey: key?.data });
    let checkout: { checkoutUrl: string } | { checkoutError: ReturnType<typeof toErrorBody> } | Record<string, never> = {};
    if (query.pay === "1" && order.status === "pending_payment") {
      checkout = await startCheckout(db(), defaultProvider(), { orderId: order.orderId, fanId: user.id }).then(
        ({ url }) => ({ checkoutUrl: url }),
        (error: unknown) => ({ checkoutError: toErrorBody(error, requestId) }),
      );
    }
    return Response.json(
      { orderId: order.orderId, status: order.status, seats: order.seats, holdExpiresAt: order.holdExpiresAt.toISOString(), totalMinor: order.totalMinor, currency: order.currency, ...checkout },
      { status: 201, headers: { "Cache-Control": PRIVATE_NO_STORE, ...(order.replayed ? { "Idempotent-Replayed": "true" } : {}) } },
    );
  },
);
