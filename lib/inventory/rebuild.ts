/**
 * Rebuilds an event's Redis inventory from Postgres, the system of record
 * (docs/design.md: "Redis … must be rebuildable from Postgres at any time").
 *
 * Truth comes from live line items (held or sold): a seat is free in Redis when it is
 * on sale for the event and no live line item claims it. Holds are restored with their
 * ids, fans and expiries, sold seats stay sold, and per-fan counts are recounted.
 * Best-available row lists are derived from the plan: rows nearest the stage first,
 * then sections nearest the stage's centre.
 */
import { AppError } from "@/lib/errors";
import { and, eq, inArray, sql } from "drizzle-orm";
import { eventSeats, events, lineItems, orders, rows, seats, sections, venues } from "@/db/schema";
import type { Db } from "@/lib/db";
import { holdKey, inventoryKeys, rowsKey } from "@/lib/inventory/keys";
import { adoptInRedis, confirmInRedis, freeHoldSeats } from "@/lib/inventory/hold";
import { REBUILD } from "@/lib/inventory/lua";
import { eventsOnSaleWithin } from "@/lib/waiting-room/on-sale";
import { eventKey, luaScript, redis } from "@/lib/redis";

const rebuildScript = () => luaScript<string[]>(REBUILD);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What a rebuild wrote. */
export interface RebuildResult {
  eventId: string;
  capacity: number;
  free: number;
  held: number;
  sold: number;
  holds: number;
  /** Holds in flight (in Redis, not yet in Postgres) that the rebuild kept. */
  inFlightKept: number;
}

/** Raised for an unknown event: 404 `no_such_show`. */
export class UnknownEventError extends AppError {
  constructor(eventId: string) {
    super("not_found", "no_such_show", `No event ${eventId}`);
  }
}

/** Runs of consecutive ordinals: [1,2,3,7,8] → [[1,3],[7,8]]. */
function contiguousRuns(sorted: number[]): [number, number][] {
  const runs: [number, number][] = [];
  for (const o of sorted) {
    const last = runs[runs.length - 1];
    if (last && o === last[1] + 1) last[1] = o;
    else runs.push([o, o]);
  }
  return runs;
}

/**
 * How long a hold may exist in Redis before its order is in Postgres, in ms. The hold path
 * claims seats in Redis, then writes the order; under an on-sale's load that write can
 * wait seconds for a pooled connection. Younger holds that Postgres does not know yet are
 * in flight, not drift: a rebuild keeps them and the drift check ignores them.
 */
export const IN_FLIGHT_HOLD_MS = 30_000;

/**
 * Reads Postgres and replaces the event's Redis inventory atomically. Holds claimed in
 * Redis within the last `opts.keepInFlightMs` (default {@link IN_FLIGHT_HOLD_MS}; 0 keeps
 * none) that Postgres does not know yet (no order names them) are kept when their seats
 * are free in Postgres — so a rebuild during a sale does not free seats whose orders are
 * being written.
 * @returns counts of what was written (`inFlightKept`: holds kept that way).
 * @throws {UnknownEventError}
 */
