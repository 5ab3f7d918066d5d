/**
 * `npm run demo:reset` (scripts/demo-reset.ts): moves the seeded demo show's on-sale a few
 * minutes into the future and empties its waiting room, so anyone can watch the on-sale
 * (pre-queue, draw, admission) again on a database where it already happened.
 *
 * Only the seeded demo show is moved — its slug and its organizer are the demo seed's
 * (scripts/lib/seed.ts, the demo accounts in the README) — because this deliberately does
 * what show set-up refuses ({@link import("@/lib/events/errors").OnSaleLockedError}: an
 * opened on-sale never moves), and what it discards is every fan's place in the queue.
 *
 * What it changes: `events.on_sale_at` (and `updated_at`) of that one show, and its
 * waiting room's Redis state (every key of lib/waiting-room/keys.ts `queueKeys`: config,
 * pre-queue, positions, serving counter, admitted slots, admissions, turns); the room's
 * configuration is then written afresh from Postgres by its owner (lib/waiting-room/config.ts).
 * What it never touches: orders, payments, tickets, line items, seat statuses and the Redis
 * inventory (lib/inventory) — seats sold stay sold, live holds stay held until they end or
 * are paid — so the order-state and money invariants (I1–I6) hold before and after.
 *
 * Caches: this process's hot-path copy of the event is dropped ({@link forgetEvent}); other
 * processes' copies live at most lib/events/cache.ts `EVENT_CACHE_TTL_MS` (1 s), and the
 * show page is regenerated within its ISR `revalidate` (15 s).
 */
