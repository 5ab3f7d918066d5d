/**
 * The show form's problems (lib/events/form.ts) as stable codes with their facts
 * (`atLeast` {what: "holdMinutes", min: 1}), each a message of the catalogue's
 * `EventForm.errors` namespace in every language — the way AppError codes are worded
 * (lib/i18n/translate.ts). A problem travels from the server action to the form as one string,
 * `code?fact=value&…`, which the form decodes and words in the page's language. No imports:
 * the form (a client component) reads this module too.
 */

/** The form's problem codes: each is a message of `EventForm.errors` in every catalogue. */
export const FORM_PROBLEM_CODES = [
  "venue",
  "slugMissing",
  "slugTooLong",
  "slugFormat",
  "showName",
  "tooLong",
  "enterTime",
  "timeFormat",
  "wholeNumber",
  "atLeast",
  "atMost",
  "levelName",
  "priceMissing",
  "price",
  "currency",
  "colour",
  "rowsFormat",
  "rowsFromOne",
  "rowsOrder",
  "levelsMissing",
  "levelsTooMany",
  "sameName",
  "sameCurrency",
  "invalid",
] as const;

/** One of {@link FORM_PROBLEM_CODES}. */
export type FormProblemCode = (typeof FORM_PROBLEM_CODES)[number];

/** A problem with one field: its code and the facts its message is made of (the message's ICU arguments). */
export interface FormProblem {
  code: FormProblemCode;
  params: Record<string, string | number>;
  /**
   * The English words of a refusal raised below the form with more facts than its code has
   * (lib/format.ts's price messages): English readers read these, others the code's message —
   * as with AppErrors, whose English message is written where they are raised.
   */
  english?: string;
}

/** Facts that are numbers (formatted in the reader's locale); every other fact stays text (a level called "2027" is a name). */
const NUMBER_FACTS = new Set(["min", "max", "low", "high"]);

/** A problem as the one string a zod message and the form's state carry: `atLeast?what=holdMinutes&min=1`. */
export function encodeFormProblem(code: FormProblemCode, params: Record<string, string | number> = {}, english?: string): string {
  const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
  if (english) query.set("_en", english);
  const q = query.toString();
  return q ? `${code}?${q}` : code;
}

/** The problem a string from {@link encodeFormProblem} carries, or null for any other text (an AppError's message, already in words). */
export function decodeFormProblem(text: string): FormProblem | null {
  const m = /^([a-zA-Z]+)(?:\?(.*))?$/s.exec(text);
  if (!m || !(FORM_PROBLEM_CODES as readonly string[]).includes(m[1]!)) return null;
  const params: Record<string, string | number> = {};
  let english: string | undefined;
  for (const [k, v] of new URLSearchParams(m[2] ?? "")) {
    if (k === "_en") english = v;
    else params[k] = NUMBER_FACTS.has(k) && /^\d+$/.test(v) ? Number(v) : v;
  }
  return { code: m[1] as FormProblemCode, params, ...(english ? { english } : {}) };
}
