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
 *   rowhint HASH  "<rows key>|N" → index of the level's first row that may have N adjacent free
 *                 seats (N = 0: any free seat): every row before it was found without. Only
 *                 holds take seats, so a hold may move a hint forward; whatever frees a seat
 *                 (release, rebuild) deletes them all.
 *
 * Replies are arrays whose first element is a status word.
 */

/**
 * Shared prologue: parse common ARGV and check readiness, the fan's admission slot and
 * the per-fan limit. ARGV[5] is the queue position of the fan's admission token ('0': no
 * check, e.g. a late payment's re-claim; negative for a place re-seated after Redis lost the
 * queue, lib/waiting-room/lua.ts) and ARGV[6] the queue generation the token names; then the
 * last two keys are the waiting room's state hash and `slots` ZSET (same hash tag). The
 * token's generation must be the queue's (`st.gen`: a place number of a queue Redis lost may
 * be another fan's in the new one) and its slot still running (its score, the ms it frees, in
 * the future by Redis's clock): a token whose slot was freed — the fan left, bought or timed
 * out — holds nothing (→ NO_SLOT); a token of another generation held a turn in a queue Redis
 * lost (→ QUEUE_RESTARTED: its fan is re-seated by its queue ticket, ADR 0028). A token
 * naming no generation was signed before tokens carried one (→ NO_SLOT).
 */
