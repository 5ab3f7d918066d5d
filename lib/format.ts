/**
 * Display formatting shared by pages and components, and its inverse for money typed
 * into forms. Money arrives in minor units (cents) with an ISO 4217 currency; instants are
 * shown in the venue's IANA time zone.
 */
import { AppError } from "@/lib/errors";

/** A price that is not a plain amount in major units for its currency: 400 `bad_price`. */
export class PriceFormatError extends AppError {
  constructor(message: string) {
    super("bad_request", "bad_price", message);
  }
}

/** "€129.00" for (12900, "EUR"). Uses the currency's own number of minor digits. */
export function formatMoney(minor: number, currency: string, locale = "en-GB"): string {
  const formatter = new Intl.NumberFormat(locale, { style: "currency", currency });
  const digits = formatter.resolvedOptions().maximumFractionDigits ?? 2;
  return formatter.format(minor / 10 ** digits);
}

/**
 * How a venue's zone is named next to a time: its generic long name — "Central European Time" /
 * "中欧时间", "Eastern Time" / "北美东部时间", "China Standard Time" / "中国标准时间" — which reads
 * as a place in both languages, where the short name is "CET" in English but "GMT+1" in Chinese.
 * Generic, so the name does not change with daylight saving time (the wall clock shown does).
 * A zone without a name (UTC, Etc/GMT+5) keeps its short form, "UTC" or "GMT-5".
 */
function zoneStyle(timeZone: string): "longGeneric" | "short" {
  return /^(UTC|GMT|Etc\/|UCT|Universal|Zulu)/.test(timeZone) ? "short" : "longGeneric";
}

/** "Sat, 30 Jan 2027, 20:00 Central European Time" / "2027年1月30日周六 中欧时间 20:00" — the instant in the venue's time zone. */
export function formatInZone(at: Date, timeZone: string, locale = "en-GB"): string {
  return new Intl.DateTimeFormat(locale, {
    weekday: "short",
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    timeZone,
    timeZoneName: zoneStyle(timeZone),
  }).format(at);
}

/**
 * "20:10 Central European Time" / "中欧时间 20:10" — the time of day of an instant in the venue's
 * time zone, 24-hour, with the zone's name; with `seconds`, "20:10:05 Central European Time".
 */
export function formatTimeInZone(at: Date, timeZone: string, locale = "en-GB", opts: { seconds?: boolean } = {}): string {
  const parts = new Intl.DateTimeFormat(locale, {
    hour: "2-digit",
    minute: "2-digit",
    ...(opts.seconds ? { second: "2-digit" as const } : {}),
    hourCycle: "h23",
    timeZone,
    timeZoneName: zoneStyle(timeZone),
  }).formatToParts(at);
  return spacedZone(parts);
}

/** Chinese puts the zone before the hour, with a space before "20:10" but none before "20:10:05": always one. */
function spacedZone(parts: Intl.DateTimeFormatPart[]): string {
  return parts.map((p, i) => (p.type === "timeZoneName" && parts[i + 1]?.type === "hour" ? `${p.value} ` : p.value)).join("");
}

