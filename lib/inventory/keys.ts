/** Redis keys of one event's inventory; all share the event's hash tag (see lib/redis.ts). */
import { eventKey } from "@/lib/redis";

/** The fixed keys of an event's inventory, in the order the Lua scripts take them. */
export function inventoryKeys(eventId: string) {
  return {
    meta: eventKey(eventId, "inv", "meta"),
    free: eventKey(eventId, "inv", "free"),
    owner: eventKey(eventId, "inv", "owner"),
    fan: eventKey(eventId, "inv", "fan"),
    holds: eventKey(eventId, "inv", "holds"),
    lock: eventKey(eventId, "inv", "rebuild-lock"),
    /** Per price level (field: the level's rows key), the index of its first row that may have a free seat; see ./lua.ts. */
    rowHint: eventKey(eventId, "inv", "rowhint"),
  };
}

/** Key of one hold's record. */
export const holdKey = (eventId: string, holdId: string) => eventKey(eventId, "inv", "hold", holdId);

/** Key of one price level's best-first row list. */
export const rowsKey = (eventId: string, priceLevelId: string) => eventKey(eventId, "inv", "rows", priceLevelId);

/** KEYS for the hold/release/confirm scripts: meta free owner fan holds holdKey rowHint. */
export function scriptKeys(eventId: string, holdId: string): string[] {
  const k = inventoryKeys(eventId);
  return [k.meta, k.free, k.owner, k.fan, k.holds, holdKey(eventId, holdId), k.rowHint];
}
