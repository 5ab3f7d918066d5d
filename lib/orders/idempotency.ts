/**
 * What an idempotency key is bound to (docs/adr/0025, after the IETF "Idempotency-Key HTTP
 * Header Field" draft): a fingerprint of the hold request it was first sent with. The same key
 * with the same request answers the order it made; with another request it is refused (422).
 */
import { createHash } from "node:crypto";
import { AppError } from "@/lib/errors";
import type { HoldRequest } from "@/lib/inventory/hold";

/**
 * SHA-256 (hex) of a hold request's canonical form: the show, then what was asked for — the
 * seats in ascending order, or the price level and quantity of a best-available request. Built
 * from the parsed request, so the JSON's key order, spacing, unknown fields and the order the
 * seats were listed in do not change it; `?pay=1` is not part of it (it asks for the next step,
 * the checkout, which is idempotent per order by itself).
 */
export function holdFingerprint(eventId: string, request: HoldRequest): string {
  const canonical =
    request.kind === "seats"
      ? ["hold/1", eventId, "seats", [...request.ordinals].sort((a, b) => a - b)]
      : ["hold/1", eventId, "best", request.priceLevelId, request.quantity];
  return createHash("sha256").update(JSON.stringify(canonical)).digest("hex");
}

/**
 * The key was used before, by this fan, for another request — other seats, another quantity
 * or level, another show — or for an order made before keys were bound to their request (422).
 */
export function idempotencyKeyMismatch(): AppError {
  return new AppError(
    "unprocessable",
    "idempotency_key_mismatch",
    "This idempotency key was already used for a different request. Send a new key for a new hold (the same key only repeats the same request).",
  );
}
