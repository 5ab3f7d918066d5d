/**
 * The waiting room's Lua. Keys of one event (hash tag shared with its inventory):
 *   cfg    HASH  onSaleAt (ms), rate (fans/min), cap (active), paused (0/1), ttl (ms, admission window),
 *                pacedRate (fans/min; written only by the admission pacer, ./pacing.ts: absent = not paced)
 *   pre    ZSET  pre-queue: fanId scored by its draw, fixed per fan and on-sale (rank = position after the on-sale)
 *   pos    HASH  fanId → position for fans who joined after the on-sale (or rejoined, or were re-seated)
 *   st     HASH  serving (serving counter), last (ms, rate accounting), tail (joins after the on-sale),
 *                gen (the queue's generation: made by the first script to find it missing, i.e. when the
 *                queue is first used and again whenever Redis lost it), genAt (ms, when it was made),
 *                reseated (fans re-seated in it), backUntil (ms: the re-seat window, below)
 *   slots  ZSET  active admissions: position scored by when the slot frees (ms)
 *   adm    ZSET  admissions in the last minute: position scored by admission time (rate cap)
 *   turns  HASH  position → holds made in this turn (a turn's slot is extended by at most a few holds)
 *   back   ZSET  re-seated fans still waiting: k (the fan's place is -k) scored by the order its queue
 *                ticket from a lost generation proves (draw, or 2^48 + position); served before `serving`
 *
 * Re-seating (docs/adr/0028): nothing removes a fan from `pos` or `pre` (only whole keys go), so a
 * fan with no place who presents a signed queue ticket of the same on-sale proving one lost it
 * with Redis, and is put back by the order the ticket proves, ahead of everyone who joined since:
 *  - before the on-sale into `pre` with its draw;
 *  - after it, from a lost generation (Redis came back empty), into `back`, which admission
 *    drains first, lowest order first, at the same rate and cap;
 *  - after it, from this generation (a partial loss: AOF everysec, a promoted replica — `st`
 *    survived, the last second's writes did not): where its number q is (its place, or for a
 *    draw the place the draw has in `pre`). Behind the serving counter its turn came: into `back`.
 *    Ahead of it and within the queue, it waits for the counter (answered "waiting" at q, nothing
 *    written: another fan may hold q since) and is re-seated when the counter passes q. Beyond
 *    the queue's end (q unused), it gets q back and the queue's end moves to it.
 * A re-seated place is -k (k counts re-seats), so the slot, the admission token and the hold's
 * slot check work as for any place. A fan is re-seated at most once per generation (it then has
 * a place), and only from its own ticket (the door checks signature and fan).
 *
 * The re-seat window: when a generation made at or after the on-sale follows a lost one, the
 * fans who held places come back only as their pages' back-off lets them (up to ~38 s), while
 * fans who join the new queue are there at once. For RESEAT_WINDOW_MS after the generation was
 * made, admission takes fans from `back` only; the serving counter waits. The evidence of a lost
 * generation is a caller who knew one of the same on-sale (the door remembers each event's
 * generation: the last two ARGV of every script, '' when none) or a ticket of one being
 * re-seated. A queue first used after its on-sale, with no earlier generation, waits for nobody.
 *
 * One clock (docs/adr/0024): `now` (ms) is Redis's `TIME`, read once per script — admission,
 * slot expiry and the on-sale's start never follow the calling process's clock. ARGV[1] is ''
 * in production; a test passes its simulated clock there instead. Every reply carries the
 * `now` it was computed at, last.
 *
 * Admission is lazy: every script first advances the serving counter for the time that
 * passed — admissions spread evenly at `rate` (or `pacedRate`, when lower) fans a minute and
 * never more than `rate` in any trailing minute, never more than `cap` active slots, never
 * past the queue's end (re-seated fans first), nothing while paused. Work per call does not
 * depend on the queue's length (ZCARD, ZCOUNT, and one ZADD per fan admitted now).
 */
export const RESEAT_WINDOW_MS = 45_000;

