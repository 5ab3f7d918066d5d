"use server";
/** Server actions of the event page: hold seats (explicit or best available) for the signed-in, admitted fan. */
import { cookies } from "next/headers";
import { z } from "zod";
import { getSessionUser } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { eventIdSchema } from "@/lib/http";
import { InventoryError } from "@/lib/inventory/errors";
import { holdForFan } from "@/lib/orders/hold-for-fan";
import { holdRequestSchema, idempotencyKeySchema, PendingOrderError } from "@/lib/orders/place-order";
import { RateLimitedError } from "@/lib/waiting-room/limits";
import { admissionCookieName, AdmissionTokenError } from "@/lib/waiting-room/token";

/**
 * `{ ok: true, orderId }` or `{ ok: false, error }` with a message for the fan; `queue` when
 * they must (re)join the queue; `orderId` on a refusal when they already hold seats for this show.
 */
export type HoldResult = { ok: true; orderId: string } | { ok: false; error: string; signIn?: boolean; queue?: boolean; orderId?: string };

/**
 * Holds seats. `nonce` is the form's idempotency key: the panel sends the same one until it
 * gets an answer, so a double click or a retried request returns the same order.
 */
export async function holdSeatsAction(eventId: unknown, request: unknown, nonce?: unknown): Promise<HoldResult> {
  const user = await getSessionUser();
  if (!user) return { ok: false, error: "Sign in to hold seats.", signIn: true };
  const id = eventIdSchema.safeParse(eventId);
  if (!id.success) return { ok: false, error: "There is no such show." };
  const parsed = holdRequestSchema.safeParse(request);
  if (!parsed.success) return { ok: false, error: parsed.error.issues[0]!.message };
  const key = nonce === undefined ? undefined : idempotencyKeySchema.safeParse(nonce);
  if (key && !key.success) return { ok: false, error: "This page is out of date. Reload it and try again." };
  const token = (await cookies()).get(admissionCookieName(id.data))?.value;
  try {
    const order = await holdForFan(db(), { eventId: id.data, fanId: user.id, request: parsed.data, admissionToken: token, idempotencyKey: key?.data });
    return { ok: true, orderId: order.orderId };
  } catch (error) {
    if (error instanceof AdmissionTokenError) return { ok: false, error: error.message, queue: true };
    if (error instanceof PendingOrderError) return { ok: false, error: error.message, orderId: error.orderId };
    if (error instanceof InventoryError || error instanceof RateLimitedError) return { ok: false, error: error.message };
    if (error instanceof z.ZodError) return { ok: false, error: error.issues[0]!.message };
    throw error;
  }
}