const PROLOGUE = `
local meta, free, owner, fan, holds, holdKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
if redis.call('HGET', meta, 'ready') ~= '1' then return {'NOT_READY'} end
local holdId, fanId, expires, limit, slotPos = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
if slotPos ~= 0 then
  if redis.call('HGET', KEYS[#KEYS - 1], 'gen') ~= ARGV[6] then
    if ARGV[6] == '' then return {'NO_SLOT'} end
    return {'QUEUE_RESTARTED'}
  end
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
 * KEYS: meta free owner fan holds holdKey rowHint [queueState slots]. ARGV: holdId fanId expiresMs limit slotPosition slotGeneration ordinal…
 * → {'OK', ordinal…} | {'TAKEN', ordinal…} | {'FAN_LIMIT', current} | {'NOT_READY'} | {'NO_SLOT'} | {'QUEUE_RESTARTED'} | {'DUPLICATE_HOLD'}
 * A TAKEN ordinal that no hold owns is sent as '?<ordinal>': the seat is not on sale in this show
 * (not one of its seats, or withheld), which only Postgres can tell apart; an owned one is plainly taken.
 */
export const HOLD_SEATS = `${PROLOGUE}
local picked = {}
for i = 7, #ARGV do picked[#picked + 1] = tonumber(ARGV[i]) end
if current + #picked > limit then return {'FAN_LIMIT', tostring(current)} end
local taken = {'TAKEN'}
for _, o in ipairs(picked) do
  if redis.call('GETBIT', free, o) == 0 then
    taken[#taken + 1] = (redis.call('HEXISTS', owner, o) == 1 and '' or '?') .. o
  end
end
if #taken > 1 then return taken end
${CLAIM}`;

/**
 * Hold the best N free seats of one price level, together.
 * Rows are tried best first: N adjacent seats in one row; else N seats in one row;
 * else N seats in one section (adjacent rows). Never split across sections.
 * The bitmap is read once and searched in Lua. Rows are read from hints (per level and N, the
 * first row that may have N adjacent free seats; per level, the first that may have any) 32 at a
 * time, only as far as the search goes. Its rules are stated again, plainly, in ./hold.test.ts,
 * which checks this script against them on random levels, with holds and releases in between.
 * KEYS: meta free owner fan holds holdKey rowHint rows [queueState slots]. ARGV: holdId fanId expiresMs limit slotPosition slotGeneration N
 * → {'OK', ordinal…} | {'NOT_ENOUGH', freeInLevel} | {'NOT_TOGETHER', largestGroup} | {'FAN_LIMIT', current} | {'NOT_READY'} | {'NO_SLOT'} | {'QUEUE_RESTARTED'}
 */
export const HOLD_BEST_AVAILABLE = `${PROLOGUE}
local hintKey, rowsKey = KEYS[7], KEYS[8]
local n = tonumber(ARGV[7])
if current + n > limit then return {'FAN_LIMIT', tostring(current)} end
-- The whole bitmap in one read (2,500 bytes for 20,000 seats), searched in plain Lua: a call
-- per row (BITCOUNT) and per seat (GETBIT) made a hold on a 20,000-seat level ~1,000 calls.
local bytes = redis.call('GET', free) or ''
local function byteAt(o) return string.byte(bytes, math.floor(o / 8) + 1) or 0 end
local function isFree(o) return bit.band(byteAt(o), bit.rshift(128, o % 8)) ~= 0 end
-- Counts a row's free seats into r[4]; with want, stops at the first want adjacent free seats
-- and returns their first ordinal. Whole taken bytes are skipped 8 seats at a time.
local function scan(r, want)
  local c, run, o = 0, 0, r[2]
  while o <= r[3] do
    if o % 8 == 0 and o + 7 <= r[3] and byteAt(o) == 0 then
      run = 0
      o = o + 8
    else
      if isFree(o) then
        c = c + 1
        run = run + 1
        if want and run == want then return o - want + 1 end
      else
        run = 0
      end
      o = o + 1
    end
  end
  r[4] = c
  return nil
end
local function parse(raw)
  local section, label, a, b = string.match(raw, '^([^|]*)|([^|]*)|(%d+)|(%d+)$')
  return {section, tonumber(a), tonumber(b), -1}
end
local picked, parsed = nil, nil
-- 1. n adjacent free seats in one row (the first such row, best first). Rows are read 32 at a
-- time from the level's hint for n: every row before it was found without n adjacent free seats.
local runField = rowsKey .. '|' .. n
local runStart = tonumber(redis.call('HGET', hintKey, runField) or '0')
local idx, exhausted = runStart, false
while not picked and not exhausted do
  local list = redis.call('LRANGE', rowsKey, idx, idx + 31)
  for k, raw in ipairs(list) do
    local first = scan(parse(raw), n)
    if first then
      picked = {}
      for o = first, first + n - 1 do picked[#picked + 1] = o end
      idx = idx + k - 1
      break
    end
  end
  if not picked then
    idx = idx + #list
    exhausted = #list < 32
  end
end
if idx ~= runStart then redis.call('HSET', hintKey, runField, idx) end
if not picked then
  -- The other rules, and the refusal, need every row that has a free seat: from the level's
  -- hint for 0 on (every row before it was found with none).
  local emptyField = rowsKey .. '|0'
  local emptyStart = tonumber(redis.call('HGET', hintKey, emptyField) or '0')
  parsed = {}
  local leading, totalFree = 0, 0
  for _, raw in ipairs(redis.call('LRANGE', rowsKey, emptyStart, -1)) do
    local r = parse(raw)
    scan(r, nil)
    parsed[#parsed + 1] = r
    totalFree = totalFree + r[4]
    if r[4] == 0 and leading == #parsed - 1 then leading = leading + 1 end
  end
  if leading > 0 then redis.call('HSET', hintKey, emptyField, emptyStart + leading) end
  if totalFree < n then return {'NOT_ENOUGH', tostring(totalFree)} end
end
-- 2. n free seats in one row
if not picked then
  for _, r in ipairs(parsed) do
    if r[4] >= n then
      picked = {}
      for o = r[2], r[3] do
        if isFree(o) then picked[#picked + 1] = o end
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
        if #group < n and isFree(o) then group[#group + 1] = o end
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
 * KEYS: meta free owner fan holds holdKey rowHint (deleted when a seat is freed). ARGV: holdId expectedStatus('held'|'sold')
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
  -- A freed seat may sit in a row a best-available hint skips.
  redis.call('DEL', KEYS[7])
end
redis.call('ZREM', holds, holdId)
redis.call('DEL', holdKey)
return {'OK', tostring(released)}
`;

/**
 * Turn a hold into sold seats (after payment). Idempotent: confirming a sold hold is OK.
 * KEYS: meta free owner fan holds holdKey rowHint (unused). ARGV: holdId
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
 * Give a hold that Postgres has live its seats in Redis, where they are free and nobody's:
 * after a rebuild replaced Redis with a snapshot in which another (since ended) hold owned
 * them, and freeing that hold left them free while Postgres holds them (lib/inventory/rebuild.ts).
 * Seats owned by another hold, or not free, are left alone. The hold's record is (re)written with
 * the seats it now owns; a held hold is indexed for the expiry sweep; the fan's count grows by the
 * seats claimed.
 * KEYS: meta free owner fan holds holdKey rowHint (unused). ARGV: holdId fanId expiresMs status('held'|'sold') ordinal…
 * → {'OK', claimed}
 */
export const ADOPT_HOLD = `
local meta, free, owner, fan, holds, holdKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local holdId, fanId, expires, status = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local tag = (status == 'sold' and 's:' or 'h:') .. holdId
local claimed, owned = 0, {}
for i = 5, #ARGV do
  local o = ARGV[i]
  local ow = redis.call('HGET', owner, o)
  if not ow and redis.call('GETBIT', free, tonumber(o)) == 1 then
    redis.call('SETBIT', free, tonumber(o), 0)
    redis.call('HSET', owner, o, tag)
    claimed = claimed + 1
    ow = tag
  end
  if ow == tag then owned[#owned + 1] = o end
end
if claimed > 0 then
  redis.call('HSET', holdKey, 'fan', fanId, 'seats', table.concat(owned, ','), 'expires', expires, 'status', status)
  if status == 'held' then redis.call('ZADD', holds, expires, holdId) end
  redis.call('HINCRBY', fan, fanId, claimed)
end
return {'OK', tostring(claimed)}
`;

/**
 * Replace an event's whole inventory in one atomic step (rebuild from Postgres).
 * KEYS: meta free owner fan holds rowHint (deleted). ARGV[1]: JSON
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
 * → {'OK', kept, dropped}: `dropped` is a JSON array of the holds in flight that could not
 * be kept because a seat of theirs is not free in the snapshot ({id, fan, seats, expires}):
 * the snapshot may give that seat to a hold that has ended since (the fan cancelled, then held
 * it again), and the caller's replay frees it; it then gives these holds their seats back.
 * The bitmap arrives as hex and is turned into bytes here, inside Redis, because
 * neither transport carries binary values safely.
 */
export const REBUILD = `
local meta, free, owner, fan, holds, rowHint = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
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
redis.call('DEL', meta, free, owner, fan, holds, rowHint)
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
local kept, dropped = 0, {}
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
  elseif #list > 0 then
    dropped[#dropped + 1] = {id = h[1], fan = h[2], seats = h[3], expires = h[4]}
  end
end
redis.call('HSET', meta, 'ready', '1', 'capacity', d.capacity, 'builtAt', ARGV[4])
return {'OK', tostring(kept), #dropped > 0 and cjson.encode(dropped) or '[]'}
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
