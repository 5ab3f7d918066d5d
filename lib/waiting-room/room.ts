/**
 * The waiting room's operations on Redis (docs/design.md, "Waiting room"), runtime-neutral:
 * no Node API and no database, so the door (lib/door/handler.ts) can run them on Node or at
 * an edge runtime with Upstash REST. The caller passes a {@link RoomStore}: the Redis client
 * and how to restore an event's configuration when Redis has lost it (the app restores it
 * from Postgres: ./queue.ts). Every call is one Lua script over one event's keys (./lua.ts), so its
 * work does not depend on the queue's length.
 *
 * One clock (docs/adr/0024): admission, slot expiry and the on-sale's start are decided by
 * Redis's `TIME` inside the script, never by the calling process's clock. The optional `now`
 * (ms) of each operation is a test's simulated Redis clock, so admission can be tested without
 * sleeping; production callers pass nothing.
 */
import type { Redis } from "@upstash/redis";
import { RateLimitedError } from "@/lib/errors";
import { eventKey, scriptOn } from "@/lib/redis-core";
import { hmacSha256Base64Url, sha256 } from "@/lib/signing";
import { queueKeys } from "@/lib/waiting-room/keys";
import { FAN_STATUS, JOIN, SET_SLOT, STATUS } from "@/lib/waiting-room/lua";

/** Where the queue lives: the Redis client, how to put an event's configuration back into it, and the app secret. */
export interface RoomStore {
  redis: Redis;
  /** The app secret (BETTER_AUTH_SECRET): a fan's pre-queue draw is derived from it ({@link drawKey}). */
  secret: string;
  /** Writes the event's queue configuration (the `cfg` hash) from its source of truth. */
  restoreConfig(eventId: string): Promise<void>;
}

/** What anyone may see (and a CDN may cache). Counts are positions; rate in fans per minute; instants in ms. */
export interface PublicQueueStatus {
  servingCounter: number;
  queueLength: number;
  active: number;
  ratePerMinute: number;
  /** The organizer's cap on fans shopping at once. */
  activeCap: number;
  /**
   * The admission pacer's rate (fans/min, ./pacing.ts; in force when below `ratePerMinute`):
   * how fast the shop takes new fans with its hold latency on target; null when the event is
   * not paced.
   */
  pacedRate: number | null;
  paused: boolean;
  onSaleAt: number;
  /** The queue's clock (Redis's TIME, ms) when this status was computed. */
  now: number;
  /** Fans in the pre-queue (their places are drawn at the on-sale). */
  preQueueSize: number;
  /**
   * Pre-queue fans whose `draw` is ≤ this have had their turn: -1 none yet, DRAW_RANGE
   * (lib/waiting-room/draw.ts) all of them. A pre-queue fan compares it with its own draw, so nobody has to ask for
   * their own place the moment the on-sale opens.
   */
  servingDraw: number;
  /**
   * The queue's generation: made when Redis first holds the queue, and again when Redis lost
   * it. A queue ticket of another generation names a place in a queue that no longer exists:
   * its fan asks for its own status, which re-seats it (docs/adr/0028).
   */
  generation: string;
  /** Fans re-seated from a lost generation still waiting: all of them are let in before position `servingCounter + 1`. */
  returning: number;
}

/**
 * The fan's own place. `position` is 0 before the on-sale (the draw happens then) and when not
 * in the queue; negative for a fan re-seated from a lost generation (its turn does not follow
 * the serving counter but comes before it: `ahead` says how far it is).
 */
export interface FanQueueStatus {
  state: "none" | "pre" | "waiting" | "admitted" | "expired";
  position: number;
  servingCounter: number;
  queueLength: number;
  /** The admission rate in force (fans/min: the pacer's when lower than the organizer's), which the ETA follows. */
  ratePerMinute: number;
  paused: boolean;
  onSaleAt: number;
  /** When the admission slot frees (ms), for admitted fans; the admission token expires then. */
  admittedUntil: number | null;
  /** Fans ahead of this one (0 when admitted). */
  ahead: number;
  /** Estimated seconds until admission at the current rate, or null when unknown (paused, not in the queue). */
  etaSeconds: number | null;
  /** The fan's pre-queue draw (integer in [0, 2^48)), or null when the fan joined after the on-sale. */
  draw: number | null;
  /** Fans in the pre-queue. */
  preQueueSize: number;
  /** The queue's generation the place belongs to (PublicQueueStatus.generation). */
  generation: string;
}