import type { Redis } from "@upstash/redis";
import { and, eq, sql } from "drizzle-orm";
import { eventSeats, events, user } from "@/db/schema";
import { databaseNow } from "@/lib/clock";
import type { Db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { forgetEvent } from "@/lib/events/cache";
import { EventNotEditableError, EventNotFoundError, EventTimeError } from "@/lib/events/errors";
import { syncQueueConfig } from "@/lib/waiting-room/config";
import { queueKeys } from "@/lib/waiting-room/keys";

/** The seeded demo show's slug (scripts/lib/seed.ts `DEMO_EVENT_SLUG`; lib/ cannot import scripts/). */
export const DEMO_SHOW_SLUG = "nova-lights-world-tour";
/** The seeded demo organizer, whose show the demo show is (scripts/lib/seed.ts, README "Demo accounts"). */
export const DEMO_ORGANIZER_EMAIL = "organizer@stararena.test";

/** Minutes from now to the new on-sale: default, and the allowed range (whole minutes). */
export const DEMO_RESET_MINUTES = { default: 3, min: 1, max: 120 } as const;

/** The show exists but is not the seeded demo show (403 `not_your_show`): demo:reset moves only that one. */
export class NotTheDemoShowError extends AppError {
  constructor(slug: string) {
    super("forbidden", "not_your_show", `"${slug}" is not the seeded demo show (${DEMO_SHOW_SLUG}, organized by ${DEMO_ORGANIZER_EMAIL}); demo:reset moves only that one.`, {
      details: { slug },
    });
  }
}

/** What {@link resetDemoOnSale} did. */
export interface DemoResetResult {
  eventId: string;
  slug: string;
  name: string;
  /** The venue's time zone (for showing the new time). */
  timeZone: string;
  previousOnSaleAt: Date;
  onSaleAt: Date;
  minutes: number;
  /** Places the waiting room had given out (pre-queue fans plus joins after the on-sale), now gone. */
  queuePlacesCleared: number;
  /** Waiting-room keys that existed and were deleted. */
  roomKeysDeleted: number;
  /** Seats of the show sold / held right now: untouched by the reset. */
  seatsSold: number;
  seatsHeld: number;
}

/** The minutes, checked: a whole number in [1, 120]. @throws {AppError} 400 `invalid_input` (field `minutes`). */
function checkedMinutes(minutes: number | undefined): number {
  const m = minutes ?? DEMO_RESET_MINUTES.default;
  if (!Number.isInteger(m) || m < DEMO_RESET_MINUTES.min || m > DEMO_RESET_MINUTES.max) {
    throw new AppError("bad_request", "invalid_input", `The minutes must be a whole number from ${DEMO_RESET_MINUTES.min} to ${DEMO_RESET_MINUTES.max} (got ${String(minutes)}).`, {
      field: "minutes",
    });
  }
  return m;
}

/**
 * Moves the seeded demo show's on-sale to `now + minutes` and clears its waiting room, so a
 * fresh pre-queue forms (see the module comment for what is and is not touched).
 * @param redisClient the Redis the waiting room lives in: the process's client (lib/redis.ts `redis()`),
 *   which the room's configuration owner (lib/waiting-room/config.ts) writes the fresh `cfg` through.
 * @param opts.slug the show (default {@link DEMO_SHOW_SLUG}); anything but the seeded demo show is refused.
 * @param opts.minutes whole minutes from now, 1–120 (default 3).
 * @param opts.now clock (tests).
 * @throws {AppError} 400 `invalid_input` (minutes); {@link EventNotFoundError} 404 `no_such_show`;
 *   {@link NotTheDemoShowError} 403 `not_your_show`; {@link EventNotEditableError} 409 `show_cancelled`;
 *   409 `not_on_sale` (a draft); {@link EventTimeError} 400 `bad_time` (the show would start first);
 *   the database's or Redis's outage errors as they are.
 */
export async function resetDemoOnSale(db: Db, redisClient: Redis, opts: { slug?: string; minutes?: number; now?: Date } = {}): Promise<DemoResetResult> {
  const minutes = checkedMinutes(opts.minutes);
  const slug = opts.slug ?? DEMO_SHOW_SLUG;
  // Redis first: an outage refuses before Postgres changes, so the two do not disagree.
  await redisClient.ping();
  // Minutes from now by Postgres's clock, which decides when the on-sale opens (docs/adr/0024).
  const now = await databaseNow(db, opts.now);
  const onSaleAt = new Date(now.getTime() + minutes * 60_000);

  const moved = await db.transaction(async (tx) => {
    const [row] = await tx
      .select({ event: events, organizerEmail: user.email })
      .from(events)
      .innerJoin(user, eq(user.id, events.organizerId))
      .where(eq(events.slug, slug))
      .for("update", { of: events });
    if (!row) throw new EventNotFoundError();
    const { event, organizerEmail } = row;
    if (event.slug !== DEMO_SHOW_SLUG || organizerEmail !== DEMO_ORGANIZER_EMAIL) throw new NotTheDemoShowError(slug);
    if (event.status === "cancelled") throw new EventNotEditableError();
    if (event.status !== "published") throw new AppError("conflict", "not_on_sale", "The demo show is not published, so there is no on-sale to watch. Publish it in /admin first.");
    if (onSaleAt >= event.startsAt) {
      throw new EventTimeError(`The demo show starts ${event.startsAt.toISOString()}, before the new on-sale: seed a fresh database (npm run db:seed on an empty one).`, "onSaleAt");
    }
    await tx.update(events).set({ onSaleAt, updatedAt: now }).where(and(eq(events.id, event.id), eq(events.slug, DEMO_SHOW_SLUG)));
    const [seatCounts] = await tx
      .select({
        sold: sql<number>`count(*) filter (where ${eventSeats.status} = 'sold')::int`,
        held: sql<number>`count(*) filter (where ${eventSeats.status} = 'held')::int`,
      })
      .from(eventSeats)
      .where(eq(eventSeats.eventId, event.id));
    return { event, seatsSold: seatCounts?.sold ?? 0, seatsHeld: seatCounts?.held ?? 0 };
  });
  const { event } = moved;

  // After Postgres: a join racing the reset lands in the old room (and is deleted with it) or,
  // once it is gone, restores the configuration from Postgres — with the new on-sale.
  const keys = queueKeys(event.id);
  const [, pre, , st] = keys;
  const [preSize, tail] = await Promise.all([redisClient.zcard(pre!), redisClient.hget<number | string>(st!, "tail")]);
  const roomKeysDeleted = await redisClient.del(...keys);
  await syncQueueConfig(db, event.id);
  forgetEvent(event.id);

  return {
    eventId: event.id,
    slug: event.slug,
    name: event.name,
    timeZone: event.timeZone,
    previousOnSaleAt: event.onSaleAt,
    onSaleAt,
    minutes,
    queuePlacesCleared: preSize + Number(tail ?? 0),
    roomKeysDeleted,
    seatsSold: moved.seatsSold,
    seatsHeld: moved.seatsHeld,
  };
}
