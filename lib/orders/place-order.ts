/**
 * The hold path: an admitted fan claims seats and gets a `pending_payment` order.
 *
 * 1. Redis Lua claims the seats atomically (lib/inventory/hold) — the fast gate.
 * 2. One Postgres transaction writes the order, its line items (price snapshot), the
 *    inventory status, the transition log and an outbox event. The partial unique index
 *    on live line items (I1) and a per-fan recount under an advisory lock (I6) are the
 *    last line of defence: if Postgres refuses, the Redis hold is released and the fan
 *    gets a clear error, never a half-written order.
 * When Redis has lost the event's inventory (flush, failover) it is rebuilt from
 * Postgres once and the claim retried.
 *
 * Idempotent per request (docs/adr/0011, 0025): a hold request may carry an idempotency key,
 * stored on the order with a fingerprint of the request (lib/orders/idempotency.ts); the same
 * key and request from the same fan return the order it made (`replayed`, whatever its status
 * now), never a second one; the same key with another request is a 422. And a fan has at most one `pending_payment` order per show (the partial unique
 * index `orders_one_pending_per_fan_uq`): a second hold while one waits for payment is
 * refused with that order's id, so a double submit — with or without a key — leaves one
 * order behind.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import { eventSeats, events, lineItems, orders, orderTransitions, priceLevels, seats } from "@/db/schema";
import { MAX_CLOCK_SKEW_MS, sqlNow } from "@/lib/clock";
import { uniqueViolation, type Db } from "@/lib/db";
import { newId, priceLevelIdSchema } from "@/lib/ids";
import { AppError } from "@/lib/errors";
import { FanLimitError, InventoryNotReadyError, notOnSale, SeatsTakenError, UnknownSeatError } from "@/lib/inventory/errors";
import { holdInRedis, releaseUnlessWritten, type HoldRequest, type RedisHoldInput } from "@/lib/inventory/hold";
import { ensureInventory } from "@/lib/inventory/rebuild";
import { holdSeatsQueries } from "@/lib/orders/seats";
import { enqueue } from "@/lib/outbox";
import { cachedEvent } from "@/lib/events/cache";
import { holdFingerprint, idempotencyKeyMismatch } from "@/lib/orders/idempotency";

/** Most seats one request may ask for, whatever the show's per-fan limit. */
const MAX_SEATS_PER_REQUEST = 10;

const NOT_ON_SALE_YET = "This show is not on sale yet.";

/** What a fan may send to hold seats. Validated here so every entry point (action, route, simulator) shares it. */
export const holdRequestSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("seats"),
    ordinals: z
      .array(z.number({ error: "Seats are numbers" }).int("Seats are whole numbers").min(0, "That seat does not exist").max(1_000_000, "That seat does not exist"))
      .min(1, "Pick at least one seat")
      .max(MAX_SEATS_PER_REQUEST, `At most ${MAX_SEATS_PER_REQUEST} seats at a time`)
      .refine((a) => new Set(a).size === a.length, "The same seat appears twice in your request"),
  }),
  z.object({
    kind: z.literal("best"),
    priceLevelId: priceLevelIdSchema,
    quantity: z
      .number({ error: "Quantity must be a number" })
      .int("Quantity must be a whole number")
      .min(1, "Ask for at least one seat")
      .max(MAX_SEATS_PER_REQUEST, `At most ${MAX_SEATS_PER_REQUEST} seats at a time`),
  }),
], { error: 'Say which seats: "kind" must be "seats" (with "ordinals") or "best" (with "priceLevelId" and "quantity")' });

/**
 * An idempotency key as a client sends it: 8–100 characters of letters, digits and
 * `-_.:` (a UUID fits). Same key, same fan, same request → the same order; another request → 422.
 */
export const idempotencyKeySchema = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{8,100}$/, "An idempotency key is 8 to 100 letters, digits or - _ . : (a UUID will do)");

/** A placed order, as the fan's browser needs it. Amounts in minor units. */
export interface PlacedOrder {
  orderId: string;
  holdId: string;
  holdExpiresAt: Date;
  totalMinor: number;
  currency: string;
  seats: { ordinal: number; label: string; priceLevel: string; priceMinor: number }[];
  /** True when this is the order an earlier request with the same idempotency key and body made. */
  replayed?: boolean;
  /** The order's status now: `pending_payment` for a new hold; a replayed order may have moved on (paid, expired, cancelled…). */
  status: string;
}

