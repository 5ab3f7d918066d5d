/**
 * Clock times of the live view in the show's venue zone (docs/design.md "Languages": times
 * are the venue's, with its zone's label), to the second for the "updated" line and to the
 * minute for the sales chart. Pure: the live view is a client component.
 */

/** "20:10:05 CET" (en-GB) / "GMT+1 20:10:05" (zh-CN): an instant's time of day in `timeZone`, 24-hour, with the zone's label. */
export function formatClockInZone(at: Date, timeZone: string, locale = "en-GB"): string {
  return new Intl.DateTimeFormat(locale, { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23", timeZone, timeZoneName: "short" }).format(at);
}

/** "20:10": an instant's hour and minute in `timeZone`, 24-hour, without the zone (a chart's axis names it once). */
export function formatMinuteInZone(at: Date, timeZone: string, locale = "en-GB"): string {
  return new Intl.DateTimeFormat(locale, { hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZone }).format(at);
}

/** "CET" (en-GB) / "GMT+1" (zh-CN): the label of `timeZone` at an instant. */
export function zoneLabel(at: Date, timeZone: string, locale = "en-GB"): string {
  return new Intl.DateTimeFormat(locale, { timeZone, timeZoneName: "short" }).formatToParts(at).find((p) => p.type === "timeZoneName")?.value ?? timeZone;
}
