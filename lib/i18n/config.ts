/**
 * The languages StarArena speaks and how a request's language is chosen (docs/adr/0018).
 *
 * A fan sees English (`en`) or Simplified Chinese (`zh-CN`). The choice, in order: the
 * `NEXT_LOCALE` cookie the language switcher writes; else the browser's `Accept-Language`
 * (RFC 9110 §12.5.4, highest q first; every `zh` tag reads as zh-CN — Traditional ones too,
 * zh-TW, zh-HK, zh-MO, zh-Hant: Simplified is the Chinese we have, and a reader of Traditional
 * reads it far better than English); else English.
 *
 * Pure and Web-standard (no Next.js import): the proxy, the standalone door, route
 * handlers, server actions and the mail worker all decide the same way.
 */

/** The locales with a catalogue in ./messages, in the switcher's order. */
export const LOCALES = ["en", "zh-CN"] as const;
/** One of {@link LOCALES}. */
export type Locale = (typeof LOCALES)[number];
/** Used when nothing else says which. */
export const DEFAULT_LOCALE: Locale = "en";
/** The cookie the language switcher sets (next-intl's default name), one year. */
export const LOCALE_COOKIE = "NEXT_LOCALE";
/** Seconds the language cookie lasts: a year. */
export const LOCALE_COOKIE_MAX_AGE_SECONDS = 365 * 24 * 3600;

/** Whether a string is one of {@link LOCALES} (exact spelling). */
export function isLocale(value: unknown): value is Locale {
  return typeof value === "string" && (LOCALES as readonly string[]).includes(value);
}

/**
 * The supported locale a language tag falls under, or null: `en`, `en-US`, `en-GB` → en;
 * every Chinese tag → zh-CN: `zh`, `zh-CN`, `zh-SG`, `zh-Hans…`, and Traditional ones
 * (`zh-TW`, `zh-HK`, `zh-MO`, `zh-Hant…`: the Simplified catalogue, docs/design.md
 * "Languages"); everything else → null.
 */
export function matchLocale(tag: string): Locale | null {
  const t = tag.trim().toLowerCase();
  if (t === "en" || t.startsWith("en-")) return "en";
  if (t === "zh" || t.startsWith("zh-")) return "zh-CN";
  return null;
}

/**
 * The best supported locale for an `Accept-Language` header, or null when none fits.
 * Entries are ranked by q (default 1; q=0 means "not this"), ties keep header order.
 */
export function fromAcceptLanguage(header: string | null | undefined): Locale | null {
  if (!header) return null;
  const ranked = header
    .slice(0, 512)
    .split(",")
    .map((part, i) => {
      const [tag = "", ...params] = part.split(";");
      const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
      const weight = q ? Number(q.slice(2)) : 1;
      return { tag, weight: Number.isFinite(weight) ? weight : 0, i };
    })
    .filter((e) => e.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.i - b.i);
  for (const e of ranked) {
    const hit = matchLocale(e.tag);
    if (hit) return hit;
  }
  return null;
}

/** The value of one cookie in a `Cookie` header, or undefined. */
function cookieValue(header: string | null | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined; // a broken %-escape names no locale: the browser's languages decide
      }
    }
  }
  return undefined;
}

/**
 * The locale of a request from its headers: the {@link LOCALE_COOKIE} when it names a
 * supported locale, else `Accept-Language`, else {@link DEFAULT_LOCALE}.
 * @param headers anything with `get(name)`: a `Headers`, Next's `headers()`.
 */
export function localeOfRequest(headers: { get(name: string): string | null }): Locale {
  const chosen = cookieValue(headers.get("cookie"), LOCALE_COOKIE);
  if (isLocale(chosen)) return chosen;
  return fromAcceptLanguage(headers.get("accept-language")) ?? DEFAULT_LOCALE;
}

/**
 * The BCP 47 tag `Intl` formats with for a locale: English is formatted the British way
 * (day before month, 24-hour clock), which reads right to fans everywhere and matches
 * the venues' own 24-hour times; Chinese as zh-CN.
 */
export function intlLocale(locale: Locale): string {
  return locale === "zh-CN" ? "zh-CN" : "en-GB";
}
