/**
 * Seat availability of one event as a bitset: bit i (seat ordinal i) is 1 when the seat
 * is on sale and free. Bit order is Redis's (SETBIT/GETBIT): bit 0 is the most
 * significant bit of byte 0, so the same bytes can later come straight from a Redis
 * bitmap. 20,000 seats → 2,500 bytes → ~3.3 kB base64.
 *
 * Served from the Redis inventory's free bitmap (what the hold path itself decides on):
 * one small Lua call instead of reading every free seat row from Postgres, which during a
 * simulated on-sale cost tens of milliseconds per call. Postgres answers while the Redis
 * inventory is not built (after a flush, until the next rebuild).
 *
 * Every figure a fan reads about free seats comes from here — the map's bitset, the show
 * page's price table ({@link levelAvailability}) and the home page's count ({@link freeSeatCounts})
 * — so they agree (issue 42: the table counted Postgres rows in a page cached for minutes).
 */
import { and, asc, eq } from "drizzle-orm";
import { eventSeats, events, seats, venues } from "@/db/schema";
import type { Db } from "@/lib/db";
import { countByLevel, decodeBits, getBit, setBit } from "@/lib/inventory/availability-bits";
import { inventoryKeys } from "@/lib/inventory/keys";
import { AVAILABILITY } from "@/lib/inventory/lua";
import { dependencyOf } from "@/lib/errors";
import { luaScript } from "@/lib/redis";

export { getBit, setBit };

/** The free bitmap's count, when the event's Redis inventory is built. */
const FREE_COUNT = `
if redis.call('HGET', KEYS[1], 'ready') ~= '1' then return {'NOT_READY'} end
return {'OK', redis.call('BITCOUNT', KEYS[2])}
`;

/** Availability snapshot. `bits` is base64 of ceil(capacity / 8) bytes. */
export interface Availability {
  eventId: string;
  capacity: number;
  available: number;
  bits: string;
  at: string;
  /** Where the snapshot came from: the Redis inventory, or Postgres while Redis is not built. */
  source: "redis" | "postgres";
}

/**
 * The event's availability (Redis, else Postgres), or null for an unknown event. With
 * `orPostgresWhenRedisIsDown`, a Redis outage is answered from Postgres too: for the pages, whose
 * figures are a snapshot the browser refreshes (the map's API keeps its fast 503).
 */
export async function getAvailability(db: Db, eventId: string, opts: { orPostgresWhenRedisIsDown?: boolean } = {}): Promise<Availability | null> {
  const [row] = await db
    .select({ capacity: venues.capacity })
    .from(events)
    .innerJoin(venues, eq(events.venueId, venues.id))
    .where(eq(events.id, eventId))
    .limit(1);
  if (!row) return null;
  const k = inventoryKeys(eventId);
  const [status, hex, count] = await luaScript<(string | number)[]>(AVAILABILITY)
    .exec([k.meta, k.free], [])
    .catch((e: unknown) => {
      if (opts.orPostgresWhenRedisIsDown && dependencyOf(e) === "redis") return ["REDIS_DOWN"];
      throw e;
    });
  if (status === "OK") {
    const bytes = new Uint8Array(Math.ceil(row.capacity / 8));
    bytes.set(Buffer.from(String(hex).slice(1), "hex").subarray(0, bytes.length));
    return { eventId, capacity: row.capacity, available: Number(count), bits: Buffer.from(bytes).toString("base64"), at: new Date().toISOString(), source: "redis" };
  }
  const free = await db
    .select({ ordinal: seats.ordinal })
    .from(eventSeats)
    .innerJoin(seats, eq(eventSeats.seatId, seats.id))
    .where(and(eq(eventSeats.eventId, eventId), eq(eventSeats.status, "available")));
  const bytes = new Uint8Array(Math.ceil(row.capacity / 8));
  for (const { ordinal } of free) setBit(bytes, ordinal);
  return { eventId, capacity: row.capacity, available: free.length, bits: Buffer.from(bytes).toString("base64"), at: new Date().toISOString(), source: "postgres" };
}

/** One price level's seats on sale and free seats. */
export interface LevelFigures {
  total: number;
  available: number;
}

/** Free seats per price level, from one availability snapshot (`at`, ISO), keyed by price level id. */
export interface LevelAvailability {
  at: string;
  source: Availability["source"];
  levels: Map<string, LevelFigures>;
}

/**
 * The event's free seats per price level, counted from the same snapshot the seat map draws
 * ({@link getAvailability}) with the same code the browser counts it with
 * (./availability-bits.ts `countByLevel`). @returns null for an unknown event.
 */
export async function levelAvailability(db: Db, eventId: string): Promise<LevelAvailability | null> {
  const [availability, onSale] = await Promise.all([
    getAvailability(db, eventId, { orPostgresWhenRedisIsDown: true }),
    db
      .select({ ordinal: seats.ordinal, priceLevelId: eventSeats.priceLevelId })
      .from(eventSeats)
      .innerJoin(seats, eq(eventSeats.seatId, seats.id))
      .where(eq(eventSeats.eventId, eventId))
      .orderBy(asc(eventSeats.priceLevelId)),
  ]);
  if (!availability) return null;
  const ids = [...new Set(onSale.map((s) => s.priceLevelId))];
  const index = new Map(ids.map((id, i) => [id, i]));
  const levelOfSeat = new Int32Array(availability.capacity).fill(-1);
  for (const s of onSale) levelOfSeat[s.ordinal] = index.get(s.priceLevelId)!;
  const counts = countByLevel(decodeBits(availability.bits), levelOfSeat, ids.length);
  return { at: availability.at, source: availability.source, levels: new Map(ids.map((id, i) => [id, { total: counts.total[i]!, available: counts.free[i]! }])) };
}

/**
 * The number of free seats of each event, from its Redis inventory's free bitmap (what the map
 * draws): one small call per event. An event whose inventory is not built (or Redis is down) is missing from the
 * answer (the caller counts it in Postgres, as {@link getAvailability} does).
 */
export async function freeSeatCounts(eventIds: readonly string[]): Promise<Map<string, number>> {
  const script = luaScript<(string | number)[]>(FREE_COUNT);
  const replies = await Promise.all(
    eventIds.map(async (id) => {
      const k = inventoryKeys(id);
      // Redis down: counted in Postgres by the caller, like an inventory not built.
      const [status, count] = await script.exec([k.meta, k.free], []).catch((e: unknown) => {
        if (dependencyOf(e) === "redis") return ["REDIS_DOWN"];
        throw e;
      });
      return [id, status === "OK" ? Number(count) : null] as const;
    }),
  );
  return new Map(replies.filter((r): r is readonly [string, number] => r[1] !== null));
}