/**
 * What a queue ticket proves about a fan's place in an earlier generation of the queue
 * (./ticket.ts `reseatProof`): the generation, the fan's order in it (its draw, or
 * DRAW_RANGE + its position) and the on-sale it was for. Passed with a join or status read,
 * it re-seats a fan who has no place in the current generation (./lua.ts).
 */
export interface ReseatProof {
  generation: string;
  order: number;
  onSaleAt: number;
  /** The ticket's place: > 0 a number in the queue, 0 a pre-queue place not drawn yet, < 0 a re-seated place. */
  position: number;
}

/**
 * The generation of an event's queue a caller last saw, for the on-sale it belonged to: when
 * Redis has lost the queue, the script that makes the new generation learns from it that one
 * was lost, and holds the serving counter for the re-seat window (./lua.ts). The door keeps one
 * per event.
 */
export interface SeenGeneration {
  generation: string;
  onSaleAt: number;
}

/** A per-address join limit: at most `max` joins per fixed window of `windowMs` from `address`, for one event. */
export interface JoinLimit {
  address: string;
  max: number;
  windowMs: number;
}

/**
 * Runs a queue script at `now` (a test's simulated clock; undefined: Redis's TIME, sent as '');
 * restores the configuration once if Redis lost it.
 */
async function run(store: RoomStore, script: string, eventId: string, now: number | undefined, args: (string | number)[], extraKeys: string[] = [], seen?: SeenGeneration): Promise<(string | number)[]> {
  const lua = scriptOn<(string | number)[]>(store.redis, script);
  const keys = [...queueKeys(eventId), ...extraKeys];
  const argv = [now === undefined ? "" : String(now), ...args.map(String), seen?.generation ?? "", seen ? String(seen.onSaleAt) : ""];
  let reply = await lua.exec(keys, argv);
  if (reply[0] === "NO_CONFIG") {
    await store.restoreConfig(eventId);
    reply = await lua.exec(keys, argv);
  }
  return reply;
}

/** Seconds until a fan `ahead` places back is admitted at `ratePerMinute` (≥ 1 fan/min). */
export const etaSecondsFor = (ahead: number, ratePerMinute: number) => Math.ceil(((ahead + 1) * 60) / Math.max(1, ratePerMinute));

/** The ARGV of a re-seat proof ('' × 4: none). */
const proofArgs = (proof: ReseatProof | undefined) => (proof ? [proof.generation, proof.order, proof.onSaleAt, proof.position] : ["", "", "", ""]);

/** A JOIN / FAN_STATUS reply as the fan's status; its pre-queue ETA is counted from the reply's own `now` (Redis's clock). */
function toFanStatus(r: (string | number)[]): FanQueueStatus {
  const [, state, position, serving, size, rate, paused, onSaleAt, slotUntil, draw, preSize, generation, behind, now] = r;
  const p = Number(position);
  const s = Number(serving);
  const ahead = state === "waiting" ? Math.max(0, Number(behind)) : 0;
  return {
    state: state as FanQueueStatus["state"],
    position: p,
    servingCounter: s,
    queueLength: Number(size),
    ratePerMinute: Number(rate),
    paused: Number(paused) === 1,
    onSaleAt: Number(onSaleAt),
    admittedUntil: state === "admitted" ? Number(slotUntil) : null,
    ahead,
    etaSeconds: state === "waiting" && Number(paused) !== 1 ? etaSecondsFor(ahead, Number(rate)) : state === "pre" ? Math.max(0, Math.ceil((Number(onSaleAt) - Number(now)) / 1000)) : null,
    draw: Number(draw) >= 0 ? Number(draw) : null,
    preQueueSize: Number(preSize),
    generation: String(generation),
  };
}

let cachedDrawSecret: { secret: string; key: Uint8Array } | undefined;

/**
 * The fan's draw key for one event: HMAC-SHA256(SHA-256(secret ":queue-draws"), eventId ":" fanId).
 * The join's script draws from it and the on-sale (./lua.ts JOIN: 48 bits of SHA-1(drawKey ":"
 * onSaleAt), uniform in [0, DRAW_RANGE)), so a fan has one draw per event and on-sale however
 * often it joins — a cleared cookie or a lost queue draws the same — and, the secret being the
 * server's, cannot compute it, nor choose a fan id that draws well.
 */
export function drawKey(secret: string, eventId: string, fanId: string): string {
  if (cachedDrawSecret?.secret !== secret) cachedDrawSecret = { secret, key: sha256(`${secret}:queue-draws`) };
  return hmacSha256Base64Url(cachedDrawSecret.key, `${eventId}:${fanId}`);
}

