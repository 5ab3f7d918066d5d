/**
 * Setting up a show as its organizer (issue 6, "Set-up"): the venue list and section
 * facts the form needs, the form's zod schemas (shared by the server actions), creating
 * a show from the form (through {@link createEvent}), editing it, and publishing it.
 *
 * Rules of editing:
 * - Only the show's organizer may change it ({@link NotYourEventError} otherwise).
 * - Price levels and the event inventory (which seat sells at which level) may be replaced
 *   only while nobody can have bought: the show has no order at all (of any status — line
 *   items reference price levels) and, when published, its on-sale has not opened yet.
 *   Otherwise only the other fields change ({@link PriceLevelsLockedError} for a level change).
 * - Once a published show's on-sale has opened, the on-sale time is fixed ({@link OnSaleLockedError}):
 *   the waiting room has already drawn its pre-queue at that instant.
 * - Publishing is a guarded `UPDATE … WHERE status = 'draft'`: publishing twice is a no-op.
 *
 * Times: the form takes local date-times in the venue's IANA time zone;
 * {@link zonedLocalToUtc} turns them into UTC instants with Intl alone (DST-aware).
 * Money: the form takes major units ("79.00"); Postgres stores integer minor units.
 */
import { and, asc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { eventSeats, events, orders, priceLevels, rows, seats, sections, venues } from "@/db/schema";
import { uniqueViolation, type Db } from "@/lib/db";
import { createEvent, EmptyPriceLevelError, priceLevelInputSchema, seatMatches, type SeatRule } from "@/lib/events/create";
import { newId } from "@/lib/ids";
import { inventoryReady, rebuildInventory } from "@/lib/inventory/rebuild";
import { redis } from "@/lib/redis";
import { forgetEvent } from "@/lib/events/cache";
import { queueKeys, setQueueControls } from "@/lib/waiting-room/queue";

/** Most price levels one show may have. */
export const MAX_PRICE_LEVELS = 8;

const INSERT_BATCH = 5_000;

/** The database or a transaction on it. */
type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0] | Db;
const DAY_MS = 86_400_000;

// ─── Errors ──────────────────────────────────────────────────────────────────

/**
 * Base of every set-up error: a message an organizer can act on, an HTTP-like status,
 * and, when one form field is at fault, its path (`"slug"`, `"priceLevels.1.rows"`).
 */
export class EventSetupError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly field?: string,
  ) {
    super(message);
    this.name = "EventSetupError";
  }
}

/** No show with that id. */
export class EventNotFoundError extends EventSetupError {
  constructor() {
    super("There is no such show.", 404);
    this.name = "EventNotFoundError";
  }
}

/** The caller is not the show's organizer. */
export class NotYourEventError extends EventSetupError {
  constructor() {
    super("Only the organizer of this show can change it.", 403);
    this.name = "NotYourEventError";
  }
}

/** A cancelled show can no longer be edited or published. */
export class EventNotEditableError extends EventSetupError {
  constructor() {
    super("This show has been cancelled and can no longer be changed.", 409);
    this.name = "EventNotEditableError";
  }
}

/** The price levels / inventory cannot change any more (orders exist, or sales have opened). */
export class PriceLevelsLockedError extends EventSetupError {
  constructor(readonly reason: "orders" | "on_sale") {
    super(
      reason === "orders"
        ? "This show already has orders, so its price levels and seats can no longer change. You can still edit its name, description, times and limits."
        : "Sales for this show have opened, so its price levels and seats can no longer change. You can still edit its name, description, times and limits.",
      409,
      "priceLevels",
    );
    this.name = "PriceLevelsLockedError";
  }
}

/** The on-sale of a published show has already opened; its time can no longer move. */
export class OnSaleLockedError extends EventSetupError {
  constructor() {
    super("The on-sale has already opened, so its time can no longer change.", 409, "onSaleAt");
    this.name = "OnSaleLockedError";
  }
}

/** Another show already uses the slug. */
export class SlugTakenError extends EventSetupError {
  constructor(slug: string) {
    super(`Another show already uses the address /events/${slug}. Choose another slug.`, 409, "slug");
    this.name = "SlugTakenError";
  }
}

/** No venue with that id. */
export class UnknownVenueError extends EventSetupError {
  constructor() {
    super("Choose one of the venues in the list.", 400, "venueId");
    this.name = "UnknownVenueError";
  }
}

/** A price level's seat rules name an unknown tier or section, or match no seat. */
export class SeatRuleError extends EventSetupError {
  constructor(
    message: string,
    readonly levelIndex: number,
    field: "tiers" | "sections" | "rows" = "rows",
  ) {
    super(message, 400, `priceLevels.${levelIndex}.${field}`);
    this.name = "SeatRuleError";
  }
}

/** The times do not make sense together (on-sale after the start, a start in the past). */
export class EventTimeError extends EventSetupError {
  constructor(message: string, field: "startsAt" | "onSaleAt") {
    super(message, 400, field);
    this.name = "EventTimeError";
  }
}

/** A local date-time that is malformed, or does not exist in the time zone (skipped by a DST change). */
export class LocalTimeError extends Error {
  readonly status = 400;
  constructor(message: string) {
    super(message);
    this.name = "LocalTimeError";
  }
}

/** A price that is not a plain amount in major units for its currency. */
export class PriceFormatError extends Error {
  readonly status = 400;
  constructor(message: string) {
    super(message);
    this.name = "PriceFormatError";
  }
}

// ─── Time zones ──────────────────────────────────────────────────────────────

const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$/;
const zoneFormatters = new Map<string, Intl.DateTimeFormat>();