export async function rebuildInventory(db: Db, eventId: string, opts: { keepInFlightMs?: number } = {}): Promise<RebuildResult> {
  const [ev] = await db
    .select({ capacity: venues.capacity, stage: venues.stage })
    .from(events)
    .innerJoin(venues, eq(events.venueId, venues.id))
    .where(eq(events.id, eventId));
  if (!ev) throw new UnknownEventError(eventId);

  const onSale = await db
    .select({
      ordinal: seats.ordinal,
      level: eventSeats.priceLevelId,
      section: sections.code,
      row: rows.label,
      rowOrder: rows.sortOrder,
      lx: sections.labelX,
      ly: sections.labelY,
    })
    .from(eventSeats)
    .innerJoin(seats, eq(eventSeats.seatId, seats.id))
    .innerJoin(sections, eq(seats.sectionId, sections.id))
    .innerJoin(rows, eq(seats.rowId, rows.id))
    .where(and(eq(eventSeats.eventId, eventId), sql`${eventSeats.status} <> 'blocked'`))
    .orderBy(seats.ordinal);

  // Holds in flight: made in Redis within keepInFlightMs (Redis's clock, inside the script) and
  // unknown to Postgres — not live, and no recent order of the event names them (a hold whose
  // order was just cancelled or refused is not in flight, whatever its age). `known` is read
  // before the live line items: an order committing in between is then in `live` (restored),
  // one committing later is in neither (kept as in flight). Read after, an order committing
  // between the two reads was known but not live, and its seats were freed in Redis while
  // Postgres held them.
  const keepInFlightMs = opts.keepInFlightMs ?? IN_FLIGHT_HOLD_MS;
  const known =
    keepInFlightMs > 0
      ? (
          await db
            .select({ holdId: orders.holdId })
            .from(orders)
            .where(and(eq(orders.eventId, eventId), sql`${orders.createdAt} >= now() - make_interval(secs => ${(keepInFlightMs + 60_000) / 1000})`))
        ).map((o) => o.holdId)
      : [];
  const live = await liveSeats(db, eventId);

  const bytes = new Uint8Array(Math.ceil(ev.capacity / 8));
  const claimed = new Set(live.map((l) => l.ordinal));
  let free = 0;
  for (const s of onSale) {
    if (claimed.has(s.ordinal)) continue;
    bytes[s.ordinal >> 3]! |= 0x80 >> (s.ordinal & 7);
    free++;
  }
  const holds = holdsOf(live);
  const fans = new Map<string, number>();
  const owner: [number, string][] = [];
  for (const l of live) {
    owner.push([l.ordinal, `${l.status === "sold" ? "s" : "h"}:${l.holdId}`]);
    fans.set(l.fanId, (fans.get(l.fanId) ?? 0) + 1);
  }

  // Best-available rows per price level, best first.
  const stageX = ev.stage.reduce((n, p) => n + p[0], 0) / Math.max(ev.stage.length, 1);
  const stageY = ev.stage.reduce((n, p) => n + p[1], 0) / Math.max(ev.stage.length, 1);
  const groups = new Map<string, { level: string; section: string; row: string; rowOrder: number; dist: number; ordinals: number[] }>();
  for (const s of onSale) {
    const key = `${s.level}|${s.section}|${s.row}`;
    const g = groups.get(key) ?? { level: s.level, section: s.section, row: s.row, rowOrder: s.rowOrder, dist: Math.hypot(s.lx - stageX, s.ly - stageY), ordinals: [] };
    g.ordinals.push(s.ordinal);
    groups.set(key, g);
  }
  const byLevel = new Map<string, { entry: string; rowOrder: number; dist: number; first: number }[]>();
  for (const g of groups.values()) {
    const list = byLevel.get(g.level) ?? [];
    for (const [a, b] of contiguousRuns(g.ordinals)) list.push({ entry: `${g.section}|${g.row}|${a}|${b}`, rowOrder: g.rowOrder, dist: g.dist, first: a });
    byLevel.set(g.level, list);
  }
  const rowLists: [string, string[]][] = [...byLevel.entries()].map(([level, list]) => [
    level,
    list.sort((x, y) => x.rowOrder - y.rowOrder || x.dist - y.dist || x.first - y.first).map((e) => e.entry),
  ]);

  const k = inventoryKeys(eventId);
  const stale = await scanKeys(`${eventKey(eventId, "inv", "hold", "")}*`);
  const payload = {
    hex: Buffer.from(bytes).toString("hex"),
    capacity: ev.capacity,
    owner,
    holds: [...holds.values()].map((h) => ({ ...h, seats: h.seats.sort((a, b) => a - b).join(",") })),
    fans: [...fans.entries()],
    rows: rowLists,
    stale,
  };
  const [, kept, dropped] = await rebuildScript().exec(
    [k.meta, k.free, k.owner, k.fan, k.holds, k.rowHint],
    [JSON.stringify({ ...payload, known }), holdKey(eventId, ""), rowsKey(eventId, ""), String(Date.now()), ...(keepInFlightMs > 0 ? [String(keepInFlightMs)] : [])],
  );
  const droppedInFlight = (JSON.parse(String(dropped ?? "[]")) as { id: string; fan: string; seats: string; expires: string | number }[]).map((h) => ({
    id: h.id,
    fan: h.fan,
    expires: Number(h.expires),
    status: "held" as const,
    seats: String(h.seats).split(",").filter(Boolean).map(Number),
  }));
  await replayChangesSinceSnapshot(db, eventId, [...holds.values()], droppedInFlight);
  const sold = live.filter((l) => l.status === "sold").length;
  return { eventId, capacity: ev.capacity, free, held: live.length - sold, sold, holds: [...holds.values()].filter((h) => h.status === "held").length, inFlightKept: Number(kept ?? 0) };
}