/**
 * Joins the fan to the event's queue, or returns their existing place (idempotent: reload,
 * new tab, another device). Before the on-sale the fan enters the pre-queue with a random
 * rank drawn server-side (I7: {@link drawKey}, fixed per fan and on-sale); after it, the fan is
 * appended in arrival order.
 * @param opts.rejoin a fan whose turn expired gets a new place at the back.
 * @param opts.limit the per-address join limit, checked in the same Redis call.
 * @param opts.reseat the fan's queue ticket's proof: a fan whose place Redis lost is re-seated by it.
 * @param opts.seen the generation the caller last saw (a lost one holds the new queue's counter for the re-seat window).
 * @param opts.now a test's simulated Redis clock (ms); production passes none.
 * @throws {RateLimitedError} 429 when `opts.limit` is exceeded.
 */
export async function joinRoom(store: RoomStore, eventId: string, fanId: string, opts: { now?: number; rejoin?: boolean; limit?: JoinLimit; reseat?: ReseatProof; seen?: SeenGeneration } = {}): Promise<FanQueueStatus> {
  const limit = opts.limit;
  const reply = await run(
    store,
    JOIN,
    eventId,
    opts.now,
    [fanId, drawKey(store.secret, eventId, fanId), opts.rejoin ? 1 : 0, limit?.max ?? 0, limit?.windowMs ?? 0, ...proofArgs(opts.reseat)],
    [eventKey(eventId, "wr", "rl", limit?.address ?? "-")],
    opts.seen,
  );
  if (reply[0] === "LIMITED") throw new RateLimitedError(Math.max(1, Math.ceil(Number(reply[1]) / 1000)));
  return toFanStatus(reply);
}

/**
 * The fan's own place without joining.
 * @param opts.reseat its queue ticket's proof: re-seats a fan whose place Redis lost.
 * @param opts.seen the generation the caller last saw ({@link joinRoom}).
 * @param opts.now a test's simulated Redis clock (ms); production passes none.
 */
export async function fanRoomStatus(store: RoomStore, eventId: string, fanId: string, opts: { now?: number; reseat?: ReseatProof; seen?: SeenGeneration } = {}): Promise<FanQueueStatus> {
  return toFanStatus(await run(store, FAN_STATUS, eventId, opts.now, [fanId, ...proofArgs(opts.reseat)], [], opts.seen));
}

/**
 * The public status: constant Redis work whatever the queue's length. `now`: a test's simulated Redis clock (ms);
 * `seen`: the generation the caller last saw ({@link joinRoom}).
 */
export async function publicRoomStatus(store: RoomStore, eventId: string, now?: number, seen?: SeenGeneration): Promise<PublicQueueStatus> {
  const [, serving, size, active, rate, cap, paused, onSaleAt, preSize, servingDraw, pacedRate, generation, returning, at] = await run(store, STATUS, eventId, now, [], [], seen);
  return {
    servingCounter: Number(serving),
    queueLength: Number(size),
    active: Number(active),
    ratePerMinute: Number(rate),
    activeCap: Number(cap),
    pacedRate: Number(pacedRate ?? -1) > 0 ? Number(pacedRate) : null,
    paused: Number(paused) === 1,
    onSaleAt: Number(onSaleAt),
    now: Number(at),
    preQueueSize: Number(preSize),
    servingDraw: Number(servingDraw),
    generation: String(generation),
    returning: Number(returning ?? 0),
  };
}

/**
 * How many holds of one turn may extend its slot (a hold keeps the fan "shopping" until
 * it ends): enough to change one's mind twice, not to park seats and a slot indefinitely.
 */
const MAX_HOLDS_PER_TURN = 3;

/**
 * Moves when the fan's slot frees: `untilMs` 0 frees it now; a later instant extends it
 * (never shortens; only the turn's first {@link MAX_HOLDS_PER_TURN} holds extend it).
 * @param now a test's simulated Redis clock (ms); production passes none.
 * @returns whether a slot was freed, and whether it was extended.
 */
export async function setRoomSlot(store: RoomStore, eventId: string, fanId: string, untilMs: number, now?: number): Promise<{ freed: boolean; extended: boolean }> {
  const [, freed, extended] = await run(store, SET_SLOT, eventId, now, [fanId, untilMs, MAX_HOLDS_PER_TURN]);
  return { freed: Number(freed) === 1, extended: Number(extended) === 1 };
}
