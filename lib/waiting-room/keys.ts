/** Redis keys of one event's waiting room; all share the event's hash tag (lib/redis.ts), and so the inventory's cluster slot. */
import { eventKey } from "@/lib/redis-core";

/** The waiting room's keys for one event, in the order the scripts take them: cfg pre pos st slots adm turns back (see ./lua.ts). */
export function queueKeys(eventId: string): string[] {
  return ["cfg", "pre", "pos", "st", "slots", "adm", "turns", "back"].map((k) => eventKey(eventId, "wr", k));
}

/**
 * The admitted fans' slots (ZSET: queue position scored by when the slot frees, ms). The
 * hold's Redis claim reads it to refuse a token whose slot has ended.
 */
export const admissionSlotKey = (eventId: string) => eventKey(eventId, "wr", "slots");

/**
 * The queue's state hash (its `gen` field is the queue's generation, docs/adr/0028). The hold's
 * Redis claim reads it to refuse a token of another generation.
 */
export const queueStateKey = (eventId: string) => eventKey(eventId, "wr", "st");