/**
 * The snapshot was read before the script ran: a hold paid, released, expired or refunded in
 * between had its Redis step (confirm, release) undone by the script, which restored it as the
 * snapshot saw it. Re-reads those holds' line items and replays the step, through the same Redis
 * calls the paths use (both idempotent): sold now → confirmed, no live seat now → freed.
 * A seat freed that way may meanwhile have been held again by another fan: the script dropped
 * that newer hold from Redis (its seat belonged to the ended hold in the snapshot), so Postgres
 * holds the seat while Redis would now call it free — a seat two fans could claim. The freed
 * seats' live holds are therefore read from Postgres and given their seats back (adoptInRedis).
 * So are the holds in flight the script dropped because the snapshot gave a seat of theirs to
 * an ended hold (`droppedInFlight`, from Redis's own record): their orders may commit only after
 * the Postgres read above, and would otherwise hold seats Redis calls free (found by the
 * reconcile race test under CI's load: a fan cancelled and held the same seat again during a
 * rebuild). Only seats that are free and nobody's are claimed. A dropped hold whose order
 * fails after this is released by the hold path as any other; one whose order failed between
 * the script and this step (its release found no hold to release) is claimed for nobody's
 * order, and stays until reconciliation's drift repair rebuilds it away once it is older than
 * the in-flight window (a leak, as for a hold in flight the script kept and whose order never
 * came: lib/reconciliation/reconcile.test.ts "a hold in flight … is not drift").
 */
async function replayChangesSinceSnapshot(
  db: Db,
  eventId: string,
  snapshot: { id: string; status: "held" | "sold"; seats: number[] }[],
  droppedInFlight: { id: string; fan: string; expires: number; status: "held"; seats: number[] }[] = [],
): Promise<void> {
  const freed: number[] = [];
  for (let i = 0; i < snapshot.length; i += 1_000) {
    const part = snapshot.slice(i, i + 1_000);
    const now = await db
      .select({ holdId: orders.holdId, sold: sql<boolean>`bool_or(${lineItems.status} = 'sold')`, live: sql<boolean>`bool_or(${lineItems.status} in ('held','sold'))` })
      .from(orders)
      .innerJoin(lineItems, eq(lineItems.orderId, orders.id))
      .where(and(eq(orders.eventId, eventId), inArray(orders.holdId, part.map((h) => h.id))))
      .groupBy(orders.holdId);
    const byId = new Map(now.map((r) => [r.holdId, r]));
    for (const h of part) {
      const r = byId.get(h.id);
      if (!r || !r.live) {
        await freeHoldSeats(eventId, h.id, h.status);
        freed.push(...h.seats);
      } else if (r.sold && h.status === "held") await confirmInRedis(eventId, h.id);
    }
  }
  for (let i = 0; i < freed.length; i += 1_000) {
    for (const h of holdsOf(await liveSeats(db, eventId, freed.slice(i, i + 1_000))).values()) await adoptInRedis(eventId, h);
  }
  for (const h of droppedInFlight) await adoptInRedis(eventId, h);
}

/** One live (held or sold) seat of an event as Postgres has it, with its order's hold. */
type LiveSeat = { ordinal: number; status: string; holdId: string; fanId: string; expires: Date };