/** The fan already has an order waiting for payment for this show (409): pay for it or give it back first. */
export class PendingOrderError extends AppError {
  constructor(
    readonly orderId: string | null,
    ending: boolean,
  ) {
    super(
      "conflict",
      ending ? "previous_hold_ending" : "order_pending",
      ending
        ? "Your previous hold has just run out and its seats are being released. Try again in a few seconds."
        : "You already have seats on hold for this show: pay for them, or give them back, before holding others.",
      // An ending hold is settled by the sweep within seconds.
      { details: { orderId }, retryAfter: ending ? 3 : undefined },
    );
  }
}

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/**
 * The waiting room's check, run before any seat is claimed: while a queue is active every
 * hold carries a valid admission token for this fan and event. It may return the fan's
 * admission slot, which the Redis claim then checks in the same call (a token whose slot
 * was freed — the fan left, bought, or timed out — holds nothing).
 */
export type AdmissionCheck = (eventId: string, fanId: string) => Promise<{ slot?: RedisHoldInput["slot"] } | void>;

/**
 * Holds seats for a fan and records the order.
 * @param input.request explicit seat ordinals or best-available N in a price level (validated with {@link holdRequestSchema}).
 * @param input.idempotencyKey the request's key ({@link idempotencyKeySchema}); the same key and request return the same order.
 * @param input.now a test's simulated clock; without it the on-sale's start and the hold's end
 *   (`hold_expires_at` = Postgres's `now()` + the show's hold minutes) follow Postgres's clock.
 * @throws {AppError} with a fan-readable message (lib/inventory/errors.ts): SeatsTakenError, NotEnoughSeatsError,
 *   FanLimitError, `not_on_sale`, UnknownSeatError, InventoryNotReadyError, PendingOrderError (409),
 *   `idempotency_key_mismatch` (422: the key was used for another request), SlotEndedError (403); {z.ZodError} for malformed requests.
 */
export async function placeOrder(
  db: Db,
  input: { eventId: string; fanId: string; request: HoldRequest; now?: Date; admission?: AdmissionCheck; idempotencyKey?: string },
): Promise<PlacedOrder> {
  const request = holdRequestSchema.parse(input.request) as HoldRequest;
  // The event and its levels from this instance's 1-s copy: under an on-sale most hold
  // attempts are refused by Redis, and each would otherwise read these rows (lib/events/cache).
  const cached = await cachedEvent(db, input.eventId);
  const event = cached?.event;
  if (!event || event.status !== "published") throw notOnSale("There is no such show on sale.", "not_found");
  // Whether the on-sale has begun is Postgres's to say (writeOrder, one clock: lib/clock.ts);
  // this instance's clock only turns away what is a long way early, sparing Redis the claim.
  if (event.onSaleAt.getTime() > (input.now ?? new Date()).getTime() + MAX_CLOCK_SKEW_MS) throw notOnSale(NOT_ON_SALE_YET);
  const key = input.idempotencyKey === undefined ? undefined : { key: idempotencyKeySchema.parse(input.idempotencyKey), fingerprint: holdFingerprint(event.id, request) };
  const admitted = (await input.admission?.(event.id, input.fanId)) ?? undefined;
  if (request.kind === "best" && !cached.priceLevelIds.has(request.priceLevelId)) {
    throw new AppError("bad_request", "unknown_price_level", "That price level does not belong to this show.");
  }

  const holdId = newId("hld");
  // Redis keeps this for information only; the hold's end is the order's hold_expires_at, set
  // from Postgres's clock as the order is written (writeOrder).
  const redisExpiresAt = new Date((input.now ?? new Date()).getTime() + event.holdMinutes * 60_000);
  const redisInput: RedisHoldInput = { eventId: event.id, holdId, fanId: input.fanId, expiresAt: redisExpiresAt, perFanLimit: event.perFanLimit, request, slot: admitted?.slot };
  let ordinals: number[];
  try {
    try {
      ordinals = await holdInRedis(redisInput);
    } catch (error) {
      if (!(error instanceof InventoryNotReadyError)) throw await explainTaken(db, event.id, event.venueId, error);
      if (!(await ensureInventory(db, event.id))) throw error;
      ordinals = await holdInRedis(redisInput).catch(async (e: unknown) => {
        throw await explainTaken(db, event.id, event.venueId, e);
      });
    }
  } catch (error) {
    // A retry of a request that already succeeded usually finds its own seats taken (or the
    // fan at the limit): answer with the order it made. Only refusals pay for these reads.
    // The same key sent twice at once: the first request may still be writing its order.
    const earlier = key ? await keyedOrder(db, input.fanId, key.key, error instanceof FanLimitError || error instanceof SeatsTakenError ? 5 : 1) : null;
    if (earlier) return replay(db, earlier, key!.fingerprint);
    throw error instanceof FanLimitError ? await explainFanLimit(db, event, input.fanId, request, error) : error;
  }

  try {
    return await db.transaction((tx) => writeOrder(tx, { event, fanId: input.fanId, holdId, now: input.now, ordinals, idempotency: key }));
  } catch (error) {
    await releaseUnlessWritten(db, event.id, holdId, error);
    const violated = uniqueViolation(error);
    if (violated === "line_items_live_seat_uq") throw new SeatsTakenError(ordinals);
    if (violated === "orders_fan_idempotency_uq" || violated === "orders_one_pending_per_fan_uq") {
      // A concurrent request with the same key won (a double submit), or the fan has another hold.
      const earlier = key ? await keyedOrder(db, input.fanId, key.key) : null;
      if (earlier) return replay(db, earlier, key!.fingerprint);
      if (violated === "orders_fan_idempotency_uq") throw idempotencyKeyMismatch();
      const [pending] = await db
        .select({ id: orders.id, ended: sql<boolean>`${orders.holdExpiresAt} <= ${sqlNow(input.now)}` })
        .from(orders)
        .where(and(eq(orders.eventId, event.id), eq(orders.fanId, input.fanId), eq(orders.status, "pending_payment")));
      // None left: the other pending order ended (expired, paid, cancelled) between the insert and this read.
      throw new PendingOrderError(pending?.id ?? null, !pending || pending.ended);
    }
    throw error;
  }
}

