/**
 * The organizer's show form (new and edit): its values as the browser sends them, the zod
 * schemas the server actions parse them with, FormData → object and back, and zod errors
 * as per-field problems. Prices are typed in major units (lib/format.ts parses them);
 * times in the venue's wall clock (lib/time-zone.ts turns them into UTC).
 *
 * A problem is a stable code with its facts (`atLeast` {what: "holdMinutes", min: 1}), worded
 * in the reader's language by the catalogue's `EventForm.errors` namespace — the way AppError
 * codes are (lib/i18n/translate.ts); ./form-problems.ts encodes it as the one string the
 * server action hands the form.
 */
import { z } from "zod";
import { DEFAULT_LOCALE, type Locale } from "@/lib/i18n/config";
import { translator } from "@/lib/i18n/translate";
import { priceLevelInputSchema } from "@/lib/events/seat-rules";
import type { RuleTexts, SeatRule } from "@/lib/events/seat-rules";
import { parseMajorUnits, PriceFormatError } from "@/lib/format";
import { SLUG_MAX_LENGTH, SLUG_PATTERN } from "@/lib/ids";
import { LOCAL_DATE_TIME } from "@/lib/time-zone";
import { decodeFormProblem, encodeFormProblem } from "@/lib/events/form-problems";

export { decodeFormProblem, encodeFormProblem, FORM_PROBLEM_CODES, type FormProblem, type FormProblemCode } from "@/lib/events/form-problems";

/** Most price levels one show may have. */
export const MAX_PRICE_LEVELS = 8;

/**
 * The words of one problem (a string from {@link fieldErrors}) in a locale; text that is no
 * problem code (an AppError's message, translated where it was raised) comes back as it is.
 * (The form itself words them with the page's translator: app/admin/events/event-form.tsx.)
 */
export function formProblemText(locale: Locale, text: string): string {
  const problem = decodeFormProblem(text);
  if (!problem) return text;
  if (problem.english && locale === DEFAULT_LOCALE) return problem.english;
  const t = translator(locale, "EventForm");
  return t(`errors.${problem.code}` as never, problem.params as never);
}

const problem = encodeFormProblem;

/** A price written the way `currency` is written: "79.00" (EUR), "7900" (JPY), "79.000" (KWD). */
function priceExample(currency: string): string {
  let digits = 2;
  try {
    digits = new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    // an unknown code: two decimals, like most currencies
  }
  return digits > 0 ? `79.${"0".repeat(digits)}` : "7900";
}

// ─── Seat rules as typed ─────────────────────────────────────────────────────

/** A row range the form cannot read; its message is an encoded {@link FormProblem}. */
export class RowRangeError extends Error {}

/**
 * `"1–2"`, `"1-2"`, `"1 to 2"` → {from 1, to 2}; `"3"` → {3, 3}; `""` → undefined.
 * @throws {RowRangeError} whose message is the problem (`rowsFormat`, `rowsFromOne`, `rowsOrder`).
 */