const ADVANCE = `
local cfg, pre, pos, st, slots, adm, back = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[8]
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = t[1] * 1000 + math.floor(t[2] / 1000)
end
local c = redis.call('HMGET', cfg, 'onSaleAt', 'rate', 'cap', 'paused', 'ttl', 'pacedRate')
if not c[1] then return {'NO_CONFIG'} end
local onSaleAt, rate, cap, paused, ttl = tonumber(c[1]), tonumber(c[2]), tonumber(c[3]), c[4] == '1', tonumber(c[5])
local pacedRate = tonumber(c[6] or '-1')
local pace = rate
if pacedRate > 0 and pacedRate < pace then pace = pacedRate end
local s = redis.call('HMGET', st, 'serving', 'last', 'tail', 'gen', 'genAt', 'backUntil')
local serving, last, tail, gen = tonumber(s[1] or '0'), tonumber(s[2] or '0'), tonumber(s[3] or '0'), s[4]
local genAt, backUntil = tonumber(s[5] or '0'), tonumber(s[6] or '0')
local function holdForBack()
  if backUntil == 0 and genAt >= onSaleAt and now < genAt + ${RESEAT_WINDOW_MS} then
    backUntil = genAt + ${RESEAT_WINDOW_MS}
    redis.call('HSET', st, 'backUntil', backUntil)
  end
end
if not gen then
  local t = redis.call('TIME')
  gen = t[1] .. string.format('%06d', tonumber(t[2]))
  genAt = now
  redis.call('HSET', st, 'gen', gen, 'genAt', genAt)
  local seenGen, seenOnSale = ARGV[#ARGV - 1], tonumber(ARGV[#ARGV])
  if #ARGV >= 3 and seenGen ~= '' and seenGen ~= gen and seenOnSale == onSaleAt then holdForBack() end
end
local preSize = redis.call('ZCARD', pre)
local backSize = redis.call('ZCARD', back)
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
    local waiting = size - serving
    if now < backUntil then waiting = 0 end
    local n = math.min(allowance, rate - redis.call('ZCARD', adm), cap - active, waiting + backSize)
    if n < 0 then n = 0 end
    local fromBack = math.min(n, backSize)
    if fromBack > 0 then
      local popped = redis.call('ZPOPMIN', back, fromBack)
      for i = 1, #popped, 2 do
        local m = -tonumber(popped[i])
        redis.call('ZADD', slots, now + ttl, m)
        redis.call('ZADD', adm, now, m)
      end
      backSize = backSize - fromBack
    end
    for p = serving + 1, serving + n - fromBack do
      redis.call('ZADD', slots, now + ttl, p)
      redis.call('ZADD', adm, now, p)
    end
    serving = serving + n - fromBack
    active = active + n
    if n == allowance then last = last + n * 60000 / pace else last = now end
  end
  redis.call('HSET', st, 'serving', serving, 'last', last)
end
`;

/**
 * Public status. ARGV: now('' = Redis TIME) seenGen seenOnSaleAt → {'OK', serving, size, active, rate, cap, paused, onSaleAt, preSize, servingDraw, pacedRate, gen, backSize, now} | {'NO_CONFIG'}
 * rate: the organizer's; pacedRate: the pacer's (fans/min; '-1' when the event is not paced).
 * gen: the queue's generation; backSize: re-seated fans still waiting (all ahead of position serving + 1).
 * servingDraw: pre-queue fans whose draw is ≤ it have had their turn ('-1' none yet; 2^48 all of them).
 * It lets a pre-queue fan learn that its turn came from the public, cacheable status alone,
 * so the on-sale does not make every pre-queue fan ask for its own place at once.
 * One ZRANGE by rank: O(log N), the same for 30 and for 1,000,000 fans.
 */
export const STATUS = `${ADVANCE}
local servingDraw = '-1'
if preSize > 0 and serving >= preSize then servingDraw = '281474976710656'
elseif preSize > 0 and serving > 0 then servingDraw = redis.call('ZRANGE', pre, serving - 1, serving - 1, 'WITHSCORES')[2] end
return {'OK', serving, size, active, rate, cap, paused and 1 or 0, onSaleAt, preSize, servingDraw, pacedRate, gen, backSize, now}
`;

/**
 * Shared: the fan's position (0 = not in the queue; -k re-seated, see above) and, after the
 * on-sale, their state; `reseat(i)` re-seats from the ticket proof in ARGV[i..i+3]
 * (generation, order, on-sale ms, position; '' when no ticket) when the fan has no place.
 */
