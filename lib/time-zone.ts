/**
 * Time zones with Intl alone (no library): wall-clock date-times in a venue's IANA time
 * zone to UTC instants and back, DST-aware. Organizers type local times; Postgres stores
 * UTC; pages show the venue's wall clock (lib/format.ts `formatInZone`).
 */
import { AppError } from "@/lib/errors";

const DAY_MS = 86_400_000;

/** A local date-time that is malformed, or does not exist in the time zone (skipped by a DST change): 400 `bad_local_time`. */
export class LocalTimeError extends AppError {
  constructor(message: string) {
    super("bad_request", "bad_local_time", message);
  }
}

/** A local date-time as forms send it: "YYYY-MM-DDTHH:mm" (seconds optional, a space for the T accepted). */
export const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$/;
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

