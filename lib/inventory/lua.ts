/**
 * The inventory's Lua scripts. Each runs atomically inside Redis, so "check the seats
 * are free, then take them" cannot interleave with another fan's request.
 *
 * Keys of one event (all under the event's hash tag, see ./keys.ts):
 *   meta   HASH   ready=1 once built from Postgres (missing after a flush → NOT_READY)
 *   free   BITMAP bit ordinal = 1 when the seat is on sale and free
 *   owner  HASH   ordinal → "h:<holdId>" (held) | "s:<holdId>" (sold)
 *   fan    HASH   fanId → live seats (held + sold) for the per-fan limit (I6)
 *   holds  ZSET   holdId scored by expiry (ms) — the expiry sweep's index
 *   hold   HASH   (one per hold) fan, seats "o1,o2", expires, status held|sold
 *   rows   LIST   (one per price level) "section|row|first|last" ordinal ranges, best first
 *
 * Replies are arrays whose first element is a status word.
 */

/**
 * Shared prologue: parse common ARGV and check readiness, the fan's admission slot and
 * the per-fan limit. ARGV[5] is the queue position of the fan's admission token ('0': no
 * check, e.g. a late payment's re-claim); then the LAST key is the waiting room's `slots`
 * ZSET (same hash tag) and the slot must still be running (its score, the ms it frees, is
 * in the future by Redis's clock): a token whose slot was freed — the fan left, bought or
 * timed out — holds nothing (→ NO_SLOT).
 */
const PROLOGUE = `
local meta, free, owner, fan, holds, holdKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
if redis.call('HGET', meta, 'ready') ~= '1' then return {'NOT_READY'} end
local holdId, fanId, expires, limit, slotPos = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
if slotPos > 0 then
  local untilMs = tonumber(redis.call('ZSCORE', KEYS[#KEYS], slotPos) or '0')
  local t = redis.call('TIME')
  if untilMs <= t[1] * 1000 + math.floor(t[2] / 1000) then return {'NO_SLOT'} end
end
if redis.call('EXISTS', holdKey) == 1 then return {'DUPLICATE_HOLD'} end
local current = tonumber(redis.call('HGET', fan, fanId) or '0')
`;

/** Shared epilogue: claim the seats in \`picked\` for the hold. */
const CLAIM = `
local tag = 'h:' .. holdId
for _, o in ipairs(picked) do
  redis.call('SETBIT', free, o, 0)
  redis.call('HSET', owner, o, tag)
end
-- 'at': when Redis made the hold (ms, Redis's clock), so a rebuild can tell a hold whose order is still being written.
local now = redis.call('TIME')
redis.call('HSET', holdKey, 'fan', fanId, 'seats', table.concat(picked, ','), 'expires', expires, 'status', 'held', 'at', now[1] * 1000 + math.floor(now[2] / 1000))
redis.call('ZADD', holds, expires, holdId)
redis.call('HINCRBY', fan, fanId, #picked)
local reply = {'OK'}
for _, o in ipairs(picked) do reply[#reply + 1] = tostring(o) end
return reply
`;

/**
 * Hold explicit seats, all or nothing.
 * KEYS: meta free owner fan holds holdKey [slots]. ARGV: holdId fanId expiresMs limit slotPosition ordinal…
 * → {'OK', ordinal…} | {'TAKEN', ordinal…} | {'FAN_LIMIT', current} | {'NOT_READY'} | {'NO_SLOT'} | {'DUPLICATE_HOLD'}
 */
export const HOLD_SEATS = `${PROLOGUE}
local picked = {}
for i = 6, #ARGV do picked[#picked + 1] = tonumber(ARGV[i]) end
if current + #picked > limit then return {'FAN_LIMIT', tostring(current)} end
local taken = {'TAKEN'}
for _, o in ipairs(picked) do
  if redis.call('GETBIT', free, o) == 0 then taken[#taken + 1] = tostring(o) end
end
if #taken > 1 then return taken end
${CLAIM}`;

/**
 * Hold the best N free seats of one price level, together.
 * Rows are tried best first: N adjacent seats in one row; else N seats in one row;
 * else N seats in one section (adjacent rows). Never split across sections.
 * KEYS: meta free owner fan holds holdKey rows [slots]. ARGV: holdId fanId expiresMs limit slotPosition N
 * → {'OK', ordinal…} | {'NOT_ENOUGH', freeInLevel} | {'NOT_TOGETHER', largestGroup} | {'FAN_LIMIT', current} | {'NOT_READY'} | {'NO_SLOT'}
 */
