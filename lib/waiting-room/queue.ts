/**
 * The waiting room as the app's Node code uses it: ./room.ts's operations on the process's
 * Redis client, with the configuration restored from Postgres (./config.ts, its one owner)
 * when Redis has lost it. The door (lib/door/) calls ./room.ts with a store of its own.
 * Every `now` here (ms) is a test's simulated Redis clock; production passes none, and
 * Redis's TIME decides (docs/adr/0024).
 */
import type { Db } from "@/lib/db";
import { env } from "@/lib/env";
import { redis } from "@/lib/redis";
import { syncQueueConfig } from "@/lib/waiting-room/config";
import { fanRoomStatus, joinRoom, publicRoomStatus, setRoomSlot, type FanQueueStatus, type JoinLimit, type PublicQueueStatus, type RoomStore } from "@/lib/waiting-room/room";


/** The app's room store: the process's Redis, configuration restored from `db`, the app secret. */
export function appRoomStore(db: Db): RoomStore {
  return { redis: redis(), secret: env().BETTER_AUTH_SECRET, restoreConfig: (eventId) => syncQueueConfig(db, eventId) };
}

/** {@link joinRoom} on the app's store: joins (idempotent), or returns the fan's existing place. */
export function joinQueue(db: Db, eventId: string, fanId: string, opts: { now?: number; rejoin?: boolean; limit?: JoinLimit } = {}): Promise<FanQueueStatus> {
  return joinRoom(appRoomStore(db), eventId, fanId, opts);
}

/** The fan's own place without joining. */
export function fanQueueStatus(db: Db, eventId: string, fanId: string, now?: number): Promise<FanQueueStatus> {
  return fanRoomStatus(appRoomStore(db), eventId, fanId, { now });
}

/** The public status: constant Redis work whatever the queue's length. */
export function publicQueueStatus(db: Db, eventId: string, now?: number): Promise<PublicQueueStatus> {
  return publicRoomStatus(appRoomStore(db), eventId, now);
}

/**
 * Keeps the fan's slot busy until `untilMs` (a hold in progress). Never shortens it; only
 * the turn's first few holds extend it (./room.ts `setRoomSlot`).
 * @returns true when the slot was extended.
 */
export async function extendSlot(db: Db, eventId: string, fanId: string, untilMs: number, now?: number): Promise<boolean> {
  return (await setRoomSlot(appRoomStore(db), eventId, fanId, untilMs, now)).extended;
}

/** Frees the fan's slot now (they bought, or left). @returns true when a slot was freed. */
export async function freeSlot(db: Db, eventId: string, fanId: string, now?: number): Promise<boolean> {
  return (await setRoomSlot(appRoomStore(db), eventId, fanId, 0, now)).freed;
}