/** The event's live seats (held or sold line items), or only those among `ordinals`. */
function liveSeats(db: Db, eventId: string, ordinals?: number[]): Promise<LiveSeat[]> {
  return db
    .select({ ordinal: seats.ordinal, status: lineItems.status, holdId: orders.holdId, fanId: orders.fanId, expires: orders.holdExpiresAt })
    .from(lineItems)
    .innerJoin(orders, eq(lineItems.orderId, orders.id))
    .innerJoin(seats, eq(lineItems.seatId, seats.id))
    .where(and(eq(lineItems.eventId, eventId), inArray(lineItems.status, ["held", "sold"]), ordinals ? inArray(seats.ordinal, ordinals) : undefined));
}

/** Live seats grouped into their holds: fan, expiry (ms since the epoch), held or sold, ordinals. */
function holdsOf(live: LiveSeat[]): Map<string, { id: string; fan: string; seats: number[]; expires: number; status: "held" | "sold" }> {
  const holds = new Map<string, { id: string; fan: string; seats: number[]; expires: number; status: "held" | "sold" }>();
  for (const l of live) {
    const h = holds.get(l.holdId) ?? { id: l.holdId, fan: l.fanId, seats: [], expires: l.expires.getTime(), status: l.status === "sold" ? "sold" : "held" };
    h.seats.push(l.ordinal);
    holds.set(l.holdId, h);
  }
  return holds;
}

/** Keys matching a glob pattern (hash-tag braces are escaped for MATCH). */
async function scanKeys(pattern: string): Promise<string[]> {
  const escaped = pattern.replace(/[{}[\]]/g, (c) => `\\${c}`);
  const out: string[] = [];
  let cursor: string | number = "0";
  do {
    const [next, keys]: [string | number, string[]] = await redis().scan(cursor, { match: escaped, count: 1000 });
    out.push(...keys);
    cursor = next;
  } while (String(cursor) !== "0");
  return out;
}

/** True when Redis holds a built inventory for the event. */
export async function inventoryReady(eventId: string): Promise<boolean> {
  return (await redis().hget(inventoryKeys(eventId).meta, "ready")) !== null;
}

/**
 * Rebuilds unless another process is already doing it; then waits (≤ `waitMs`) until
 * the inventory is ready. Used by the hold path when Redis says NOT_READY (after a
 * flush or failover), so many concurrent requests cause one rebuild.
 * @returns true when the inventory is ready.
 */
export async function ensureInventory(db: Db, eventId: string, waitMs = 10_000): Promise<boolean> {
  if (await inventoryReady(eventId)) return true;
  const { lock } = inventoryKeys(eventId);
  const got = await redis().set(lock, "1", { nx: true, px: 30_000 });
  if (got === "OK") {
    try {
      await rebuildInventory(db, eventId);
      return true;
    } finally {
      await redis().del(lock);
    }
  }
  const until = Date.now() + waitMs;
  while (Date.now() < until) {
    await sleep(50);
    if (await inventoryReady(eventId)) return true;
  }
  return false;
}

/** How far ahead of its on-sale an event's inventory is built (ms): 10 minutes. */
export const PREPARE_AHEAD_MS = 10 * 60_000;

/**
 * Builds the Redis inventory of every published event whose on-sale is within `aheadMs` (or
 * past) and whose show has not started, where it is not built yet (a new show, or Redis lost
 * it). Otherwise the on-sale's first hold built it ({@link ensureInventory}) while the flood's
 * first fans waited: the first 5-s window of the 1,000,000-fan runs had a hold p50 of up to
 * 260 ms and a p99 of 580–810 ms, against 10–20 and 20–100 ms after it (BENCHMARKS.md,
 * 2026-12-06, evening). The local worker calls it every pass (lib/jobs/worker.ts). One query,
 * one HGET per event; a build takes the hold path's lock, so the two never build twice.
 * @returns the ids of the events it built.
 */
export async function prepareInventories(db: Db, now?: number, aheadMs = PREPARE_AHEAD_MS): Promise<string[]> {
  const soon = await eventsOnSaleWithin(db, aheadMs, now);
  const built: string[] = [];
  for (const { id } of soon) {
    if (await inventoryReady(id)) continue;
    if (await ensureInventory(db, id)) built.push(id);
  }
  return built;
}