export const HOLD_BEST_AVAILABLE = `${PROLOGUE}
local rowsKey = KEYS[7]
local n = tonumber(ARGV[6])
if current + n > limit then return {'FAN_LIMIT', tostring(current)} end
local rows = redis.call('LRANGE', rowsKey, 0, -1)
local parsed = {}
local totalFree = 0
for i, r in ipairs(rows) do
  local section, label, a, b = string.match(r, '^([^|]*)|([^|]*)|(%d+)|(%d+)$')
  a, b = tonumber(a), tonumber(b)
  local c = redis.call('BITCOUNT', free, a, b, 'BIT')
  totalFree = totalFree + c
  parsed[i] = {section, a, b, c}
end
if totalFree < n then return {'NOT_ENOUGH', tostring(totalFree)} end
local picked = nil
-- 1. n adjacent free seats in one row
for _, r in ipairs(parsed) do
  if r[4] >= n then
    local run = {}
    for o = r[2], r[3] do
      if redis.call('GETBIT', free, o) == 1 then
        run[#run + 1] = o
        if #run == n then picked = run break end
      else
        run = {}
      end
    end
    if picked then break end
  end
end
-- 2. n free seats in one row
if not picked then
  for _, r in ipairs(parsed) do
    if r[4] >= n then
      picked = {}
      for o = r[2], r[3] do
        if redis.call('GETBIT', free, o) == 1 then picked[#picked + 1] = o end
        if #picked == n then break end
      end
      break
    end
  end
end
-- 3. n free seats in one section, rows in quality order
local largest = 0
if not picked then
  local bySection, order = {}, {}
  for _, r in ipairs(parsed) do
    if r[4] > 0 then
      if not bySection[r[1]] then bySection[r[1]] = {} order[#order + 1] = r[1] end
      table.insert(bySection[r[1]], r)
    end
  end
  for _, s in ipairs(order) do
    local group = {}
    for _, r in ipairs(bySection[s]) do
      for o = r[2], r[3] do
        if #group < n and redis.call('GETBIT', free, o) == 1 then group[#group + 1] = o end
      end
    end
    if #group == n then picked = group break end
    if #group > largest then largest = #group end
  end
end
if not picked then return {'NOT_TOGETHER', tostring(largest)} end
${CLAIM}`;

/**
 * Free a hold's seats, only where the seat still belongs to this hold, and only if the
 * hold is in the expected state: `held` (expiry, cancel, a refused Postgres write) or
 * `sold` (a refund puts sold seats back on sale). An expiry can therefore never free a
 * sold seat. The fan's live-seat count drops by the seats freed; the hold record goes.
 * KEYS: meta free owner fan holds holdKey. ARGV: holdId expectedStatus('held'|'sold')
 * → {'OK', freed} | {'UNKNOWN_HOLD'} | {'WRONG_STATUS', status}
 */
export const RELEASE_HOLD = `
local meta, free, owner, fan, holds, holdKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local holdId, want = ARGV[1], ARGV[2]
local h = redis.call('HMGET', holdKey, 'fan', 'seats', 'status')
if not h[1] then return {'UNKNOWN_HOLD'} end
if h[3] ~= want then return {'WRONG_STATUS', h[3]} end
local tag = (want == 'sold' and 's:' or 'h:') .. holdId
local released = 0
for o in string.gmatch(h[2], '%d+') do
  if redis.call('HGET', owner, o) == tag then
    redis.call('HDEL', owner, o)
    redis.call('SETBIT', free, tonumber(o), 1)
    released = released + 1
  end
end
-- (Only when something was freed: Redis refuses "-0" as an increment.)
if released > 0 then
  local left = redis.call('HINCRBY', fan, h[1], -released)
  if left <= 0 then redis.call('HDEL', fan, h[1]) end
end
redis.call('ZREM', holds, holdId)
redis.call('DEL', holdKey)
return {'OK', tostring(released)}
`;

/**
 * Turn a hold into sold seats (after payment). Idempotent: confirming a sold hold is OK.
 * KEYS: meta free owner fan holds holdKey. ARGV: holdId
 * → {'OK'} | {'UNKNOWN_HOLD'} | {'LOST', ordinal…} (a seat no longer belongs to this hold)
 */
export const CONFIRM_HOLD = `
local meta, free, owner, fan, holds, holdKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local holdId = ARGV[1]
local h = redis.call('HMGET', holdKey, 'fan', 'seats', 'status')
if not h[1] then return {'UNKNOWN_HOLD'} end
if h[3] == 'sold' then return {'OK'} end
local tag = 'h:' .. holdId
local lost = {'LOST'}
for o in string.gmatch(h[2], '%d+') do
  if redis.call('HGET', owner, o) ~= tag then lost[#lost + 1] = o end
end
if #lost > 1 then return lost end
for o in string.gmatch(h[2], '%d+') do redis.call('HSET', owner, o, 's:' .. holdId) end
redis.call('HSET', holdKey, 'status', 'sold')
redis.call('ZREM', holds, holdId)
return {'OK'}
`;