const FAN = `
local fan = ARGV[2]
local p = tonumber(redis.call('HGET', pos, fan) or '0')
local draw = '-1'
if p == 0 then
  local r = redis.call('ZRANK', pre, fan)
  if r then p = r + 1 draw = redis.call('ZSCORE', pre, fan) end
end
local function reseat(i)
  local tgen, order, tpos = ARGV[i] or '', tonumber(ARGV[i + 1] or ''), tonumber(ARGV[i + 3] or '')
  if p ~= 0 or tgen == '' or not order or not tpos or tonumber(ARGV[i + 2] or '') ~= onSaleAt then return end
  if now < onSaleAt then
    if order >= 281474976710656 then return end
    redis.call('ZADD', pre, 'NX', ARGV[i + 1], fan)
    p = redis.call('ZRANK', pre, fan) + 1
    draw = ARGV[i + 1]
    preSize = preSize + 1
    size = size + 1
    return
  end
  if tgen ~= gen then
    holdForBack()
  elseif tpos >= 0 then
    local q = tpos
    if order < 281474976710656 then q = redis.call('ZCOUNT', pre, '-inf', '(' .. ARGV[i + 1]) + 1 end
    if q > size then
      tail = q - preSize
      redis.call('HSET', st, 'tail', tail)
      redis.call('HSET', pos, fan, q)
      p = q
      size = q
      return
    end
    if q > serving then
      p = q
      if order < 281474976710656 then draw = ARGV[i + 1] end
      return
    end
  end
  local k = redis.call('HINCRBY', st, 'reseated', 1)
  redis.call('ZADD', back, ARGV[i + 1], k)
  redis.call('HSET', pos, fan, -k)
  p = -k
  backSize = backSize + 1
end
local function turnOver()
  if now < onSaleAt or p == 0 or (p > 0 and p > serving) or (p < 0 and redis.call('ZSCORE', back, -p)) then return false end
  return not redis.call('ZSCORE', slots, p)
end
local function fanReply(tag)
  local state, slotUntil, ahead = 'none', 0, 0
  if p ~= 0 then
    local lane = p < 0 and redis.call('ZRANK', back, -p)
    if now < onSaleAt then state = 'pre'
    elseif lane then state = 'waiting' ahead = lane
    elseif p > serving then state = 'waiting' ahead = p - serving - 1 + backSize
    else
      local score = redis.call('ZSCORE', slots, p)
      if score then state = 'admitted' slotUntil = tonumber(score) else state = 'expired' end
    end
  end
  local shown = p
  if state == 'pre' then shown = 0 end
  return {tag, state, shown, serving, size, pace, paused and 1 or 0, onSaleAt, slotUntil, draw, preSize, gen, ahead, now}
end
`;

/**
 * Join (idempotent). KEYS: the eight queue keys, then the caller's join counter (`wr:rl:<ip>`).
 * ARGV: now fanId drawKey rejoin(0/1) limit windowMs ticketGen ticketOrder ticketOnSaleAt ticketPosition seenGen seenOnSaleAt
 * After admission is brought up to date (and the configuration found: else NO_CONFIG, not
 * counted), the per-address limit, in the same call (the door's one Redis call per join):
 * at most `limit` joins per fixed `windowMs` window from one address for this event
 * ('0' = no limit) → {'LIMITED', msUntilTheWindowEnds}.
 * Before the on-sale: into the pre-queue with its draw: the first 48 bits of SHA-1(drawKey ":" onSaleAt),
 * drawKey being secret to the app and fixed per fan and event (./room.ts), so a fan's draw is fixed
 * for the on-sale: joining afresh (a cleared cookie, after a loss) draws the same.
 * After: appended in arrival order. `rejoin` gives a fan whose turn expired a new place at the back.
 * A fan without a place who presents a ticket of a lost generation is re-seated first (above).
 * → {'OK', state, position, serving, size, rate, paused, onSaleAt, slotUntil, draw, preSize, gen, ahead, now}
 *   rate: the rate in force (the pacer's when lower than the organizer's), for the fan's ETA.
 *   draw: the fan's pre-queue draw ('-1' when the fan joined after the on-sale); preSize: pre-queue fans.
 */
export const JOIN = `${ADVANCE}
local limit = tonumber(ARGV[5] or '0')
if limit > 0 then
  local n = redis.call('INCR', KEYS[9])
  if n == 1 then redis.call('PEXPIRE', KEYS[9], ARGV[6]) end
  if n > limit then return {'LIMITED', redis.call('PTTL', KEYS[9])} end
end
${FAN}
reseat(7)
if p ~= 0 and not (ARGV[4] == '1' and turnOver()) then return fanReply('OK') end
if now < onSaleAt then
  draw = string.format('%.0f', tonumber(string.sub(redis.sha1hex(ARGV[3] .. ':' .. onSaleAt), 1, 12), 16))
  redis.call('ZADD', pre, 'NX', draw, fan)
  p = redis.call('ZRANK', pre, fan) + 1
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

/** The fan's own state without joining (re-seated by its ticket when Redis lost its place). ARGV: now fanId ticketGen ticketOrder ticketOnSaleAt ticketPosition seenGen seenOnSaleAt → same shape as JOIN. */
export const FAN_STATUS = `${ADVANCE}${FAN}
reseat(3)
return fanReply('OK')
`;

/**
 * Change when the fan's slot frees. ARGV: now fanId untilMs ('0' = free it now) maxHolds seenGen seenOnSaleAt.
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