/**
 * A FAN_LIMIT from Redis while the fan's own pending order plus this request would fit the
 * limit means concurrent requests of the same fan (a double submit): say that the fan has
 * a hold already, rather than a limit they have not reached.
 */
async function explainFanLimit(db: Db, event: typeof events.$inferSelect, fanId: string, request: HoldRequest, error: FanLimitError): Promise<Error> {
  const wanted = request.kind === "seats" ? request.ordinals.length : request.quantity;
  const [pending] = await db
    .select({ id: orders.id, ended: sql<boolean>`${orders.holdExpiresAt} <= now()`, seats: sql<number>`(select count(*)::int from line_items li where li.order_id = "orders"."id")` })
    .from(orders)
    .where(and(eq(orders.eventId, event.id), eq(orders.fanId, fanId), eq(orders.status, "pending_payment")));
  if (pending && pending.seats + wanted <= event.perFanLimit) return new PendingOrderError(pending.id, pending.ended);
  return error;
}

/** The fan's order made under `key`, or null; looks `tries` times, 100 ms apart (a concurrent twin's commit). */
async function keyedOrder(db: Db, fanId: string, key: string, tries = 1): Promise<{ id: string; fingerprint: string | null } | null> {
  for (let i = 0; i < tries; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, 100));
    const [row] = await db.select({ id: orders.id, fingerprint: orders.idempotencyFingerprint }).from(orders).where(and(eq(orders.fanId, fanId), eq(orders.idempotencyKey, key)));
    if (row) return row;
  }
  return null;
}

/**
 * The earlier order, as {@link placeOrder} answered it the first time, when it was made by the
 * same request (the fingerprint covers the show too).
 * @throws {AppError} `idempotency_key_mismatch` (422) for another request, or an order made
 *   before fingerprints were stored (null: nothing proves it was the same request).
 */
async function replay(db: Db, earlier: { id: string; fingerprint: string | null }, fingerprint: string): Promise<PlacedOrder> {
  if (earlier.fingerprint !== fingerprint) throw idempotencyKeyMismatch();
  const [[order], rows] = await Promise.all([
    db.select().from(orders).where(eq(orders.id, earlier.id)),
    db
      .select({ ordinal: seats.ordinal, label: seats.label, level: priceLevels.name, priceMinor: lineItems.priceMinor })
      .from(lineItems)
      .innerJoin(seats, eq(lineItems.seatId, seats.id))
      .innerJoin(priceLevels, eq(lineItems.priceLevelId, priceLevels.id))
      .where(eq(lineItems.orderId, earlier.id))
      .orderBy(seats.ordinal),
  ]);
  return {
    orderId: order!.id,
    holdId: order!.holdId,
    holdExpiresAt: order!.holdExpiresAt,
    totalMinor: order!.totalMinor,
    currency: order!.currency,
    seats: rows.map((r) => ({ ordinal: r.ordinal, label: r.label, priceLevel: r.level, priceMinor: r.priceMinor })),
    replayed: true,
    status: order!.status,
  };
}

/**
 * A TAKEN reply may name seats that are simply not for sale in this show: say which. Only seats no
 * hold owns can be (Redis says which, {@link SeatsTakenError.unowned}): a seat taken by another fan —
 * nearly every refusal in an on-sale — costs no Postgres read.
 */