/**
 * Replace an event's whole inventory in one atomic step (rebuild from Postgres).
 * KEYS: meta free owner fan holds. ARGV[1]: JSON
 *   { hex, capacity, owner: [[ordinal, tag]], holds: [{id, fan, seats, expires, status}],
 *     fans: [[fanId, n]], rows: [[levelId, [entry…]]], stale: [key…], known: [holdId…] }
 * ARGV[2]: hold key prefix, ARGV[3]: rows key prefix, ARGV[4]: built-at ms,
 * ARGV[5] (optional): holds in flight — held in Redis, made (field 'at', Redis's clock)
 * within the last ARGV[5] ms, and unknown to the snapshot (neither live nor in
 * `known`, the hold ids of the event's recent orders) — are kept when every one of
 * their seats is free in the snapshot: the hold path claims in Redis first and writes
 * Postgres a moment later, so the snapshot cannot know them yet. Dropping them would
 * leave seats that Redis calls free while Postgres is about to call them held (every
 * later claim of them fails on I1).
 * → {'OK', kept}
 * The bitmap arrives as hex and is turned into bytes here, inside Redis, because
 * neither transport carries binary values safely.
 */
export const REBUILD = `
local meta, free, owner, fan, holds = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local d = cjson.decode(ARGV[1])
local holdPrefix, rowsPrefix = ARGV[2], ARGV[3]
local inFlight = {}
if ARGV[5] then
  local known = {}
  for _, h in ipairs(d.holds) do known[h.id] = true end
  for _, id in ipairs(d.known or {}) do known[id] = true end
  local now = redis.call('TIME')
  local since = now[1] * 1000 + math.floor(now[2] / 1000) - tonumber(ARGV[5])
  for _, id in ipairs(redis.call('ZRANGE', holds, 0, -1)) do
    if not known[id] then
      local h = redis.call('HMGET', holdPrefix .. id, 'fan', 'seats', 'expires', 'status', 'at')
      if h[1] and h[4] == 'held' and h[5] and tonumber(h[5]) >= since then inFlight[#inFlight + 1] = {id, h[1], h[2], h[3], h[5]} end
    end
  end
end
for _, k in ipairs(d.stale) do redis.call('DEL', k) end
redis.call('DEL', meta, free, owner, fan, holds)
local hex = d.hex
local parts = {}
for i = 1, #hex, 2 do parts[#parts + 1] = string.char(tonumber(string.sub(hex, i, i + 1), 16)) end
redis.call('SET', free, table.concat(parts))
for _, e in ipairs(d.owner) do redis.call('HSET', owner, e[1], e[2]) end
for _, h in ipairs(d.holds) do
  redis.call('HSET', holdPrefix .. h.id, 'fan', h.fan, 'seats', h.seats, 'expires', h.expires, 'status', h.status)
  if h.status == 'held' then redis.call('ZADD', holds, h.expires, h.id) end
end
for _, f in ipairs(d.fans) do redis.call('HSET', fan, f[1], f[2]) end
for _, r in ipairs(d.rows) do
  local key = rowsPrefix .. r[1]
  redis.call('DEL', key)
  if #r[2] > 0 then redis.call('RPUSH', key, unpack(r[2])) end
end
local kept = 0
for _, h in ipairs(inFlight) do
  local list, free_ = {}, true
  for o in string.gmatch(h[3], '%d+') do
    list[#list + 1] = o
    if redis.call('GETBIT', free, tonumber(o)) == 0 then free_ = false end
  end
  if free_ and #list > 0 then
    for _, o in ipairs(list) do
      redis.call('SETBIT', free, tonumber(o), 0)
      redis.call('HSET', owner, o, 'h:' .. h[1])
    end
    redis.call('HSET', holdPrefix .. h[1], 'fan', h[2], 'seats', h[3], 'expires', h[4], 'status', 'held', 'at', h[5])
    redis.call('ZADD', holds, h[4], h[1])
    redis.call('HINCRBY', fan, h[2], #list)
    kept = kept + 1
  end
end
redis.call('HSET', meta, 'ready', '1', 'capacity', d.capacity, 'builtAt', ARGV[4])
return {'OK', tostring(kept)}
`;

/**
 * The free bitmap, for the public availability endpoint: hex of its bytes, prefixed 'x' so
 * no client mistakes it for a number, and the count of free seats.
 * KEYS: meta free → {'OK', 'x<hex>', freeCount} | {'NOT_READY'}
 */
export const AVAILABILITY = `
if redis.call('HGET', KEYS[1], 'ready') ~= '1' then return {'NOT_READY'} end
local bits = redis.call('GET', KEYS[2]) or ''
local hex = {}
for i = 1, #bits do hex[i] = string.format('%02x', string.byte(bits, i)) end
return {'OK', 'x' .. table.concat(hex), redis.call('BITCOUNT', KEYS[2])}
`;
