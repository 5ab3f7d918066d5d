"use server";
/**
 * Server action of the event page: hold seats (explicit or best available) for the
 * signed-in, admitted fan. `nonce` is the form's idempotency key: the panel sends the same
 * one with the same request until it gets an answer, so a double click or a retried request
 * returns the same order, and a new one after (the key is bound to its request: docs/adr/0025).
 * A refusal is `{ ok: false, error, code }` (lib/errors.ts): `sign_in_required` → the page
 * offers to sign in; `admission_*` → back to the queue; `order_pending` carries `orderId`.
 */
import { cookies } from "next/headers";
import { z } from "zod";
import { db } from "@/lib/db";
import { action } from "@/lib/http/action";
import { eventIdSchema } from "@/lib/ids";
import { holdForFan } from "@/lib/orders/hold-for-fan";
import { holdRequestSchema, idempotencyKeySchema } from "@/lib/orders/place-order";
import { admissionCookieName } from "@/lib/waiting-room/token";

export const holdSeatsAction = action(
  { who: "user", args: z.tuple([eventIdSchema, holdRequestSchema, idempotencyKeySchema.optional()]) },
  async ({ user }, eventId, request, nonce) => {
    const token = (await cookies()).get(admissionCookieName(eventId))?.value;
    const order = await holdForFan(db(), { eventId, fanId: user.id, request, admissionToken: token, idempotencyKey: nonce });
    return { ok: true as const, orderId: order.orderId };
  },
);