/** "7 Dec, 20:31:05 Central European Time" / "12月7日 中欧时间 20:31:05" — a moment of an order's history on the venue's clock. */
export function formatMomentInZone(at: Date, timeZone: string, locale = "en-GB"): string {
  return spacedZone(new Intl.DateTimeFormat(locale, { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23", timeZone, timeZoneName: zoneStyle(timeZone) }).formatToParts(at));
}

/** The venue's zone as people name it: "Central European Time" / "中欧时间" (UTC and offsets as they are). */
export function zoneName(timeZone: string, locale = "en-GB"): string {
  const part = new Intl.DateTimeFormat(locale, { timeZone, timeZoneName: zoneStyle(timeZone) }).formatToParts(new Date()).find((p) => p.type === "timeZoneName");
  return part?.value ?? timeZone;
}

/** "20,000" */
export function formatCount(n: number, locale = "en-GB"): string {
  return new Intl.NumberFormat(locale).format(n);
}

/** Number of minor-unit digits of an ISO 4217 currency (EUR 2, JPY 0, KWD 3), per Intl. */
function currencyDigits(currency: string): number {
  try {
    return new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** Up to three digits, then groups of exactly three: "1", "12", "1234" (no grouping) or "1|234|567" split on the grouping mark. */
const wellGrouped = (groups: string[]) => groups.length > 0 && /^\d{1,3}$/.test(groups[0]!) && groups.slice(1).every((g) => /^\d{3}$/.test(g));

/**
 * Parses a price typed in major units into integer minor units of `currency` (7900 for
 * "79" in EUR). Accepts a decimal point or a decimal comma, and grouping with the other mark:
 * - no mark: `"79"`;
 * - one mark once: it is the decimal mark — `"35.50"` and `"35,50"` are 3550, `"79.5"` 7950 —
 *   except when exactly three digits follow it (`"1,500"`, `"1.500"`): that reads as 1500 in
 *   one locale and 1.5 in another, so it is refused as ambiguous (for a currency without minor
 *   units, such as JPY, it can only be grouping and means 1500);
 * - both marks: the last one is the decimal mark and appears once, the other groups thousands
 *   before it — `"1,234.50"` and `"1.234,50"` are 123450;
 * - one mark several times: grouping of a whole amount — `"1,234,567"`, `"1.234.567"`.
 * Groups after the first have exactly three digits (`"1,234,5"` and `"12,34.00"` are refused).
 * Surrounding spaces are ignored; signs, currency symbols and inner spaces are refused.
 * @throws {PriceFormatError} (400 `bad_price`) with a message saying how to write it.
 */
export function parseMajorUnits(text: string, currency: string): number {
  const digits = currencyDigits(currency);
  const t = text.trim();
  const example = digits > 0 ? `79.${"0".repeat(digits)} or 79,${"0".repeat(digits)}` : "7900";
  const malformed = () => new PriceFormatError(`Enter the price as a number such as ${example}.`);
  if (!/^\d[\d.,]*$/.test(t) || /[.,]$/.test(t)) throw malformed();
  const commas = (t.match(/,/g) ?? []).length;
  const points = (t.match(/\./g) ?? []).length;
  let whole: string;
  let fraction = "";
  if (commas === 0 && points === 0) {
    whole = t;
  } else if (commas > 0 && points > 0) {
    const decimalMark = t.lastIndexOf(",") > t.lastIndexOf(".") ? "," : ".";
    const groupMark = decimalMark === "," ? "." : ",";
    const cut = t.lastIndexOf(decimalMark);
    const before = t.slice(0, cut);
    fraction = t.slice(cut + 1);
    if (before.includes(decimalMark) || !wellGrouped(before.split(groupMark))) {
      throw new PriceFormatError(`"${t}" mixes "." and "," in a way that is not a price. Write it as 1234.50, 1,234.50 or 1.234,50.`);
    }
    whole = before.split(groupMark).join("");
  } else {
    const mark = commas > 0 ? "," : ".";
    const parts = t.split(mark);
    const grouping = parts.length > 2 || (parts[1]!.length === 3 && digits === 0);
    if (!grouping && parts[1]!.length === 3) {
      const thousands = `${parts[0]}${parts[1]}`;
      throw new PriceFormatError(
        digits < 3
          ? `"${t}" is ambiguous: ${currency} prices have at most ${digits} decimals, so write ${thousands} for ${thousands}, or ${parts[0]}.${parts[1]!.slice(0, digits)} for the decimals.`
          : `"${t}" is ambiguous (${thousands}, or ${parts[0]} and ${parts[1]} thousandths): write ${thousands} without a mark, or use both marks, such as 1,000.500.`,
      );
    }
    if (!grouping) {
      [whole, fraction] = [parts[0]!, parts[1]!];
    } else {
      if (!wellGrouped(parts)) throw new PriceFormatError(`"${t}" is not a price: after the first, digits are grouped in threes (1,234,567). Write the decimals after the last mark, such as 1.234,50.`);
      whole = parts.join("");
    }
  }
  if (fraction.length > digits) {
    throw new PriceFormatError(digits === 0 ? `${currency} prices have no decimals.` : `${currency} prices have at most ${digits} decimals.`);
  }
  const minor = Number(whole) * 10 ** digits + Number(fraction.padEnd(digits, "0") || 0);
  if (!Number.isSafeInteger(minor) || minor > 10_000_000) throw new PriceFormatError("That price is too high.");
  return minor;
}

/** Integer minor units as the form shows them in major units: (7900, "EUR") → "79.00". */
export function formatMajorUnits(minor: number, currency: string): string {
  const digits = currencyDigits(currency);
  return digits === 0 ? String(minor) : (minor / 10 ** digits).toFixed(digits);
}