function zoneFormatter(timeZone: string): Intl.DateTimeFormat {
  let f = zoneFormatters.get(timeZone);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat("en-US", {
        timeZone,
        hourCycle: "h23",
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
        second: "2-digit",
      });
    } catch {
      throw new LocalTimeError(`"${timeZone}" is not a time zone. Use an IANA name such as Europe/Berlin.`);
    }
    zoneFormatters.set(timeZone, f);
  }
  return f;
}

/** The wall clock in `timeZone` at instant `ms`, expressed as if that wall clock were UTC (ms, whole seconds). */
function wallClockMs(ms: number, timeZone: string): number {
  const p: Record<string, number> = {};
  for (const part of zoneFormatter(timeZone).formatToParts(new Date(ms))) if (part.type !== "literal") p[part.type] = Number(part.value);
  return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour! % 24, p.minute!, p.second!);
}

/** True for a time zone Intl knows (IANA names and aliases, and "UTC"). */
export function isTimeZone(timeZone: string): boolean {
  try {
    zoneFormatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

/**
 * The UTC instant at which the wall clocks of `timeZone` show `local`
 * (`"2027-03-01T19:30"`, seconds optional) — e.g. `zonedLocalToUtc("2027-03-01T19:30",
 * "Europe/Berlin")` is 18:30Z. Uses Intl only; DST-aware:
 * - a time that occurs twice (clocks go back) resolves to the earlier instant;
 * - a time that never occurs (clocks skip it) is refused with a {@link LocalTimeError},
 *   as is a malformed or impossible date (2027-02-30) or an unknown time zone.
 */
export function zonedLocalToUtc(local: string, timeZone: string): Date {
  const m = LOCAL_DATE_TIME.exec(local.trim());
  if (!m) throw new LocalTimeError(`"${local}" is not a date and time such as 2027-03-01T19:30.`);
  const [y, mo, d, h, mi, s] = m.slice(1).map((v) => Number(v ?? 0)) as [number, number, number, number, number, number];
  const wall = Date.UTC(y, mo - 1, d, h, mi, s);
  const check = new Date(wall);
  if (y < 1900 || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) {
    throw new LocalTimeError(`${local.trim()} is not a real date and time.`);
  }
  // The offset in force a day before, at, and a day after cover any single transition:
  // each gives a candidate instant; keep those whose wall clock really shows `local`.
  const candidates = new Set([wall - DAY_MS, wall, wall + DAY_MS].map((t) => wall - (wallClockMs(t, timeZone) - t)));
  const valid = [...candidates].filter((t) => wallClockMs(t, timeZone) === wall).sort((a, b) => a - b);
  if (valid.length === 0) {
    throw new LocalTimeError(
      `${local.trim().replace("T", " ")} does not exist in ${timeZone}: the clocks skip that hour (daylight saving time begins). Choose a time outside it.`,
    );
  }
  return new Date(valid[0]!);
}

/** The local date-time `"YYYY-MM-DDTHH:mm"` shown by the wall clocks of `timeZone` at `at` (the inverse of {@link zonedLocalToUtc}). */
export function utcToZonedLocal(at: Date, timeZone: string): string {
  return new Date(wallClockMs(at.getTime(), timeZone)).toISOString().slice(0, 16);
}

// ─── Money ───────────────────────────────────────────────────────────────────

/** Number of minor-unit digits of an ISO 4217 currency (EUR 2, JPY 0, KWD 3), per Intl. */
export function currencyDigits(currency: string): number {
  try {
    return new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/**
 * Parses a price typed in major units (`"79"`, `"79.5"`, `"79.00"`, `"1,079.00"`) into integer
 * minor units of `currency` (7900 for EUR). @throws {PriceFormatError} with a readable message.
 */
export function parseMajorUnits(text: string, currency: string): number {
  const digits = currencyDigits(currency);
  const cleaned = text.trim().replace(/(?<=\d),(?=\d{3}(\D|$))/g, "");
  const m = /^(\d+)(?:\.(\d*))?$/.exec(cleaned);
  if (!m) throw new PriceFormatError(`Enter the price as a number such as ${digits > 0 ? `79.${"0".repeat(digits)}` : "7900"}.`);
  const fraction = m[2] ?? "";
  if (fraction.length > digits) {
    throw new PriceFormatError(digits === 0 ? `${currency} prices have no decimals.` : `${currency} prices have at most ${digits} decimals.`);
  }
  const minor = Number(m[1]) * 10 ** digits + Number(fraction.padEnd(digits, "0") || 0);
  if (!Number.isSafeInteger(minor) || minor > 10_000_000) throw new PriceFormatError("That price is too high.");
  return minor;
}

/** Integer minor units as the form shows them in major units: (7900, "EUR") → "79.00". */
export function formatMajorUnits(minor: number, currency: string): string {
  const digits = currencyDigits(currency);
  return digits === 0 ? String(minor) : (minor / 10 ** digits).toFixed(digits);
}

// ─── Seat rules as typed in the form ─────────────────────────────────────────

/** `"1–2"`, `"1-2"`, `"1 to 2"` → {from 1, to 2}; `"3"` → {3, 3}; `""` → undefined. @throws {Error} with a readable message. */
export function parseRowRange(text: string): { from: number; to: number } | undefined {
  const t = text.trim();
  if (t === "") return undefined;
  const m = /^(\d{1,4})(?:\s*(?:-|–|—|to|\.\.)\s*(\d{1,4}))?$/i.exec(t);
  if (!m) throw new Error(`Write the rows as a range such as 1–5 (or one row, such as 3).`);
  const from = Number(m[1]);
  const to = Number(m[2] ?? m[1]);
  if (from < 1) throw new Error("Rows are counted from 1 (the row nearest the stage).");
  if (from > to) throw new Error(`The range must go from the lower row to the higher one (${to}–${from}).`);
  return { from, to };
}

/** Comma- or space-separated codes (`"101, 102 103"`) → `["101","102","103"]`, without blanks or repeats. */
export function splitCodes(text: string): string[] {
  return [...new Set(text.split(/[\s,;]+/).map((c) => c.trim()).filter(Boolean))];
}

// ─── Form schemas (shared by the server actions) ─────────────────────────────

/** One price level exactly as the form submits it (all strings). */
export interface PriceLevelFormValues {
  name: string;
  price: string;
  currency: string;
  color: string;
  /** Comma-separated tiers; each tier becomes its own rule. */
  tiers: string;
  /** Comma-separated section codes. */
  sections: string;
  /** Row range "from–to" (row 1 is nearest the stage). */
  rows: string;
}

/** The whole show form as submitted (all strings); also the form's default values. */
export interface EventFormValues {
  venueId: string;
  name: string;
  slug: string;
  description: string;
  /** Local date-time in the venue's time zone, "YYYY-MM-DDTHH:mm". */
  startsAt: string;
  onSaleAt: string;
  holdMinutes: string;
  perFanLimit: string;
  admissionRatePerMinute: string;
  activeCap: string;
  priceLevels: PriceLevelFormValues[];
}

const wholeNumber = (label: string, min: number, max: number, fallback: number) =>
  z.preprocess(
    (v) => (typeof v === "string" && v.trim() === "" ? undefined : typeof v === "string" ? v.trim() : v),
    z.coerce
      .number({ error: `${label} must be a whole number` })
      .int(`${label} must be a whole number`)
      .min(min, `${label} must be at least ${min}`)
      .max(max, `${label} must be at most ${max.toLocaleString("en-GB")}`)
      .default(fallback),
  );

const localDateTime = (what: string) =>
  z
    .string({ error: `Enter ${what}` })
    .trim()
    .min(1, `Enter ${what}`)
    .regex(LOCAL_DATE_TIME, `Enter ${what} as a date and time such as 2027-03-01 19:30`);

/**
 * One price level of the form → a {@link priceLevelInputSchema} value for createEvent:
 * the price in minor units, and its seats as rules — one per listed tier (or one rule when
 * no tier is given), each narrowed by the listed sections and the row range. A level with
 * no criterion at all takes every seat that no earlier level took.
 */
export const priceLevelFormSchema = z
  .object({
    name: z.string({ error: "Give the price level a name" }).trim().min(1, "Give the price level a name").max(60, "Keep the name within 60 characters"),
    price: z.string({ error: "Enter a price such as 79.00" }).trim().min(1, "Enter a price such as 79.00"),
    currency: z
      .string({ error: "Enter a currency code such as EUR" })
      .trim()
      .toUpperCase()
      .regex(/^[A-Z]{3}$/, "Use a three-letter ISO currency code such as EUR"),
    color: z.string({ error: "Pick a colour" }).trim().regex(/^#[0-9a-fA-F]{6}$/, "Pick a colour such as #1e88e5"),
    tiers: z.string().trim().max(500).default(""),
    sections: z.string().trim().max(2_000).default(""),
    rows: z.string().trim().max(40).default(""),
  })
  .transform((v, ctx) => {
    let priceMinor = 0;
    let rowRange: { from: number; to: number } | undefined;
    try {
      priceMinor = parseMajorUnits(v.price, v.currency);
    } catch (e) {
      ctx.addIssue({ code: "custom", path: ["price"], message: (e as Error).message });
    }
    try {
      rowRange = parseRowRange(v.rows);
    } catch (e) {
      ctx.addIssue({ code: "custom", path: ["rows"], message: (e as Error).message });
    }
    if (ctx.issues.length > 0) return z.NEVER;
    const sectionCodes = splitCodes(v.sections);
    const narrowing: SeatRule = { ...(sectionCodes.length ? { sections: sectionCodes } : {}), ...(rowRange ? { rows: rowRange } : {}) };
    const tiers = splitCodes(v.tiers);
    const seatRules: SeatRule[] = tiers.length ? tiers.map((tier) => ({ tier, ...narrowing })) : [narrowing];
    return priceLevelInputSchema.parse({ name: v.name, priceMinor, currency: v.currency, color: v.color.toLowerCase(), seats: seatRules });
  });

const priceLevelsFormSchema = z
  .array(priceLevelFormSchema, { error: "Add at least one price level" })
  .min(1, "Add at least one price level")
  .max(MAX_PRICE_LEVELS, `A show has at most ${MAX_PRICE_LEVELS} price levels`);

const commonFields = {
  name: z.string({ error: "Give the show a name" }).trim().min(1, "Give the show a name").max(120, "Keep the name within 120 characters"),
  description: z.string().trim().max(2_000, "Keep the description within 2,000 characters").default(""),
  startsAt: localDateTime("when the show starts"),
  onSaleAt: localDateTime("when the on-sale opens"),
  holdMinutes: wholeNumber("The hold time", 1, 120, 15),
  perFanLimit: wholeNumber("The per-fan limit", 1, 50, 4),
  admissionRatePerMinute: wholeNumber("The admission rate", 1, 1_000_000, 600),
  activeCap: wholeNumber("The active cap", 1, 1_000_000, 2_000),
};

function checkLevels(v: { priceLevels?: { name: string; currency: string }[] }, ctx: z.RefinementCtx) {
  const levels = v.priceLevels ?? [];
  const seen = new Map<string, number>();
  levels.forEach((l, i) => {
    const key = l.name.toLowerCase();
    if (seen.has(key)) ctx.addIssue({ code: "custom", path: ["priceLevels", i, "name"], message: `Two price levels are called "${l.name}"; give each its own name` });
    else seen.set(key, i);
    if (i > 0 && l.currency !== levels[0]!.currency) {
      ctx.addIssue({ code: "custom", path: ["priceLevels", i, "currency"], message: `Use the same currency for every level (${levels[0]!.currency})` });
    }
  });
}

/** The "new show" form: venue, slug and every editable field, with 1–8 price levels. */
export const eventCreateFormSchema = z
  .object({
    venueId: z.string({ error: "Choose a venue" }).trim().min(1, "Choose a venue"),
    slug: z
      .string({ error: "Choose a slug" })
      .trim()
      .toLowerCase()
      .min(1, "Choose a slug (the show's address, such as summer-night-2027)")
      .max(80, "Keep the slug within 80 characters")
      .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "Use lower-case letters, digits and single dashes, such as summer-night-2027"),
    ...commonFields,
    priceLevels: priceLevelsFormSchema,
  })
  .superRefine(checkLevels);

/** The "edit show" form: the venue and slug are fixed; price levels are absent when they can no longer change. */
export const eventEditFormSchema = z.object({ ...commonFields, priceLevels: priceLevelsFormSchema.optional() }).superRefine(checkLevels);

/** Parsed "new show" form. */
export type EventCreateForm = z.output<typeof eventCreateFormSchema>;
/** Parsed "edit show" form. */
export type EventEditForm = z.output<typeof eventEditFormSchema>;

/**
 * FormData of the show form → a plain object for {@link eventCreateFormSchema} /
 * {@link eventEditFormSchema}. Price-level inputs are named `levels.<i>.<field>`;
 * `priceLevels` is left out when the form has none (a show whose levels are locked).
 */
export function eventFormFromFormData(form: FormData): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const levels: Record<string, string>[] = [];
  for (const [key, value] of form.entries()) {
    if (typeof value !== "string" || key.startsWith("$ACTION")) continue;
    const m = /^levels\.(\d{1,2})\.([a-zA-Z]+)$/.exec(key);
    if (m) (levels[Number(m[1])] ??= {})[m[2]!] = value;
    else if (!key.startsWith("levels.")) out[key] = value;
  }
  if (levels.length > 0) out.priceLevels = Array.from(levels, (l) => l ?? {});
  return out;
}

/** The submitted values back as strings (so the form can show them again next to its errors). */
export function eventFormValues(raw: Record<string, unknown>): EventFormValues {
  const s = (v: unknown) => (typeof v === "string" ? v : "");
  const levels = Array.isArray(raw.priceLevels) ? (raw.priceLevels as Record<string, unknown>[]) : [];
  return {
    venueId: s(raw.venueId),
    name: s(raw.name),
    slug: s(raw.slug),
    description: s(raw.description),
    startsAt: s(raw.startsAt),
    onSaleAt: s(raw.onSaleAt),
    holdMinutes: s(raw.holdMinutes),
    perFanLimit: s(raw.perFanLimit),
    admissionRatePerMinute: s(raw.admissionRatePerMinute),
    activeCap: s(raw.activeCap),
    priceLevels: levels.map((l) => ({
      name: s(l.name),
      price: s(l.price),
      currency: s(l.currency),
      color: s(l.color),
      tiers: s(l.tiers),
      sections: s(l.sections),
      rows: s(l.rows),
    })),
  };
}

/** A zod error as `{ "priceLevels.1.price": "message" }`, first message per field; form-wide messages under `""`. */
export function fieldErrors(error: z.ZodError): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of error.issues) {
    const key = issue.path.join(".");
    out[key] ??= issue.message;
  }
  return out;
}

// ─── Venues ──────────────────────────────────────────────────────────────────

/** A venue as the form's venue picker shows it. */
export interface VenueSummary {
  id: string;
  slug: string;
  name: string;
  city: string;
  timeZone: string;
  capacity: number;
}

/** All venues, by name. */
export async function listVenues(db: Db): Promise<VenueSummary[]> {
  return db
    .select({ id: venues.id, slug: venues.slug, name: venues.name, city: venues.city, timeZone: venues.timeZone, capacity: venues.capacity })
    .from(venues)
    .orderBy(asc(venues.name));
}

/** One section of a venue with its size, for the seat-rule hints. */
export interface VenueSection {
  code: string;
  name: string;
  tier: string;
  kind: "seated" | "general_admission";
  /** Number of rows (row 1 is nearest the stage). */
  rows: number;
  seats: number;
}

/** The venue's sections in plan order: codes, tiers, row and seat counts (empty for an unknown venue). */
export async function venueSections(db: Db, venueId: string): Promise<VenueSection[]> {
  return db
    .select({
      code: sections.code,
      name: sections.name,
      tier: sections.tier,
      kind: sections.kind,
      rows: sql<number>`count(distinct ${rows.id})::int`,
      seats: sql<number>`count(${seats.id})::int`,
    })
    .from(sections)
    .leftJoin(rows, eq(rows.sectionId, sections.id))
    .leftJoin(seats, eq(seats.rowId, rows.id))
    .where(eq(sections.venueId, venueId))
    .groupBy(sections.id)
    .orderBy(asc(sections.id));
}

type PriceLevelInput = z.output<typeof priceLevelInputSchema>;

/**
 * Checks that every tier and section code of the levels exists in the venue and rewrites
 * them in the venue's own spelling (codes are matched case-insensitively).
 * @throws {SeatRuleError} naming the unknown codes and the ones that exist.
 */
async function canonicalLevels(db: Db, venueId: string, levels: PriceLevelInput[]): Promise<PriceLevelInput[]> {
  const secs = await venueSections(db, venueId);
  const sectionCodes = new Map(secs.map((s) => [s.code.toLowerCase(), s.code]));
  const tierNames = new Map(secs.map((s) => [s.tier.toLowerCase(), s.tier]));
  return levels.map((level, i) => ({
    ...level,
    seats: level.seats.map((rule) => {
      const out: SeatRule = { ...rule };
      if (rule.tier) {
        const tier = tierNames.get(rule.tier.toLowerCase());
        if (!tier) throw new SeatRuleError(`There is no tier "${rule.tier}" in this venue. Its tiers: ${[...new Set(tierNames.values())].join(", ")}.`, i, "tiers");
        out.tier = tier;
      }
      if (rule.sections) {
        const unknown = rule.sections.filter((c) => !sectionCodes.has(c.toLowerCase()));
        if (unknown.length) {
          throw new SeatRuleError(`No section ${unknown.join(", ")} in this venue. Its sections: ${abbreviate([...sectionCodes.values()])}.`, i, "sections");
        }
        out.sections = rule.sections.map((c) => sectionCodes.get(c.toLowerCase())!);
      }
      return out;
    }),
  }));
}

function abbreviate(codes: string[], max = 30): string {
  return codes.length <= max ? codes.join(", ") : `${codes.slice(0, max).join(", ")} … (${codes.length} in all)`;
}

// ─── Inventory planning ──────────────────────────────────────────────────────

type SeatFacts = { seatId: number; tier: string; section: string; row: number };

async function loadVenueSeats(db: Tx, venueId: string): Promise<SeatFacts[]> {
  return db
    .select({ seatId: seats.id, tier: sections.tier, section: sections.code, row: sql<number>`${rows.sortOrder} + 1` })
    .from(seats)
    .innerJoin(sections, eq(seats.sectionId, sections.id))
    .innerJoin(rows, eq(seats.rowId, rows.id))
    .where(eq(seats.venueId, venueId))
    .orderBy(asc(seats.ordinal));
}

/** Seat id → index of the first level whose rules match it (the same rule as createEvent). */
function assignSeats(venueSeats: SeatFacts[], levels: { seats: SeatRule[] }[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const seat of venueSeats) {
    const i = levels.findIndex((l) => l.seats.some((rule) => seatMatches(rule, seat)));
    if (i >= 0) out.set(seat.seatId, i);
  }
  return out;
}

function sameAssignment(a: Map<number, number>, b: Map<number, number>): boolean {
  if (a.size !== b.size) return false;
  for (const [seat, level] of a) if (b.get(seat) !== level) return false;
  return true;
}

/**
 * Seat rules that reproduce an existing assignment, for the edit form (the database keeps
 * the assignment, not the rules). Per level: the tiers (or sections) it covers and its row
 * range, left out where they cover the whole venue. `exact` says whether re-applying them
 * (first match wins) gives back exactly the stored assignment.
 */
function describeAssignment(venueSeats: SeatFacts[], assignment: Map<number, number>, levelCount: number): { rules: Pick<PriceLevelFormValues, "tiers" | "sections" | "rows">[]; exact: boolean } {
  const allSections = [...new Set(venueSeats.map((s) => s.section))];
  const sectionsOfTier = new Map<string, Set<string>>();
  const maxRow = new Map<string, number>();
  for (const s of venueSeats) {
    if (!sectionsOfTier.has(s.tier)) sectionsOfTier.set(s.tier, new Set());
    sectionsOfTier.get(s.tier)!.add(s.section);
    maxRow.set(s.section, Math.max(maxRow.get(s.section) ?? 0, s.row));
  }
  const rules: Pick<PriceLevelFormValues, "tiers" | "sections" | "rows">[] = [];
  const derived: { seats: SeatRule[] }[] = [];
  for (let i = 0; i < levelCount; i++) {
    const mine = venueSeats.filter((s) => assignment.get(s.seatId) === i);
    const secs = new Set(mine.map((s) => s.section));
    const secList = allSections.filter((c) => secs.has(c));
    let tiers: string[] = [];
    let sectionList: string[] = [];
    if (secList.length > 0 && secList.length < allSections.length) {
      const whole = [...sectionsOfTier].filter(([, set]) => [...set].every((c) => secs.has(c)));
      const covered = new Set(whole.flatMap(([, set]) => [...set]));
      if (whole.length > 0 && covered.size === secs.size) tiers = whole.map(([t]) => t);
      else sectionList = secList;
    }
    const lo = mine.reduce((m, s) => Math.min(m, s.row), Infinity);
    const hi = mine.reduce((m, s) => Math.max(m, s.row), 0);
    const deepest = secList.reduce((m, c) => Math.max(m, maxRow.get(c) ?? 0), 0);
    const range = mine.length > 0 && (lo > 1 || hi < deepest) ? { from: lo, to: hi } : undefined;
    const narrowing: SeatRule = { ...(sectionList.length ? { sections: sectionList } : {}), ...(range ? { rows: range } : {}) };
    derived.push({ seats: tiers.length ? tiers.map((tier) => ({ tier, ...narrowing })) : [narrowing] });
    rules.push({ tiers: tiers.join(", "), sections: sectionList.join(", "), rows: range ? (range.from === range.to ? String(range.from) : `${range.from}–${range.to}`) : "" });
  }
  return { rules, exact: sameAssignment(assignSeats(venueSeats, derived), assignment) };
}

// ─── Reading a show for its edit page ────────────────────────────────────────

/** A price level with the number of seats it sells. Price in minor units. */
export interface SetupPriceLevel {
  id: string;
  name: string;
  priceMinor: number;
  currency: string;
  color: string;
  seats: number;
}

/** Everything the edit page shows about one show. */
export interface EventSetup {
  event: typeof events.$inferSelect;
  venue: VenueSummary;
  levels: SetupPriceLevel[];
  seatsOnSale: number;
  orderCount: number;
  /** Null when price levels and seats may still change; otherwise why not. */
  levelsLocked: PriceLevelsLockedError["reason"] | null;
  /** The form's starting values (times in the event's time zone, prices in major units, rules derived from the inventory). */
  form: EventFormValues;
  /** False when the derived rules do not reproduce the stored seat assignment exactly. */
  rulesExact: boolean;
}

/** The show, its venue, levels with seat counts and the form's starting values; null for an unknown show. No ownership check: callers use requireOrganizerOfEvent first. */
export async function getEventSetup(db: Db, eventId: string, now = new Date()): Promise<EventSetup | null> {
  const [row] = await db.select({ event: events, venue: venues }).from(events).innerJoin(venues, eq(events.venueId, venues.id)).where(eq(events.id, eventId));
  if (!row) return null;
  const { event, venue } = row;
  const levels = await db
    .select({ id: priceLevels.id, name: priceLevels.name, priceMinor: priceLevels.priceMinor, currency: priceLevels.currency, color: priceLevels.color, seats: sql<number>`count(${eventSeats.seatId})::int` })
    .from(priceLevels)
    .leftJoin(eventSeats, eq(eventSeats.priceLevelId, priceLevels.id))
    .where(eq(priceLevels.eventId, eventId))
    .groupBy(priceLevels.id)
    .orderBy(asc(priceLevels.sortOrder));
  const [{ n: orderCount } = { n: 0 }] = await db.select({ n: sql<number>`count(*)::int` }).from(orders).where(eq(orders.eventId, eventId));
  const venueSeats = await loadVenueSeats(db, venue.id);
  const stored = await currentAssignment(db, eventId, levels.map((l) => l.id));
  const described = describeAssignment(venueSeats, stored, levels.length);
  const levelsLocked = lockReason(event, orderCount, now);
  return {
    event,
    venue: { id: venue.id, slug: venue.slug, name: venue.name, city: venue.city, timeZone: venue.timeZone, capacity: venue.capacity },
    levels,
    seatsOnSale: levels.reduce((n, l) => n + l.seats, 0),
    orderCount,
    levelsLocked,
    rulesExact: described.exact,
    form: {
      venueId: venue.id,
      name: event.name,
      slug: event.slug,
      description: event.description,
      startsAt: utcToZonedLocal(event.startsAt, event.timeZone),
      onSaleAt: utcToZonedLocal(event.onSaleAt, event.timeZone),
      holdMinutes: String(event.holdMinutes),
      perFanLimit: String(event.perFanLimit),
      admissionRatePerMinute: String(event.admissionRatePerMinute),
      activeCap: String(event.activeCap),
      priceLevels: levels.map((l, i) => ({ name: l.name, price: formatMajorUnits(l.priceMinor, l.currency), currency: l.currency, color: l.color, ...described.rules[i]! })),
    },
  };
}

/** Seat id → index (in `levelIds` order) of its stored price level. */
async function currentAssignment(db: Tx, eventId: string, levelIds: string[]): Promise<Map<number, number>> {
  const index = new Map(levelIds.map((id, i) => [id, i]));
  const stored = await db.select({ seatId: eventSeats.seatId, level: eventSeats.priceLevelId }).from(eventSeats).where(eq(eventSeats.eventId, eventId));
  return new Map(stored.map((s) => [s.seatId, index.get(s.level) ?? -1]));
}

function lockReason(event: { status: string; onSaleAt: Date }, orderCount: number, now: Date): PriceLevelsLockedError["reason"] | null {
  if (orderCount > 0) return "orders";
  if (event.status === "published" && event.onSaleAt <= now) return "on_sale";
  return null;
}

// ─── Create, update, publish ─────────────────────────────────────────────────

function toUtc(local: string, timeZone: string, field: "startsAt" | "onSaleAt"): Date {
  try {
    return zonedLocalToUtc(local, timeZone);
  } catch (e) {
    if (e instanceof LocalTimeError) throw new EventTimeError(e.message, field);
    throw e;
  }
}

function checkTimes(startsAt: Date, onSaleAt: Date, now: Date, startsAtChanged: boolean): void {
  if (startsAtChanged && startsAt <= now) throw new EventTimeError("The show must start in the future.", "startsAt");
  if (onSaleAt >= startsAt) throw new EventTimeError("The on-sale must open before the show starts.", "onSaleAt");
}

/**
 * Creates a draft show from the parsed "new show" form: resolves the venue and its time
 * zone, turns the local times into UTC, checks the seat rules against the venue, then
 * calls {@link createEvent}.
 * @returns the new event id and the seats put on sale per level name.
 * @throws {UnknownVenueError} {EventTimeError} {SeatRuleError} {SlugTakenError} (each names its form field).
 */
export async function createEventFromForm(db: Db, organizerId: string, form: EventCreateForm, now = new Date()) {
  const venue = await db.query.venues.findFirst({ where: eq(venues.id, form.venueId) });
  if (!venue) throw new UnknownVenueError();
  const startsAt = toUtc(form.startsAt, venue.timeZone, "startsAt");
  const onSaleAt = toUtc(form.onSaleAt, venue.timeZone, "onSaleAt");
  checkTimes(startsAt, onSaleAt, now, true);
  const levels = await canonicalLevels(db, venue.id, form.priceLevels);
  try {
    return await createEvent(db, {
      venueId: venue.id,
      organizerId,
      name: form.name,
      slug: form.slug,
      description: form.description,
      status: "draft",
      startsAt,
      onSaleAt,
      timeZone: venue.timeZone,
      holdMinutes: form.holdMinutes,
      perFanLimit: form.perFanLimit,
      admissionRatePerMinute: form.admissionRatePerMinute,
      activeCap: form.activeCap,
      priceLevels: levels,
    });
  } catch (e) {
    if (e instanceof EmptyPriceLevelError) throw emptyLevel(e, levels);
    if (uniqueViolation(e) === "events_slug_unique") throw new SlugTakenError(form.slug);
    throw e;
  }
}

function emptyLevel(e: EmptyPriceLevelError, levels: { name: string }[]): SeatRuleError {
  const i = Math.max(0, levels.findIndex((l) => l.name === e.level));
  return new SeatRuleError(`No seat is left for "${e.level}": its rules match no seat of this venue, or earlier levels already took them all.`, i);
}

/**
 * Applies the parsed "edit show" form: local times are read in the show's time zone;
 * price levels (when the form has them) are checked against the venue and passed on.
 * @throws what {@link updateEvent} throws, with {@link EmptyPriceLevelError} turned into a {@link SeatRuleError}.
 */
export async function updateEventFromForm(db: Db, eventId: string, organizerId: string, form: EventEditForm, now = new Date()) {
  const event = await db.query.events.findFirst({ where: eq(events.id, eventId) });
  if (!event) throw new EventNotFoundError();
  if (event.organizerId !== organizerId) throw new NotYourEventError();
  const levels = form.priceLevels ? await canonicalLevels(db, event.venueId, form.priceLevels) : undefined;
  try {
    return await updateEvent(
      db,
      eventId,
      organizerId,
      {
        name: form.name,
        description: form.description,
        startsAt: toUtc(form.startsAt, event.timeZone, "startsAt"),
        onSaleAt: toUtc(form.onSaleAt, event.timeZone, "onSaleAt"),
        holdMinutes: form.holdMinutes,
        perFanLimit: form.perFanLimit,
        admissionRatePerMinute: form.admissionRatePerMinute,
        activeCap: form.activeCap,
        ...(levels ? { priceLevels: levels } : {}),
      },
      now,
    );
  } catch (e) {
    if (e instanceof EmptyPriceLevelError && levels) throw emptyLevel(e, levels);
    throw e;
  }
}

/** What {@link updateEvent} accepts: any subset of the editable fields. Instants are UTC `Date`s. */
export const eventUpdateSchema = z.object({
  name: z.string().trim().min(1).max(120).optional(),
  description: z.string().max(2_000).optional(),
  startsAt: z.date().optional(),
  onSaleAt: z.date().optional(),
  timeZone: z.string().refine(isTimeZone, "timeZone must be an IANA time zone such as Europe/Berlin").optional(),
  holdMinutes: z.number().int().min(1).max(120).optional(),
  perFanLimit: z.number().int().min(1).max(50).optional(),
  admissionRatePerMinute: z.number().int().min(1).max(1_000_000).optional(),
  activeCap: z.number().int().min(1).max(1_000_000).optional(),
  /** Replaces all levels and the inventory (same rules as createEvent); refused once locked unless unchanged. */
  priceLevels: z.array(priceLevelInputSchema).min(1).max(MAX_PRICE_LEVELS).optional(),
});

/** Input of {@link updateEvent}. */
export type EventUpdateInput = z.input<typeof eventUpdateSchema>;

/** What {@link updateEvent} did. */
export interface UpdateEventResult {
  eventId: string;
  slug: string;
  status: "draft" | "published" | "cancelled";
  /** True when the price levels and inventory were replaced. */
  levelsReplaced: boolean;
  /** Seats on sale per level name after the update (null when levels were not given). */
  seatsByLevel: Record<string, number> | null;
}

/**
 * Edits a show as its organizer, in one transaction under a row lock on the event.
 * Price levels given identical to the stored ones (same names, prices, colours and seat
 * assignment) are left alone; different ones replace the levels and the inventory — only
 * while the show has no order and, if published, before its on-sale. For a published show,
 * Redis follows afterwards: a built inventory is rebuilt, and the waiting room's on-sale,
 * rate and cap are updated when Redis holds its configuration.
 * @throws {z.ZodError} on malformed input; {@link EventNotFoundError}, {@link NotYourEventError},
 *   {@link EventNotEditableError}, {@link PriceLevelsLockedError}, {@link OnSaleLockedError},
 *   {@link EventTimeError}, {@link EmptyPriceLevelError}.
 */
export async function updateEvent(db: Db, eventId: string, organizerId: string, input: EventUpdateInput, now = new Date()): Promise<UpdateEventResult> {
  const v = eventUpdateSchema.parse(input);
  let before!: typeof events.$inferSelect;
  const result = await db.transaction(async (tx) => {
    const [ev] = await tx.select().from(events).where(eq(events.id, eventId)).for("update");
    if (!ev) throw new EventNotFoundError();
    if (ev.organizerId !== organizerId) throw new NotYourEventError();
    if (ev.status === "cancelled") throw new EventNotEditableError();
    before = ev;
    const startsAt = v.startsAt ?? ev.startsAt;
    const onSaleAt = v.onSaleAt ?? ev.onSaleAt;
    const onSaleMoved = onSaleAt.getTime() !== ev.onSaleAt.getTime();
    if (onSaleMoved && ev.status === "published" && ev.onSaleAt <= now) throw new OnSaleLockedError();
    checkTimes(startsAt, onSaleAt, now, startsAt.getTime() !== ev.startsAt.getTime());

    let levelsReplaced = false;
    let seatsByLevel: Record<string, number> | null = null;
    if (v.priceLevels) {
      const venueSeats = await loadVenueSeats(tx, ev.venueId);
      const planned = assignSeats(venueSeats, v.priceLevels);
      seatsByLevel = Object.fromEntries(v.priceLevels.map((l) => [l.name, 0]));
      for (const i of planned.values()) seatsByLevel[v.priceLevels[i]!.name]! += 1;
      for (const l of v.priceLevels) if (seatsByLevel[l.name] === 0) throw new EmptyPriceLevelError(l.name);

      const stored = await tx.select().from(priceLevels).where(eq(priceLevels.eventId, eventId)).orderBy(asc(priceLevels.sortOrder));
      const sameLevels =
        stored.length === v.priceLevels.length &&
        stored.every((s, i) => {
          const n = v.priceLevels![i]!;
          return s.name === n.name && s.priceMinor === n.priceMinor && s.currency === n.currency && s.color.toLowerCase() === n.color.toLowerCase();
        });
      const unchanged = sameLevels && sameAssignment(planned, await currentAssignment(tx, eventId, stored.map((s) => s.id)));
      if (!unchanged) {
        const [{ n: orderCount } = { n: 0 }] = await tx.select({ n: sql<number>`count(*)::int` }).from(orders).where(eq(orders.eventId, eventId));
        const locked = lockReason(ev, orderCount, now);
        if (locked) throw new PriceLevelsLockedError(locked);
        await replaceInventory(tx, eventId, v.priceLevels, planned);
        levelsReplaced = true;
      }
    }

    await tx
      .update(events)
      .set({
        ...(v.name !== undefined ? { name: v.name } : {}),
        ...(v.description !== undefined ? { description: v.description } : {}),
        ...(v.timeZone !== undefined ? { timeZone: v.timeZone } : {}),
        ...(v.holdMinutes !== undefined ? { holdMinutes: v.holdMinutes } : {}),
        ...(v.perFanLimit !== undefined ? { perFanLimit: v.perFanLimit } : {}),
        ...(v.admissionRatePerMinute !== undefined ? { admissionRatePerMinute: v.admissionRatePerMinute } : {}),
        ...(v.activeCap !== undefined ? { activeCap: v.activeCap } : {}),
        startsAt,
        onSaleAt,
        updatedAt: now,
      })
      .where(eq(events.id, eventId));
    return { eventId, slug: ev.slug, status: ev.status, levelsReplaced, seatsByLevel };
  });

  forgetEvent(eventId);
  if (result.status === "published") await syncRedisAfterEdit(db, before, v, result.levelsReplaced);
  return result;
}

/** Deletes the event's inventory and levels and writes the new ones (inside the caller's transaction). */
async function replaceInventory(tx: Tx, eventId: string, levels: PriceLevelInput[], planned: Map<number, number>): Promise<void> {
  const ids = levels.map(() => newId("pl"));
  await tx.delete(eventSeats).where(eq(eventSeats.eventId, eventId));
  await tx.delete(priceLevels).where(eq(priceLevels.eventId, eventId));
  await tx.insert(priceLevels).values(
    levels.map((l, i) => ({ id: ids[i]!, eventId, name: l.name, priceMinor: l.priceMinor, currency: l.currency, color: l.color, sortOrder: i })),
  );
  const inventory = [...planned].map(([seatId, i]) => ({ eventId, seatId, priceLevelId: ids[i]! }));
  for (let i = 0; i < inventory.length; i += INSERT_BATCH) await tx.insert(eventSeats).values(inventory.slice(i, i + INSERT_BATCH));
}

/** Brings Redis in line with an edited published show (Postgres stays the record; Redis is rebuilt lazily otherwise). */
async function syncRedisAfterEdit(db: Db, before: typeof events.$inferSelect, v: z.output<typeof eventUpdateSchema>, levelsReplaced: boolean): Promise<void> {
  const eventId = before.id;
  if (levelsReplaced && (await inventoryReady(eventId))) await rebuildInventory(db, eventId);
  const cfg = queueKeys(eventId)[0]!;
  if (!(await redis().exists(cfg))) return; // not configured yet: the next queue call reads Postgres
  if (v.onSaleAt && v.onSaleAt.getTime() !== before.onSaleAt.getTime()) await redis().hset(cfg, { onSaleAt: v.onSaleAt.getTime() });
  const rate = v.admissionRatePerMinute !== undefined && v.admissionRatePerMinute !== before.admissionRatePerMinute ? v.admissionRatePerMinute : undefined;
  const cap = v.activeCap !== undefined && v.activeCap !== before.activeCap ? v.activeCap : undefined;
  if (rate !== undefined || cap !== undefined) {
    await setQueueControls(db, eventId, { ...(rate !== undefined ? { ratePerMinute: rate } : {}), ...(cap !== undefined ? { activeCap: cap } : {}) });
  }
}

/**
 * Publishes a draft show: a guarded `UPDATE … WHERE status = 'draft'` (and the organizer owns it).
 * @returns true when this call published it; false when it was not a draft (already published: a no-op).
 * @throws {EventNotFoundError} {NotYourEventError} {EventNotEditableError} (a cancelled show).
 */
export async function publishEvent(db: Db, eventId: string, organizerId: string): Promise<boolean> {
  const updated = await db
    .update(events)
    .set({ status: "published", updatedAt: new Date() })
    .where(and(eq(events.id, eventId), eq(events.organizerId, organizerId), eq(events.status, "draft")))
    .returning({ id: events.id });
  forgetEvent(eventId);
  if (updated.length === 1) return true;
  const event = await db.query.events.findFirst({ where: eq(events.id, eventId), columns: { organizerId: true, status: true } });
  if (!event) throw new EventNotFoundError();
  if (event.organizerId !== organizerId) throw new NotYourEventError();
  if (event.status === "cancelled") throw new EventNotEditableError();
  return false;
}
