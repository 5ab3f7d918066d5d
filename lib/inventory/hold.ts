/**
 * Redis side of holds: claim seats atomically (explicit seats, or best-available N in a
 * price level), release a hold only by its id, confirm a hold into sold seats, and list
 * expired holds for the sweep. Postgres is written by lib/orders; this module only
 * talks to Redis, through the Lua in ./lua.ts.
 */
import { holdKey, inventoryKeys, rowsKey, scriptKeys } from "@/lib/inventory/keys";
import { ADOPT_HOLD, CONFIRM_HOLD, HOLD_BEST_AVAILABLE, HOLD_SEATS, RELEASE_HOLD } from "@/lib/inventory/lua";
import { FanLimitError, InventoryNotReadyError, NotEnoughSeatsError, QueueRestartedError, SeatsTakenError, SlotEndedError } from "@/lib/inventory/errors";
import { luaScript, redis } from "@/lib/redis";
import { eq } from "drizzle-orm";
import { orders } from "@/db/schema";
import type { Db } from "@/lib/db";
import { certainlyRolledBack } from "@/lib/errors";

/** What a fan asks to hold. Ordinals are the venue's seat ordinals (bit positions in the availability bitset). */
export type HoldRequest = { kind: "seats"; ordinals: number[] } | { kind: "best"; priceLevelId: string; quantity: number };

/** Parameters of one hold attempt. `expiresAt` is the hold's end; `perFanLimit` the show's limit (I6). */
export interface RedisHoldInput {
  eventId: string;
  holdId: string;
  fanId: string;
  expiresAt: Date;
  perFanLimit: number;
  request: HoldRequest;
  /**
   * The fan's admission slot, checked in the same Lua call: the waiting room's `slots` ZSET
   * key and state hash key (same hash tag as the inventory), and the position and queue
   * generation the admission token names. The generation must be the queue's and the slot
   * still running, or the hold is refused ({@link SlotEndedError}).
   * Omitted for holds no fan asked for (a late payment's re-claim).
   */
  slot?: { key: string; stateKey: string; position: number; generation: string };
}

const scripts = () => ({
  seats: luaScript<string[]>(HOLD_SEATS),
  best: luaScript<string[]>(HOLD_BEST_AVAILABLE),
  release: luaScript<string[]>(RELEASE_HOLD),
  confirm: luaScript<string[]>(CONFIRM_HOLD),
  adopt: luaScript<string[]>(ADOPT_HOLD),
});

/**
 * Claims seats in Redis, all or nothing.
 * @returns the held ordinals, ascending.
 * @throws {SeatsTakenError} a requested seat is not free; its `unowned` ordinals are not held by anyone, so they
 *   may not be on sale in this show (the caller asks Postgres which);
 *   {NotEnoughSeatsError}; {FanLimitError}; {InventoryNotReadyError} when Redis has no inventory for the event;
 *   {SlotEndedError} when `slot` is given and no longer running; {QueueRestartedError} when it is
 *   of a queue Redis lost (another generation).
 */
export async function holdInRedis(input: RedisHoldInput): Promise<number[]> {
  const { eventId, holdId, fanId, expiresAt, perFanLimit, request, slot } = input;
  const checked = slot && slot.position !== 0 ? slot : undefined;
  const slotKeys = checked ? [checked.stateKey, checked.key] : [];
  const keys = scriptKeys(eventId, holdId);
  const common = [holdId, fanId, String(expiresAt.getTime()), String(perFanLimit), String(checked?.position ?? 0), checked?.generation ?? ""];
  const s = scripts();
  const reply =
    request.kind === "seats"
      ? await s.seats.exec([...keys, ...slotKeys], [...common, ...request.ordinals.map(String)])
      : await s.best.exec([...keys, rowsKey(eventId, request.priceLevelId), ...slotKeys], [...common, String(request.quantity)]);
  const [status, ...rest] = reply.map(String);
  switch (status) {
    case "OK":
      return rest.map(Number).sort((a, b) => a - b);
    case "TAKEN":
      // '?<ordinal>': no hold owns the seat (HOLD_SEATS), so it may not be on sale in this show at all.
      throw new SeatsTakenError(
        rest.map((o) => Number(o.replace("?", ""))),
        rest.filter((o) => o.startsWith("?")).map((o) => Number(o.slice(1))),
      );
    case "FAN_LIMIT":
      throw new FanLimitError(perFanLimit, Number(rest[0]));
    case "NOT_ENOUGH":
      throw new NotEnoughSeatsError(request.kind === "best" ? request.quantity : 0, Number(rest[0]), false);
    case "NOT_TOGETHER":
      throw new NotEnoughSeatsError(request.kind === "best" ? request.quantity : 0, Number(rest[0]), true);
    case "NOT_READY":
      throw new InventoryNotReadyError();
    case "NO_SLOT":
      throw new SlotEndedError();
    case "QUEUE_RESTARTED":
      throw new QueueRestartedError();
    default:
      throw new Error(`Unexpected hold reply from Redis: ${reply.join(" ")}`);
  }
}

