/**
 * The waiting room's Lua. Keys of one event (hash tag shared with its inventory):
 *   cfg    HASH  onSaleAt (ms), rate (fans/min), cap (active), paused (0/1), ttl (ms, admission window),
 *                pacedRate (fans/min; written only by the admission pacer, ./pacing.ts: absent = not paced)
 *   pre    ZSET  pre-queue: fanId scored by a random number fixed at join (rank = position after the on-sale)
 *   pos    HASH  fanId → position for fans who joined after the on-sale (or rejoined)
 *   st     HASH  serving (serving counter), last (ms, rate accounting), tail (joins after the on-sale)
 *   slots  ZSET  active admissions: position scored by when the slot frees (ms)
 *   adm    ZSET  admissions in the last minute: position scored by admission time (rate cap)
 *   turns  HASH  position → holds made in this turn (a turn's slot is extended by at most a few holds)
 *
 * Admission is lazy: every script first advances the serving counter for the time that
 * passed — admissions spread evenly at `rate` (or `pacedRate`, when lower) fans a minute and
 * never more than `rate` in any trailing minute, never more than `cap` active slots, never
 * past the queue's end, nothing while paused. Work per call does not
 * depend on the queue's length (ZCARD, ZCOUNT, and one ZADD per fan admitted now).
 */
const ADVANCE = `
local cfg, pre, pos, st, slots, adm = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local now = tonumber(ARGV[1])
local c = redis.call('HMGET', cfg, 'onSaleAt', 'rate', 'cap', 'paused', 'ttl', 'pacedRate')
if not c[1] then return {'NO_CONFIG'} end
local onSaleAt, rate, cap, paused, ttl = tonumber(c[1]), tonumber(c[2]), tonumber(c[3]), c[4] == '1', tonumber(c[5])
local pacedRate = tonumber(c[6] or '-1')
local pace = rate
if pacedRate > 0 and pacedRate < pace then pace = pacedRate end
local s = redis.call('HMGET', st, 'serving', 'last', 'tail')
local serving, last, tail = tonumber(s[1] or '0'), tonumber(s[2] or '0'), tonumber(s[3] or '0')
local preSize = redis.call('ZCARD', pre)
local size = preSize + tail
redis.call('ZREMRANGEBYSCORE', slots, '-inf', now)
redis.call('ZREMRANGEBYSCORE', adm, '-inf', now - 60000)
local active = redis.call('ZCARD', slots)
if now >= onSaleAt then
  if last < onSaleAt then last = onSaleAt end
  if now - last > 60000 then last = now - 60000 end
  if paused then
    last = now
  else
    local allowance = math.floor((now - last) * pace / 60000)
    local n = math.min(allowance, rate - redis.call('ZCARD', adm), cap - active, size - serving)
    if n < 0 then n = 0 end
    for p = serving + 1, serving + n do
      redis.call('ZADD', slots, now + ttl, p)
      redis.call('ZADD', adm, now, p)
    end
    serving = serving + n
    active = active + n
    if n == allowance then last = last + n * 60000 / pace else last = now end
  end
  redis.call('HSET', st, 'serving', serving, 'last', last)
end
`;

/**
 * Public status. ARGV: now → {'OK', serving, size, active, rate, cap, paused, onSaleAt, preSize, servingDraw, pacedRate} | {'NO_CONFIG'}
 * rate: the organizer's; pacedRate: the pacer's (fans/min; '-1' when the event is not paced).
 * servingDraw: pre-queue fans whose draw is ≤ it have had their turn ('-1' none yet; 2^48 all of them).
 * It lets a pre-queue fan learn that its turn came from the public, cacheable status alone,
 * so the on-sale does not make every pre-queue fan ask for its own place at once.
 * One ZRANGE by rank: O(log N), the same for 30 and for 1,000,000 fans.
 */
export const STATUS = `${ADVANCE}
local servingDraw = '-1'
if preSize > 0 and serving >= preSize then servingDraw = '281474976710656'
elseif preSize > 0 and serving > 0 then servingDraw = redis.call('ZRANGE', pre, serving - 1, serving - 1, 'WITHSCORES')[2] end
return {'OK', serving, size, active, rate, cap, paused and 1 or 0, onSaleAt, preSize, servingDraw, pacedRate}
`;