async function explainTaken(db: Db, eventId: string, venueId: string, error: unknown): Promise<unknown> {
  if (!(error instanceof SeatsTakenError) || error.unowned.length === 0) return error;
  const known = await db
    .select({ ordinal: seats.ordinal })
    .from(eventSeats)
    .innerJoin(seats, eq(eventSeats.seatId, seats.id))
    .where(and(eq(eventSeats.eventId, eventId), eq(seats.venueId, venueId), inArray(seats.ordinal, error.unowned)));
  const knownSet = new Set(known.map((k) => k.ordinal));
  const unknown = error.unowned.filter((o) => !knownSet.has(o));
  return unknown.length > 0 ? new UnknownSeatError(unknown) : error;
}

async function writeOrder(
  tx: Tx,
  p: { event: typeof events.$inferSelect; fanId: string; holdId: string; now?: Date; ordinals: number[]; idempotency?: { key: string; fingerprint: string } },
): Promise<PlacedOrder> {
  // One round trip for the reads: postgres.js pipelines queries sent together on the
  // transaction's connection, and Postgres runs them in order (the recount after the lock).
  // Under an on-sale's load every round trip is an event-loop turn with the connection held.
  // I6 backstop: recount the fan's live seats for this event under a per-(event, fan) lock.
  // The lock's statement also brings Postgres's clock (the transaction's start): the on-sale's
  // start and the hold's end are decided with it, at no extra round trip (lib/clock.ts).
  const [rows, [clock], [{ live } = { live: 0 }]] = await Promise.all([
    tx
      .select({ seatId: seats.id, ordinal: seats.ordinal, label: seats.label, levelId: priceLevels.id, level: priceLevels.name, priceMinor: priceLevels.priceMinor, currency: priceLevels.currency })
      .from(eventSeats)
      .innerJoin(seats, eq(eventSeats.seatId, seats.id))
      .innerJoin(priceLevels, eq(eventSeats.priceLevelId, priceLevels.id))
      .where(and(eq(eventSeats.eventId, p.event.id), eq(seats.venueId, p.event.venueId), inArray(seats.ordinal, p.ordinals))),
    tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`${p.event.id}:${p.fanId}`}, 0)), now() as now`) as unknown as Promise<{ now: Date | string }[]>,
    tx
      .select({ live: sql<number>`count(*)::int` })
      .from(lineItems)
      .innerJoin(orders, eq(lineItems.orderId, orders.id))
      .where(and(eq(orders.eventId, p.event.id), eq(orders.fanId, p.fanId), inArray(lineItems.status, ["held", "sold"]))),
  ]);
  const now = p.now ?? new Date(clock!.now);
  if (p.event.onSaleAt > now) throw notOnSale(NOT_ON_SALE_YET);
  const holdExpiresAt = new Date(now.getTime() + p.event.holdMinutes * 60_000);
  if (rows.length !== p.ordinals.length) {
    const found = new Set(rows.map((r) => r.ordinal));
    throw new UnknownSeatError(p.ordinals.filter((o) => !found.has(o)));
  }
  const currencies = new Set(rows.map((r) => r.currency));
  if (currencies.size !== 1) throw new AppError("bad_request", "mixed_currency", "Seats priced in different currencies cannot be bought in one order.");
  const currency = rows[0]!.currency;

  if (live + rows.length > p.event.perFanLimit) throw new FanLimitError(p.event.perFanLimit, live);

  const orderId = newId("ord");
  const totalMinor = rows.reduce((n, r) => n + r.priceMinor, 0);
  // The writes, pipelined the same way, in this order (the order row before the rows that
  // reference it). A refused line item (I1: the seat is live in another order) fails the
  // transaction; its error is the first to come back, so the caller sees the unique violation.
  await Promise.all([
    tx.insert(orders).values({ id: orderId, eventId: p.event.id, fanId: p.fanId, holdId: p.holdId, holdExpiresAt, totalMinor, currency, idempotencyKey: p.idempotency?.key ?? null, idempotencyFingerprint: p.idempotency?.fingerprint ?? null }),
    ...holdSeatsQueries(tx, { orderId, eventId: p.event.id }, rows.map((r) => ({ seatId: r.seatId, priceLevelId: r.levelId, priceMinor: r.priceMinor, currency: r.currency }))),
    tx.insert(orderTransitions).values({ orderId, entity: "order", entityId: orderId, fromStatus: null, toStatus: "pending_payment", actor: `fan:${p.fanId}`, reason: `held ${rows.length} seat(s) until ${holdExpiresAt.toISOString()}` }),
    enqueue(tx, "order/created", { orderId, eventId: p.event.id, holdExpiresAt: holdExpiresAt.toISOString() }, `order/created:${orderId}`),
  ]);
  return {
    orderId,
    holdId: p.holdId,
    holdExpiresAt,
    totalMinor,
    currency,
    status: "pending_payment",
    seats: rows.sort((a, b) => a.ordinal - b.ordinal).map((r) => ({ ordinal: r.ordinal, label: r.label, priceLevel: r.level, priceMinor: r.priceMinor })),
  };
}