/**
 * Releases a hold's seats back to sale, only where the seat still belongs to this hold.
 * @returns "released" (with the count), "unknown" (no such hold: already released), or "sold" (refused: the hold was confirmed).
 */
export async function releaseInRedis(eventId: string, holdId: string): Promise<{ result: "released"; seats: number } | { result: "unknown" | "sold" }> {
  const r = await freeHoldSeats(eventId, holdId, "held");
  return r.result === "wrong_status" ? { result: "sold" } : r;
}

/**
 * After the Postgres write that records a Redis hold failed (a new order's, a late payment's
 * re-claim): frees the hold unless an order may name it after all.
 * When the write certainly did not commit ({@link certainlyRolledBack}: Postgres refused it, or it
 * never reached Postgres) the seats go back at once. Otherwise (a deadline, a connection lost while the COMMIT was on
 * its way) the order is looked up by its hold id first: a write that did commit keeps its seats
 * held in Redis — freeing them would leave seats Postgres holds free in Redis, the drift that lets
 * two fans claim one seat (found as `redisMismatches` after an on-sale through PgBouncer on
 * saturated cores). If the look-up fails too, the Redis hold stays: the reconciliation's drift
 * pass drops a Redis hold that no order names once it is older than IN_FLIGHT_HOLD_MS
 * (lib/reconciliation/reconcile.ts), the safe direction (a seat unsold for a while, never twice).
 * @returns what was done: "released", "kept" (the order exists) or "left" (could not tell).
 */
export async function releaseUnlessWritten(db: Db, eventId: string, holdId: string, error: unknown): Promise<"released" | "kept" | "left"> {
  if (!certainlyRolledBack(error)) {
    const found = await db
      .select({ id: orders.id })
      .from(orders)
      .where(eq(orders.holdId, holdId))
      .then((rows) => rows.length > 0, () => null);
    if (found === null) return "left";
    if (found) return "kept";
  }
  await releaseInRedis(eventId, holdId);
  return "released";
}

/**
 * Frees the seats of a hold in the `expected` state (see RELEASE_HOLD). Refunds call it
 * with "sold"; everything else goes through {@link releaseInRedis}.
 */
export async function freeHoldSeats(
  eventId: string,
  holdId: string,
  expected: "held" | "sold",
): Promise<{ result: "released"; seats: number } | { result: "unknown" } | { result: "wrong_status"; status: string }> {
  const [status, detail] = (await scripts().release.exec(scriptKeys(eventId, holdId), [holdId, expected])).map(String);
  if (status === "OK") return { result: "released", seats: Number(detail) };
  if (status === "WRONG_STATUS") return { result: "wrong_status", status: detail ?? "" };
  return { result: "unknown" };
}

/**
 * Turns a hold's seats into sold seats. Idempotent.
 * @returns "confirmed"; "unknown" when the hold is gone (released after expiry); or the seats that now belong to someone else.
 */
export async function confirmInRedis(eventId: string, holdId: string): Promise<{ result: "confirmed" | "unknown" } | { result: "lost"; ordinals: number[] }> {
  const [status, ...rest] = (await scripts().confirm.exec(scriptKeys(eventId, holdId), [holdId])).map(String);
  if (status === "OK") return { result: "confirmed" };
  if (status === "LOST") return { result: "lost", ordinals: rest.map(Number) };
  return { result: "unknown" };
}

/**
 * Claims in Redis, for a hold Postgres has live, those of its seats that Redis has free and
 * nobody's (ADOPT_HOLD in ./lua.ts); seats another hold owns are left alone.
 * @param hold the hold as Postgres has it: fan, expiry (ms since the epoch), status, seat ordinals
 * @returns the number of seats claimed
 */
export async function adoptInRedis(eventId: string, hold: { id: string; fan: string; expires: number; status: "held" | "sold"; seats: number[] }): Promise<number> {
  const [, claimed] = (await scripts().adopt.exec(scriptKeys(eventId, hold.id), [hold.id, hold.fan, String(hold.expires), hold.status, ...hold.seats.map(String)])).map(String);
  return Number(claimed ?? 0);
}

/** The Redis record of one hold, or null. */
export async function readHold(eventId: string, holdId: string): Promise<{ fan: string; seats: number[]; expires: number; status: string } | null> {
  const h = await redis().hgetall<Record<string, string | number>>(holdKey(eventId, holdId));
  if (!h || !h.fan) return null;
  return { fan: String(h.fan), seats: String(h.seats).split(",").filter(Boolean).map(Number), expires: Number(h.expires), status: String(h.status) };
}

/**
 * How many of a show's seats a fan holds or has bought, as the hold's Lua counts them against the
 * per-fan limit (the inventory's `fan` hash behind FAN_LIMIT, I6): what a new hold would be refused by.
 */
export async function fanLiveSeats(eventId: string, fanId: string): Promise<number> {
  return Number((await redis().hget<string | number>(inventoryKeys(eventId).fan, fanId)) ?? 0);
}