/** Shared: the fan's position (0 = not in the queue) and, after the on-sale, their state. */
const FAN = `
local fan = ARGV[2]
local p = tonumber(redis.call('HGET', pos, fan) or '0')
local draw = '-1'
if p == 0 then
  local r = redis.call('ZRANK', pre, fan)
  if r then p = r + 1 draw = redis.call('ZSCORE', pre, fan) end
end
local function fanReply(tag)
  local state, slotUntil = 'none', 0
  if p > 0 then
    if now < onSaleAt then state = 'pre'
    elseif p > serving then state = 'waiting'
    else
      local score = redis.call('ZSCORE', slots, p)
      if score then state = 'admitted' slotUntil = tonumber(score) else state = 'expired' end
    end
  end
  local shown = p
  if state == 'pre' then shown = 0 end
  return {tag, state, shown, serving, size, pace, paused and 1 or 0, onSaleAt, slotUntil, draw, preSize}
end
`;

/**
 * Join (idempotent). KEYS: the seven queue keys, then the caller's join counter (`wr:rl:<ip>`).
 * ARGV: now fanId randomScore rejoin(0/1) limit windowMs
 * After admission is brought up to date (and the configuration found: else NO_CONFIG, not
 * counted), the per-address limit, in the same call (the door's one Redis call per join):
 * at most `limit` joins per fixed `windowMs` window from one address for this event
 * ('0' = no limit) → {'LIMITED', msUntilTheWindowEnds}.
 * Before the on-sale: into the pre-queue with the given random score (ZADD NX keeps the first).
 * After: appended in arrival order. `rejoin` gives a fan whose turn expired a new place at the back.
 * → {'OK', state, position, serving, size, rate, paused, onSaleAt, slotUntil, draw, preSize}
 *   rate: the rate in force (the pacer's when lower than the organizer's), for the fan's ETA.
 *   draw: the fan's pre-queue draw ('-1' when the fan joined after the on-sale); preSize: pre-queue fans.
 */
export const JOIN = `${ADVANCE}
local limit = tonumber(ARGV[5] or '0')
if limit > 0 then
  local n = redis.call('INCR', KEYS[8])
  if n == 1 then redis.call('PEXPIRE', KEYS[8], ARGV[6]) end
  if n > limit then return {'LIMITED', redis.call('PTTL', KEYS[8])} end
end
${FAN}
if p > 0 and not (ARGV[4] == '1' and p <= serving and not redis.call('ZSCORE', slots, p)) then return fanReply('OK') end
if now < onSaleAt then
  redis.call('ZADD', pre, 'NX', ARGV[3], fan)
  p = redis.call('ZRANK', pre, fan) + 1
  draw = ARGV[3]
  preSize = preSize + 1
  size = size + 1
else
  tail = redis.call('HINCRBY', st, 'tail', 1)
  p = redis.call('ZCARD', pre) + tail
  redis.call('HSET', pos, fan, p)
  draw = '-1'
  size = size + 1
end
return fanReply('OK')
`;

/** The fan's own state without joining. ARGV: now fanId → same shape as JOIN. */
export const FAN_STATUS = `${ADVANCE}${FAN}
return fanReply('OK')
`;

/**
 * Change when the fan's slot frees. ARGV: now fanId untilMs ('0' = free it now) maxHolds.
 * A later `until` only extends (a hold keeps the fan "shopping" until it ends), and only
 * for the turn's first `maxHolds` holds: hold, give back, hold again… cannot keep a slot
 * (and seats) forever; after that the turn ends when its slot does.
 * → {'OK', freed(0/1), extended(0/1)}
 */
export const SET_SLOT = `${ADVANCE}${FAN}
if p == 0 then return {'OK', 0, 0} end
local turns = KEYS[7]
local untilMs = tonumber(ARGV[3])
if untilMs == 0 then
  redis.call('HDEL', turns, p)
  return {'OK', redis.call('ZREM', slots, p), 0}
end
if not redis.call('ZSCORE', slots, p) then return {'OK', 0, 0} end
if redis.call('HINCRBY', turns, p, 1) > tonumber(ARGV[4]) then return {'OK', 0, 0} end
redis.call('ZADD', slots, 'XX', 'GT', untilMs, p)
return {'OK', 0, 1}
`;
