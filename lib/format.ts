/**
 * Display formatting shared by pages and components.
 * Money arrives in minor units (cents) with an ISO 4217 currency; instants are shown
 * in the venue's IANA time zone.
 */

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
