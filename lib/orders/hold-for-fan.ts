/**
 * The hold path as every entry point runs it (the event page's action, the JSON route,
 * the simulator): per-fan rate limit, the admission-token check, the hold itself with
 * its latency and outcome recorded for the live view, and the fan's admission slot kept
 * busy until the hold ends.
 */
import type { Db } from "@/lib/db";
import { asAppError } from "@/lib/errors";
import type { HoldRequest } from "@/lib/inventory/hold";
import { measureHold } from "@/lib/metrics/holds";
import { placeOrder, type PlacedOrder } from "@/lib/orders/place-order";
import { assertAdmitted } from "@/lib/waiting-room/admission";
import { enforceLimit } from "@/lib/waiting-room/limits";
import { admissionSlotKey, queueStateKey } from "@/lib/waiting-room/keys";
import { extendSlot } from "@/lib/waiting-room/queue";

/**
 * Holds seats for an admitted fan. The admission token must be valid and its slot still
 * running (checked inside the Redis claim); the same `idempotencyKey` with the same request
 * returns the same order, with another request a 422 `idempotency_key_mismatch`.
 * @param input.admissionToken the fan's token for this event (cookie or bearer), if any.
 * @param input.idempotencyKey the request's key (header or form nonce), if any.
 * @throws {AppError}: `rate_limited` (429), `admission_*` (401/403; `admission_slot_ended` once
 *   the fan's turn is over, `admission_queue_restarted` when its turn was in a queue Redis lost), the hold path's refusals (4xx, lib/inventory/errors.ts), `invalid_input`.
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
          const { position, generation } = await assertAdmitted(eventId, fanId, input.admissionToken);
          return { slot: { key: admissionSlotKey(eventId), stateKey: queueStateKey(eventId), position, generation } };
        },
      }),
    // A refusal the fan can read (4xx) is the hold path working; anything else counts as an error.
    (error) => ((asAppError(error)?.status ?? 500) < 500 ? "refused" : "error"),
    // The fan's slot is kept busy while the hold runs, beside the metric's write (one round trip).
    (placed) => extendSlot(db, input.eventId, input.fanId, placed.holdExpiresAt.getTime()),
  );
  return order;
}
