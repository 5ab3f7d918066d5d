"use server";
/** Server actions of the event page: hold seats (explicit or best available) for the signed-in fan. */
import { z } from "zod";
import { getSessionUser } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { eventIdSchema } from "@/lib/http";
import { InventoryError } from "@/lib/inventory/errors";
import { holdRequestSchema, placeOrder } from "@/lib/orders/place-order";

/** `{ ok: true, orderId }` or `{ ok: false, error }` with a message for the fan. */
export type HoldResult = { ok: true; orderId: string } | { ok: false; error: string; signIn?: boolean };

export async function holdSeatsAction(eventId: unknown, request: unknown): Promise<HoldResult> {
  const user = await getSessionUser();
  if (!user) return { ok: false, error: "Sign in to hold seats.", signIn: true };
  const id = eventIdSchema.safeParse(eventId);
  if (!id.success) return { ok: false, error: "There is no such show." };
  const parsed = holdRequestSchema.safeParse(request);
  if (!parsed.success) return { ok: false, error: parsed.error.issues[0]!.message };
  try {
    // Seam for the waiting room: the admission-token check joins `admission` here (issue 4).
    const order = await placeOrder(db(), { eventId: id.data, fanId: user.id, request: parsed.data });
    return { ok: true, orderId: order.orderId };
  } catch (error) {
    if (error instanceof InventoryError) return { ok: false, error: error.message };
    if (error instanceof z.ZodError) return { ok: false, error: error.issues[0]!.message };
    throw error;
  }
}
