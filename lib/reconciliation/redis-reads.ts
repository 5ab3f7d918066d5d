/**
 * Reconciliation's reads of an event's Redis inventory, each one read-only Lua call
 * (lib/inventory/ stays the one writer of that state: docs/architecture.md, "One home per
 * concept"). Reconciliation compares the whole inventory with Postgres every pass
 * (docs/adr/0009); read command by command through the `@upstash/redis` client that cost most
 * of a pass: at a 20,000-seat sell-out, an HGETALL of the owner hash (its 20,000 values each
 * tried as JSON) ~170 ms of the worker's CPU, and a GETBIT per live seat (20,000 pipelined
 * commands) ~220 ms, twice a pass. One script call returns the same state as a few strings
 * (script replies come back raw: lib/redis-core.ts `scriptOn`) for ~6 ms.
 */
import { holdKey, inventoryKeys } from "@/lib/inventory/keys";
import { luaScript, redis } from "@/lib/redis";

/**
 * The whole inventory as the drift check reads it: nothing unless the inventory is built
 * (meta `ready` set), else the free bitmap as hex and the owner hash joined by newlines
 * (field, value, field, value, …; fields are ordinals, values `h:<hold>` / `s:<hold>`) with
 * the number of items joined, so a value that itself contained a newline is noticed.
 * KEYS: meta free owner. → {'NOT_READY'} | {'OK', 'x'..hex, 'x'..joined, items}
 */
const INVENTORY_SNAPSHOT = `
if not redis.call('HGET', KEYS[1], 'ready') then return {'NOT_READY'} end
local bits = redis.call('GET', KEYS[2]) or ''
local hex = {}
for i = 1, #bits do hex[i] = string.format('%02x', string.byte(bits, i)) end
local owner = redis.call('HGETALL', KEYS[3])
return {'OK', 'x' .. table.concat(hex), 'x' .. table.concat(owner, '\\n'), #owner}
`;

/**
 * Some seats only: per ordinal its free bit and its owner entry ('' when it has none, else
 * 'x' followed by the entry, so an empty entry differs from a missing one).
 * KEYS: meta free owner. ARGV: ordinals. → {'NOT_READY'} | {'OK', bit, owner, bit, owner, …}
 */
const INVENTORY_AT = `
if not redis.call('HGET', KEYS[1], 'ready') then return {'NOT_READY'} end
local out = {'OK'}
for i = 1, #ARGV do
  out[#out + 1] = redis.call('GETBIT', KEYS[2], ARGV[i])
  local tag = redis.call('HGET', KEYS[3], ARGV[i])
  out[#out + 1] = tag and ('x' .. tag) or ''
end
return out
`;

/**
 * Of the holds given as KEYS (hold records), the 1-based positions of those a CONFIRM_HOLD
 * (lib/inventory/lua.ts) would change: the record exists (`fan` set) and its status is not
 * `sold`. For every other hold that script returns without writing ('UNKNOWN_HOLD', 'OK').
 * KEYS: hold keys of one event. → positions
 */
const HOLDS_TO_CONFIRM = `
local out = {}
for i = 1, #KEYS do
  local h = redis.call('HMGET', KEYS[i], 'fan', 'status')
  if h[1] and h[2] ~= 'sold' then out[#out + 1] = i end
end
return out
`;

/** One event's Redis inventory as the drift check compares it with Postgres. */
export interface InventoryLook {
  /** Whether the seat's bit is set in the free bitmap (bit order as Redis's GETBIT). */
  isFree(ordinal: number): boolean;
  /** Owner entries: hash field (the ordinal as Redis has it) → value (`h:<hold>` or `s:<hold>`). */
  owners: Map<string, string>;
}

/**
 * The event's free bitmap and owner hash, read at one instant (one script call).
 * @returns null when the event's inventory is not built (no `ready` in its meta hash).
 * @throws {RedisUnavailableError} when Redis cannot be reached.
 */
export async function readInventory(eventId: string): Promise<InventoryLook | null> {
  const k = inventoryKeys(eventId);
  const [status, hex, joined, items] = await luaScript<(string | number)[]>(INVENTORY_SNAPSHOT).exec([k.meta, k.free, k.owner], []);
  if (status !== "OK") return null;
  const bytes = Buffer.from(String(hex).slice(1), "hex");
  const flat = String(joined).slice(1);
  let parts = flat === "" ? [] : flat.split("\n");
  // A value with a newline in it (no id of ours has one) would split wrongly: read the hash itself then.
  if (parts.length !== Number(items)) parts = Object.entries((await redis().hgetall<Record<string, unknown>>(k.owner)) ?? {}).flatMap(([f, v]) => [f, String(v)]);
  const owners = new Map<string, string>();
  for (let i = 0; i + 1 < parts.length; i += 2) owners.set(parts[i]!, parts[i + 1]!);
  return { isFree: (ordinal) => ((bytes[ordinal >> 3] ?? 0) & (0x80 >> (ordinal & 7))) !== 0, owners };
}

/**
 * The free bits and owner entries of some seats of the event, read at one instant.
 * @param ordinals seat ordinals (non-negative integers).
 * @returns null when the event's inventory is not built; `owners` has only the seats that have an entry.
 * @throws {RedisUnavailableError} when Redis cannot be reached.
 */
export async function readInventoryAt(eventId: string, ordinals: number[]): Promise<InventoryLook | null> {
  const k = inventoryKeys(eventId);
  const [status, ...rest] = await luaScript<(string | number)[]>(INVENTORY_AT).exec([k.meta, k.free, k.owner], ordinals.map(String));
  if (status !== "OK") return null;
  const free = new Set<number>();
  const owners = new Map<string, string>();
  ordinals.forEach((ordinal, i) => {
    if (Number(rest[2 * i]) === 1) free.add(ordinal);
    const tag = String(rest[2 * i + 1] ?? "");
    if (tag !== "") owners.set(String(ordinal), tag.slice(1));
  });
  return { isFree: (ordinal) => free.has(ordinal), owners };
}

/** Hold keys per script call: one bounded call however many holds a ledger window names. */
const HOLDS_PER_CALL = 1_000;

/**
 * Of these holds of one event, those a confirm would still change (their record exists and
 * is not `sold`) — the others need no confirm call (lib/inventory/hold.ts `confirmInRedis`
 * returns without writing for them). One read-only script call per {@link HOLDS_PER_CALL} holds.
 * @returns the hold ids to confirm, in the order given.
 * @throws {RedisUnavailableError} when Redis cannot be reached.
 */
export async function holdsToConfirm(eventId: string, holdIds: string[]): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < holdIds.length; i += HOLDS_PER_CALL) {
    const part = holdIds.slice(i, i + HOLDS_PER_CALL);
    const positions = await luaScript<number[]>(HOLDS_TO_CONFIRM).exec(
      part.map((id) => holdKey(eventId, id)),
      [],
    );
    for (const p of positions ?? []) out.push(part[Number(p) - 1]!);
  }
  return out;
}
