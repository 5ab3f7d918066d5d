/**
 * The organizer's show form (new and edit): its values as the browser sends them, the zod
 * schemas the server actions parse them with, FormData → object and back, and zod errors
 * as per-field messages. Prices are typed in major units (lib/format.ts parses them);
 * times in the venue's wall clock (lib/time-zone.ts turns them into UTC).
 */
import { z } from "zod";
import { priceLevelInputSchema } from "@/lib/events/seat-rules";
import type { RuleTexts, SeatRule } from "@/lib/events/seat-rules";
import { parseMajorUnits } from "@/lib/format";
import { SLUG_MAX_LENGTH, SLUG_PATTERN } from "@/lib/ids";
import { LOCAL_DATE_TIME } from "@/lib/time-zone";

/** Most price levels one show may have. */
export const MAX_PRICE_LEVELS = 8;

// ─── Seat rules as typed ─────────────────────────────────────────────────────

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
function splitCodes(text: string): string[] {
  return [...new Set(text.split(/[\s,;]+/).map((c) => c.trim()).filter(Boolean))];
}

// ─── Form schemas (shared by the server actions) ─────────────────────────────

/**
 * One price level exactly as the form submits it (all strings); `tiers` (each tier its own
 * rule) and `sections` are comma-separated, `rows` a range "from–to" (row 1 nearest the stage).
 */
export interface PriceLevelFormValues extends RuleTexts {
  name: string;
  price: string;
  currency: string;
  color: string;
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
    .regex(LOCAL_DATE_TIME, `Enter ${what} as a date such as 2027-03-01 and a 24-hour time such as 19:30`);

/**
 * One price level of the form → a {@link priceLevelInputSchema} value for createEvent:
 * the price in minor units, and its seats as rules — one per listed tier (or one rule when
 * no tier is given), each narrowed by the listed sections and the row range. A level with
 * no criterion at all takes every seat that no earlier level took.
 */
const priceLevelFormSchema = z
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
      .max(SLUG_MAX_LENGTH, `Keep the slug within ${SLUG_MAX_LENGTH} characters`)
      .regex(SLUG_PATTERN, "Use lower-case letters, digits and single dashes, such as summer-night-2027"),
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
  for (const field of ["startsAt", "onSaleAt"] as const) {
    const date = out[`${field}Date`];
    const time = out[`${field}Time`];
    delete out[`${field}Date`];
    delete out[`${field}Time`];
    if (typeof date === "string" || typeof time === "string") out[field] = joinLocalDateTime(String(date ?? ""), String(time ?? ""));
  }
  return out;
}

/**
 * The form's separate date (`YYYY-MM-DD`) and 24-hour time (`HH:mm`, or `H:mm`, or `HH.mm`)
 * inputs → the `"YYYY-MM-DDTHH:mm"` local date-time the schema and lib/time-zone.ts read.
 * Anything else is passed on as typed (joined with a space), so the schema's message names it.
 */
export function joinLocalDateTime(date: string, time: string): string {
  const d = date.trim();
  const t = time.trim();
  if (d === "" && t === "") return "";
  const hm = /^(\d{1,2})[:.](\d{2})$/.exec(t);
  if (/^\d{4}-\d{2}-\d{2}$/.test(d) && hm) return `${d}T${hm[1]!.padStart(2, "0")}:${hm[2]}`;
  return `${d} ${t}`.trim();
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

