/**
 * A seat's label in the reader's language. The stored label (`seats.label`, "Sec 104 · Row 7 ·
 * Seat 12") is the canonical English one: ticket codes sign it and the organizer's search
 * matches it. Everything a person reads composes the label from its parts through the `Seat`
 * catalogue namespace, so Chinese reads "104区 7排 12号" (docs/adr/0029).
 *
 * Pure: the seat map composes labels in the browser, pages and e-mails on the server.
 */

/** What a seat's label is made of: its section's code, whether it is standing room, its row's label and its number. */
export interface SeatParts {
  section: string;
  standing: boolean;
  row: string;
  number: number;
}

/** A translator of the `Seat` namespace: next-intl's `useTranslations("Seat")` or lib/i18n/translate.ts `translator(locale, "Seat")`. */
export type SeatWords = (key: "seated" | "standing", values: { section?: string; row?: string; seat?: string; unit?: string }) => string;

/** The seat's label in the translator's language (numbers as plain digits, as printed on a ticket). */
export function seatLabel(t: SeatWords, p: SeatParts): string {
  return p.standing ? t("standing", { unit: String(p.number) }) : t("seated", { section: p.section, row: p.row, seat: String(p.number) });
}
