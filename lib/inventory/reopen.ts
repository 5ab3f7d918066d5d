/**
 * Putting sold seats back on sale in Redis after a refund. Postgres is changed first
 * (lib/admin/orders: order refunded, line items refunded, inventory available); this
 * frees the Redis side: every seat still owned by `s:<holdId>` becomes free again, the
 * fan's live-seat count (I6) drops by as many, and the hold record goes. Seats that no
 * longer belong to this hold are left alone, so running it twice is harmless.
 *
 * `RELEASE_HOLD` (./lua.ts) refuses sold holds on purpose (an expiry must never free a
 * sold seat); this script is the one place that frees sold seats, and only refunds call it.
 * If Redis is unreachable the seats stay unsellable in Redis only until reconciliation
 * rebuilds the inventory from Postgres — never sold twice.
 */
import { scriptKeys } from "@/lib/inventory/keys";
import { luaScript } from "@/lib/redis";

/**
 * Free the seats of a sold hold, only where the seat is still owned by it.
 * KEYS: meta free owner fan holds holdKey. ARGV: holdId
 * → {'OK', reopened} | {'UNKNOWN_HOLD'} | {'NOT_SOLD'} | {'NOT_READY'}
 */
export const REOPEN_SOLD = `
local meta, free, owner, fan, holds, holdKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local holdId = ARGV[1]
if redis.call('HGET', meta, 'ready') ~= '1' then return {'NOT_READY'} end
local h = redis.call('HMGET', holdKey, 'fan', 'seats', 'status')
if not h[1] then return {'UNKNOWN_HOLD'} end
if h[3] ~= 'sold' then return {'NOT_SOLD'} end
local tag = 's:' .. holdId
local reopened = 0
for o in string.gmatch(h[2], '%d+') do
  if redis.call('HGET', owner, o) == tag then
    redis.call('HDEL', owner, o)
    redis.call('SETBIT', free, tonumber(o), 1)
    reopened = reopened + 1
  end
end
local left = redis.call('HINCRBY', fan, h[1], -reopened)
if left <= 0 then redis.call('HDEL', fan, h[1]) end
redis.call('ZREM', holds, holdId)
redis.call('DEL', holdKey)
return {'OK', tostring(reopened)}
`;

/** What {@link reopenSoldSeats} did. */
export type ReopenResult =
  /** The seats still owned by the hold are free again (count). */
  | { result: "reopened"; seats: number }
  /** No such hold in Redis (already reopened, or never confirmed there): nothing to do. */
  | { result: "unknown" }
  /** The hold is still a hold, not sold: refused (a hold ends through release, not here). */
  | { result: "not_sold" }
  /** The event's inventory is not built (after a flush): the next rebuild reads Postgres. */
  | { result: "not_ready" };

/**
 * Puts a refunded order's seats back on sale in Redis: frees every seat owned by
 * `s:<holdId>`, decrements the fan's live-seat count, deletes the hold record. Idempotent.
 * @param eventId the show; @param holdId the order's hold id (`orders.hold_id`).
 * @throws Redis errors (callers report them; reconciliation repairs the drift).
 */
export async function reopenSoldSeats(eventId: string, holdId: string): Promise<ReopenResult> {
  const reply = (await luaScript<string[]>(REOPEN_SOLD).exec(scriptKeys(eventId, holdId), [holdId])).map(String);
  switch (reply[0]) {
    case "OK":
      return { result: "reopened", seats: Number(reply[1]) };
    case "NOT_SOLD":
      return { result: "not_sold" };
    case "NOT_READY":
      return { result: "not_ready" };
    default:
      return { result: "unknown" };
  }
}
