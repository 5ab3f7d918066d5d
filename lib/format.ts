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

/** "Sat 30 Jan 2027, 20:00 CET" — the instant in the venue's time zone. */
export function formatInZone(at: Date, timeZone: string, locale = "en-GB"): string {
  return new Intl.DateTimeFormat(locale, {
    weekday: "short",
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    timeZone,
    timeZoneName: "short",
  }).format(at);
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

