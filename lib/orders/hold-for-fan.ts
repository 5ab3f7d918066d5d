/**
 * The hold path as every entry point runs it (the event page's action, the JSON route,
 * the simulator): per-fan rate limit, the admission-token check, the hold itself with
 * its latency and outcome recorded for the live view, and the fan's admission slot kept
 * busy until the hold ends.
 */
import { z } from "zod";
import type { Db } from "@/lib/db";
import { InventoryError } from "@/lib/inventory/errors";
import { SlotEndedError, type HoldRequest } from "@/lib/inventory/hold";
import { measureHold } from "@/lib/metrics/holds";
import { placeOrder, type PlacedOrder } from "@/lib/orders/place-order";
import { assertAdmitted } from "@/lib/waiting-room/admission";
import { enforceLimit } from "@/lib/waiting-room/limits";
import { admissionSlotKey, extendSlot } from "@/lib/waiting-room/queue";
import { AdmissionTokenError } from "@/lib/waiting-room/token";

/**
 * Holds seats for an admitted fan. The admission token must be valid and its slot still
 * running (checked inside the Redis claim); the same `idempotencyKey` returns the same order.
 * @param input.admissionToken the fan's token for this event (cookie or bearer), if any.
 * @param input.idempotencyKey the request's key (header or form nonce), if any.
 * @throws {RateLimitedError} (429), {AdmissionTokenError} (401/403; `slot_ended` once the
 *   fan's turn is over), {InventoryError} subclasses (4xx), {z.ZodError}.
 */
export async function holdForFan(
  db: Db,
  input: { eventId: string; fanId: string; request: HoldRequest; admissionToken: string | undefined; idempotencyKey?: string },
): Promise<PlacedOrder> {
  await enforceLimit("hold", input.fanId);
  const order = await measureHold(
    input.eventId,
    () =>
      placeOrder(db, {
        eventId: input.eventId,
        fanId: input.fanId,
        request: input.request,
        idempotencyKey: input.idempotencyKey,
        admission: async (eventId, fanId) => {
          const { position } = await assertAdmitted(eventId, fanId, input.admissionToken);
          return { slot: { key: admissionSlotKey(eventId), position } };
        },
      }).catch((error: unknown) => {
        if (error instanceof SlotEndedError) throw new AdmissionTokenError(error.message, 403, "slot_ended");
        throw error;
      }),
    (error) => (error instanceof InventoryError || error instanceof AdmissionTokenError || error instanceof z.ZodError ? "refused" : "error"),
  );
  await extendSlot(db, input.eventId, input.fanId, order.holdExpiresAt.getTime());
  return order;
}
