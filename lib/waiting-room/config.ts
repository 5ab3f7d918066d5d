/**
 * The waiting room's configuration and its one writer (docs/design.md "Waiting room"):
 * the admission rate (fans per minute) and the active cap (fans), recorded in Postgres
 * (`events.admission_rate_per_minute`, `events.active_cap` — no other module writes them),
 * and what admission reads in Redis (the `cfg` hash: onSaleAt, rate, cap, paused, ttl).
 * Show set-up (lib/events) calls {@link writeQueueSettings} inside its transaction and
 * {@link refreshQueueConfig} after it; the organizer's live controls call
 * {@link setQueueControls}. Redis is re-synced from Postgres whenever it lost the hash.
 */
import { eq } from "drizzle-orm";
import { z } from "zod";
import { events } from "@/db/schema";
import type { Db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { luaScript, redis } from "@/lib/redis";
import { queueKeys } from "@/lib/waiting-room/keys";
import { STATUS } from "@/lib/waiting-room/lua";

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0] | Db;

/** Default admission window: minutes an admitted fan has to start a hold. */
const DEFAULT_ADMISSION_MINUTES = 10;

/** Raised for an event that has no waiting room (unknown or unpublished): 404 `no_such_show`. */
export class NoSuchQueueError extends AppError {
  constructor() {
    super("not_found", "no_such_show", "There is no such show on sale.");
  }
}

/** The organizer's live controls. Rate in fans per minute; cap in fans. */
export interface QueueControls {
  paused?: boolean;
  ratePerMinute?: number;
  activeCap?: number;
}

/** What the live controls accept (the organizer's route validates with it). */
export const queueControlsSchema = z
  .strictObject({
    paused: z.boolean().optional(),
    ratePerMinute: z.number().int("The rate must be a whole number of fans per minute").min(1, "The rate must be at least 1 fan per minute").max(1_000_000).optional(),
    activeCap: z.number().int("The cap must be a whole number").min(1, "The cap must be at least 1").max(1_000_000).optional(),
  })
  .refine((c) => Object.keys(c).length > 0, "Send at least one of paused, ratePerMinute, activeCap");

/** Writes the event's queue configuration from Postgres into Redis (not paused). @throws {NoSuchQueueError} */
export async function syncQueueConfig(db: Db, eventId: string): Promise<void> {
  const event = await db.query.events.findFirst({ where: eq(events.id, eventId) });
  if (!event || event.status !== "published") throw new NoSuchQueueError();
  await redis().hset(queueKeys(eventId)[0]!, {
    onSaleAt: event.onSaleAt.getTime(),
    rate: event.admissionRatePerMinute,
    cap: event.activeCap,
    paused: 0,
    ttl: DEFAULT_ADMISSION_MINUTES * 60_000,
  });
}

/** Records the rate and cap in Postgres, inside the caller's transaction (show set-up). */
export async function writeQueueSettings(tx: Tx, eventId: string, settings: { ratePerMinute?: number; activeCap?: number }): Promise<void> {
  if (settings.ratePerMinute === undefined && settings.activeCap === undefined) return;
  await tx
    .update(events)
    .set({
      ...(settings.ratePerMinute !== undefined ? { admissionRatePerMinute: settings.ratePerMinute } : {}),
      ...(settings.activeCap !== undefined ? { activeCap: settings.activeCap } : {}),
    })
    .where(eq(events.id, eventId));
}

/**
 * After a show's set-up changed (on-sale time, rate, cap): brings a configured waiting
 * room in line with Postgres, keeping `paused`. A waiting room not configured yet reads
 * Postgres on first use anyway.
 */
export async function refreshQueueConfig(db: Db, eventId: string): Promise<void> {
  const key = queueKeys(eventId)[0]!;
  if (!(await redis().exists(key))) return;
  const event = await db.query.events.findFirst({ where: eq(events.id, eventId) });
  if (!event) return;
  await settle(db, eventId); // admissions owed under the old settings first
  await redis().hset(key, { onSaleAt: event.onSaleAt.getTime(), rate: event.admissionRatePerMinute, cap: event.activeCap });
}

/** Runs the lazy admission up to now, by Redis's clock (`now`: a test's simulated one, ms): the status script advances the serving counter. */
async function settle(db: Db, eventId: string, now?: number): Promise<void> {
  const reply = await luaScript<(string | number)[]>(STATUS).exec(queueKeys(eventId), [now === undefined ? "" : String(now), "", ""]);
  if (reply[0] === "NO_CONFIG") await syncQueueConfig(db, eventId);
}

/**
 * Applies the organizer's controls at once: Redis (what admission reads) and Postgres (the
 * record; rate and cap). Admissions owed under the old settings are settled first.
 * @param now a test's simulated Redis clock (ms); production passes none.
 * @throws {NoSuchQueueError}
 */
export async function setQueueControls(db: Db, eventId: string, controls: QueueControls, now?: number): Promise<void> {
  await settle(db, eventId, now);
  await writeQueueSettings(db, eventId, controls);
  const patch: Record<string, number> = {};
  if (controls.paused !== undefined) patch.paused = controls.paused ? 1 : 0;
  if (controls.ratePerMinute !== undefined) patch.rate = controls.ratePerMinute;
  if (controls.activeCap !== undefined) patch.cap = controls.activeCap;
  if (Object.keys(patch).length > 0) await redis().hset(queueKeys(eventId)[0]!, patch);
}
