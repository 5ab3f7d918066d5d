/**
 * The waiting room (docs/design.md, "Waiting room"): join, public status, the fan's own
 * status and slots. All state is in Redis under the event's hash tag; the configuration
 * (./config.ts, its one owner) comes from Postgres and is re-synced when Redis has lost
 * it. Time is injected (`now`, ms) so admission can be tested without sleeping.
 */
import { randomInt } from "node:crypto";
import type { Db } from "@/lib/db";
import { luaScript } from "@/lib/redis";
import { syncQueueConfig } from "@/lib/waiting-room/config";
import { DRAW_RANGE } from "@/lib/waiting-room/draw";
import { queueKeys } from "@/lib/waiting-room/keys";
import { FAN_STATUS, JOIN, SET_SLOT, STATUS } from "@/lib/waiting-room/lua";

/** What anyone may see (and a CDN may cache). Counts are positions; rate in fans per minute; instants in ms. */
export interface PublicQueueStatus {
  servingCounter: number;
  queueLength: number;
  active: number;
  ratePerMinute: number;
  activeCap: number;
  paused: boolean;
  onSaleAt: number;
  now: number;
  /** Fans in the pre-queue (their places are drawn at the on-sale). */
  preQueueSize: number;
  /**
   * Pre-queue fans whose `draw` is ≤ this have had their turn: -1 none yet, DRAW_RANGE
   * (lib/waiting-room/draw.ts) all of them. A pre-queue fan compares it with its own draw, so nobody has to ask for
   * their own place the moment the on-sale opens.
   */
  servingDraw: number;
}

/** The fan's own place. `position` is 0 before the on-sale (the draw happens then) and when not in the queue. */
export interface FanQueueStatus {
  state: "none" | "pre" | "waiting" | "admitted" | "expired";
  position: number;
  servingCounter: number;
  queueLength: number;
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
}



/** Runs a queue script; syncs the configuration from Postgres once if Redis lost it. */
async function run(db: Db, script: string, eventId: string, args: (string | number)[]): Promise<(string | number)[]> {
  const exec = () => luaScript<(string | number)[]>(script).exec(queueKeys(eventId), args.map(String));
  let reply = await exec();
  if (reply[0] === "NO_CONFIG") {
    await syncQueueConfig(db, eventId);
    reply = await exec();
  }
  return reply;
}

function toFanStatus(r: (string | number)[], now: number): FanQueueStatus {
  const [, state, position, serving, size, rate, paused, onSaleAt, slotUntil, draw, preSize] = r;
  const p = Number(position);
  const s = Number(serving);
  const ahead = state === "waiting" ? Math.max(0, p - s - 1) : 0;
  const r2 = Number(rate);
  return {
    state: state as FanQueueStatus["state"],
    position: p,
    servingCounter: s,
    queueLength: Number(size),
    ratePerMinute: r2,
    paused: Number(paused) === 1,
    onSaleAt: Number(onSaleAt),
    admittedUntil: state === "admitted" ? Number(slotUntil) : null,
    ahead,
    etaSeconds:
      state === "waiting" && Number(paused) !== 1 ? Math.ceil(((ahead + 1) * 60) / r2) : state === "pre" ? Math.max(0, Math.ceil((Number(onSaleAt) - now) / 1000)) : null,
    draw: Number(draw) >= 0 ? Number(draw) : null,
    preQueueSize: Number(preSize),
  };
}

/**
 * Joins the fan to the event's queue, or returns their existing place (idempotent: reload,
 * new tab, another device). Before the on-sale the fan enters the pre-queue with a random
 * rank drawn now, server-side (I7); after it, the fan is appended in arrival order.
 * @param opts.rejoin a fan whose turn expired gets a new place at the back.
 */
export async function joinQueue(db: Db, eventId: string, fanId: string, opts: { now?: number; rejoin?: boolean } = {}): Promise<FanQueueStatus> {
  const now = opts.now ?? Date.now();
  // 48 random bits: ties between 10^6 fans are vanishingly rare, and ZSET breaks them by member.
  const score = randomInt(0, DRAW_RANGE - 1);
  return toFanStatus(await run(db, JOIN, eventId, [now, fanId, score, opts.rejoin ? 1 : 0]), now);
}

/** The fan's own place without joining. */
export async function fanQueueStatus(db: Db, eventId: string, fanId: string, now = Date.now()): Promise<FanQueueStatus> {
  return toFanStatus(await run(db, FAN_STATUS, eventId, [now, fanId]), now);
}

/** The public status: constant Redis work whatever the queue's length. */
export async function publicQueueStatus(db: Db, eventId: string, now = Date.now()): Promise<PublicQueueStatus> {
  const [, serving, size, active, rate, cap, paused, onSaleAt, preSize, servingDraw] = await run(db, STATUS, eventId, [now]);
  return {
    servingCounter: Number(serving),
    queueLength: Number(size),
    active: Number(active),
    ratePerMinute: Number(rate),
    activeCap: Number(cap),
    paused: Number(paused) === 1,
    onSaleAt: Number(onSaleAt),
    now,
    preQueueSize: Number(preSize),
    servingDraw: Number(servingDraw),
  };
}

/**
 * How many holds of one turn may extend its slot (a hold keeps the fan "shopping" until
 * it ends): enough to change one's mind twice, not to park seats and a slot indefinitely.
 */
const MAX_HOLDS_PER_TURN = 3;

/**
 * Keeps the fan's slot busy until `untilMs` (a hold in progress). Never shortens it; only
 * the turn's first {@link MAX_HOLDS_PER_TURN} holds extend it.
 * @returns true when the slot was extended.
 */
export async function extendSlot(db: Db, eventId: string, fanId: string, untilMs: number, now = Date.now()): Promise<boolean> {
  const [, , extended] = await run(db, SET_SLOT, eventId, [now, fanId, untilMs, MAX_HOLDS_PER_TURN]);
  return Number(extended) === 1;
}

/** Frees the fan's slot now (they bought, or left). @returns true when a slot was freed. */
export async function freeSlot(db: Db, eventId: string, fanId: string, now = Date.now()): Promise<boolean> {
  const [, freed] = await run(db, SET_SLOT, eventId, [now, fanId, 0, MAX_HOLDS_PER_TURN]);
  return Number(freed) === 1;
}