export function parseRowRange(text: string): { from: number; to: number } | undefined {
  const t = text.trim();
  if (t === "") return undefined;
  const m = /^(\d{1,4})(?:\s*(?:-|–|—|to|\.\.)\s*(\d{1,4}))?$/i.exec(t);
  if (!m) throw new RowRangeError(problem("rowsFormat"));
  const from = Number(m[1]);
  const to = Number(m[2] ?? m[1]);
  if (from < 1) throw new RowRangeError(problem("rowsFromOne"));
  if (from > to) throw new RowRangeError(problem("rowsOrder", { low: to, high: from }));
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

/** @param what the field, which the messages name ("The hold time must be at least 1"). */
const wholeNumber = (what: "holdMinutes" | "perFanLimit" | "admissionRatePerMinute" | "activeCap", min: number, max: number, fallback: number) =>
  z.preprocess(
    (v) => (typeof v === "string" && v.trim() === "" ? undefined : typeof v === "string" ? v.trim() : v),
    z.coerce
      .number({ error: problem("wholeNumber", { what }) })
      .int(problem("wholeNumber", { what }))
      .min(min, problem("atLeast", { what, min }))
      .max(max, problem("atMost", { what, max }))
      .default(fallback),
  );

const localDateTime = (what: "startsAt" | "onSaleAt") =>
  z
    .string({ error: problem("enterTime", { what }) })
    .trim()
    .min(1, problem("enterTime", { what }))
    .regex(LOCAL_DATE_TIME, problem("timeFormat", { what }));

/**
 * One price level of the form → a {@link priceLevelInputSchema} value for createEvent:
 * the price in minor units, and its seats as rules — one per listed tier (or one rule when
 * no tier is given), each narrowed by the listed sections and the row range. A level with
 * no criterion at all takes every seat that no earlier level took.
 */
const priceLevelFormSchema = z
  .object({
    name: z.string({ error: problem("levelName") }).trim().min(1, problem("levelName")).max(60, problem("tooLong", { max: 60 })),
    price: z.string({ error: problem("priceMissing") }).trim().min(1, problem("priceMissing")),
    currency: z
      .string({ error: problem("currency") })
      .trim()
      .toUpperCase()
      .regex(/^[A-Z]{3}$/, problem("currency")),
    color: z.string({ error: problem("colour") }).trim().regex(/^#[0-9a-fA-F]{6}$/, problem("colour")),
    tiers: z.string().trim().max(500, problem("tooLong", { max: 500 })).default(""),
    sections: z.string().trim().max(2_000, problem("tooLong", { max: 2_000 })).default(""),
    rows: z.string().trim().max(40, problem("tooLong", { max: 40 })).default(""),
  })
  .transform((v, ctx) => {
    let priceMinor = 0;
    let rowRange: { from: number; to: number } | undefined;
    try {
      priceMinor = parseMajorUnits(v.price, v.currency);
    } catch (e) {
      if (!(e instanceof PriceFormatError)) throw e;
      // lib/format.ts says in English exactly what is wrong with the amount; other languages say how to write one.
      ctx.addIssue({ code: "custom", path: ["price"], message: problem("price", { example: priceExample(v.currency) }, e.message) });
    }
    try {
      rowRange = parseRowRange(v.rows);
    } catch (e) {
      if (!(e instanceof RowRangeError)) throw e;
      ctx.addIssue({ code: "custom", path: ["rows"], message: e.message });
    }
    if (ctx.issues.length > 0) return z.NEVER;
    const sectionCodes = splitCodes(v.sections);
    const narrowing: SeatRule = { ...(sectionCodes.length ? { sections: sectionCodes } : {}), ...(rowRange ? { rows: rowRange } : {}) };
    const tiers = splitCodes(v.tiers);
    const seatRules: SeatRule[] = tiers.length ? tiers.map((tier) => ({ tier, ...narrowing })) : [narrowing];
    return priceLevelInputSchema.parse({ name: v.name, priceMinor, currency: v.currency, color: v.color.toLowerCase(), seats: seatRules });
  });

const priceLevelsFormSchema = z
  .array(priceLevelFormSchema, { error: problem("levelsMissing") })
  .min(1, problem("levelsMissing"))
  .max(MAX_PRICE_LEVELS, problem("levelsTooMany", { max: MAX_PRICE_LEVELS }));

const commonFields = {
  name: z.string({ error: problem("showName") }).trim().min(1, problem("showName")).max(120, problem("tooLong", { max: 120 })),
  description: z.string().trim().max(2_000, problem("tooLong", { max: 2_000 })).default(""),
  startsAt: localDateTime("startsAt"),
  onSaleAt: localDateTime("onSaleAt"),
  holdMinutes: wholeNumber("holdMinutes", 1, 120, 15),
  perFanLimit: wholeNumber("perFanLimit", 1, 50, 4),
  admissionRatePerMinute: wholeNumber("admissionRatePerMinute", 1, 1_000_000, 600),
  activeCap: wholeNumber("activeCap", 1, 1_000_000, 2_000),
};

function checkLevels(v: { priceLevels?: { name: string; currency: string }[] }, ctx: z.RefinementCtx) {
  const levels = v.priceLevels ?? [];
  const seen = new Map<string, number>();
  levels.forEach((l, i) => {
    const key = l.name.toLowerCase();
    if (seen.has(key)) ctx.addIssue({ code: "custom", path: ["priceLevels", i, "name"], message: problem("sameName", { name: l.name }) });
    else seen.set(key, i);
    if (i > 0 && l.currency !== levels[0]!.currency) {
      ctx.addIssue({ code: "custom", path: ["priceLevels", i, "currency"], message: problem("sameCurrency", { currency: levels[0]!.currency }) });
    }
  });
}

/** The "new show" form: venue, slug and every editable field, with 1–8 price levels. */
export const eventCreateFormSchema = z
  .object({
    venueId: z.string({ error: problem("venue") }).trim().min(1, problem("venue")),
    slug: z
      .string({ error: problem("slugMissing") })
      .trim()
      .toLowerCase()
      .min(1, problem("slugMissing"))
      .max(SLUG_MAX_LENGTH, problem("slugTooLong", { max: SLUG_MAX_LENGTH }))
      .regex(SLUG_PATTERN, problem("slugFormat")),
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

/**
 * A zod error as `{ "priceLevels.1.price": "price?example=79.00…" }`: the first problem per field,
 * encoded ({@link encodeFormProblem}; word it with {@link formProblemText}); form-wide ones under `""`.
 * An issue without a problem code (zod's own wording) becomes `invalid`.
 */
export function fieldErrors(error: z.ZodError): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of error.issues) {
    const key = issue.path.join(".");
    out[key] ??= decodeFormProblem(issue.message) ? issue.message : problem("invalid");
  }
  return out;
}

