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

/** The controls a request may send. */
const CONTROLS = ["paused", "ratePerMinute", "activeCap"];

/** Most fans per minute (rate), and most fans at once (cap), the controls accept. */
const CONTROL_MAX = 1_000_000;

/**
 * The organizer's live controls from a request body (their route validates with it). Each
 * refusal is a 400 whose code the catalogue's `errors` namespace words, with its facts, under
 * the control at fault: `queue_not_whole` {what}, `queue_below_min` {what, min},
 * `queue_above_max` {what, max} — `what` is "rate" or "cap" —, `queue_paused_not_boolean`,
 * `queue_unknown_control` {keys} and `queue_no_controls`.
 */
export function queueControlsFrom(body: unknown): QueueControls {
  const given = typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const unknown = Object.keys(given).filter((k) => !CONTROLS.includes(k));
  if (unknown.length > 0) {
    const keys = unknown.join(", ");
    throw new AppError("bad_request", "queue_unknown_control", `Unknown control: ${keys}. Send paused, ratePerMinute or activeCap.`, { params: { keys } });
  }
  const controls: QueueControls = {};
  if (given.paused !== undefined) {
    if (typeof given.paused !== "boolean") throw new AppError("bad_request", "queue_paused_not_boolean", "paused must be true or false", { field: "paused" });
    controls.paused = given.paused;
  }
  if (given.ratePerMinute !== undefined) controls.ratePerMinute = fansCount(given.ratePerMinute, "rate");
  if (given.activeCap !== undefined) controls.activeCap = fansCount(given.activeCap, "cap");
  if (Object.keys(controls).length === 0) throw new AppError("bad_request", "queue_no_controls", "Send at least one of paused, ratePerMinute, activeCap");
  return controls;
}

/** The rate (fans per minute) or the cap (fans): a whole number from 1 to {@link CONTROL_MAX}. */
function fansCount(value: unknown, what: "rate" | "cap"): number {
  const field = what === "rate" ? "ratePerMinute" : "activeCap";
  const rate = what === "rate";
  if (typeof value !== "number" || !Number.isInteger(value)) {
    throw new AppError("bad_request", "queue_not_whole", rate ? "The rate must be a whole number of fans per minute" : "The cap must be a whole number", { field, params: { what } });
  }
  if (value < 1) {
    throw new AppError("bad_request", "queue_below_min", rate ? "The rate must be at least 1 fan per minute" : "The cap must be at least 1", { field, params: { what, min: 1 } });
  }
  if (value > CONTROL_MAX) {
    const max = new Intl.NumberFormat("en").format(CONTROL_MAX);
    throw new AppError("bad_request", "queue_above_max", rate ? `The rate must be at most ${max} fans per minute` : `The cap must be at most ${max}`, { field, params: { what, max: CONTROL_MAX } });
  }
  return value;
}

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
