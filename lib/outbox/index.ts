/**
 * The transactional outbox: events that durable jobs need are written in the same
 * transaction as the state change that causes them, and relayed to Inngest afterwards
 * (docs/design.md, "Durable jobs"). Nothing is lost between a commit and a send, and nothing
 * on a request's critical path waits for Inngest.
 */
import { outbox } from "@/db/schema";
import type { Db } from "@/lib/db";

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0] | Db;

/** Event names written to the outbox, with their payloads. */
export interface OutboxEvents {
  "order/created": { orderId: string; eventId: string; holdExpiresAt: string };
  "order/paid": { orderId: string; eventId: string };
  "order/ticketed": { orderId: string; eventId: string };
}

/**
 * Adds an event to the outbox inside `tx`. `dedupeKey` is unique: enqueuing the same
 * key twice keeps the first (so retried state changes do not duplicate jobs).
 */
export function enqueue<N extends keyof OutboxEvents>(tx: Tx, name: N, payload: OutboxEvents[N], dedupeKey: string): PromiseLike<unknown> {
  // The builder itself (it starts when awaited), so the insert can be pipelined in order (lib/db.ts `lazyQuery`).
  return tx.insert(outbox).values({ name, payload, dedupeKey }).onConflictDoNothing({ target: outbox.dedupeKey });
}
