/**
 * A show's price levels as a table: colour swatch and name, price, and one figure per level
 * (seats on sale for the organizer's setup page, seats remaining for fans). Pure: rendered on the
 * server (the setup page) and in the browser (the show page's live levels). Every heading is
 * given in the page's language.
 */
import type { ReactNode } from "react";
import { formatMoney } from "@/lib/format";

/** One row: `figure` fills the last column. Prices in minor units (cents). */
export interface PriceLevelRow {
  id: string;
  name: string;
  color: string;
  priceMinor: number;
  currency: string;
  figure: ReactNode;
}

/** @param locale the Intl locale money is formatted in (en-GB unless given). */
export function PriceLevelTable(props: { rows: PriceLevelRow[]; levelHeader: string; priceHeader: string; figureHeader: string; testId: string; locale?: string }) {
  return (
    <table className="w-full max-w-2xl text-left text-sm" data-testid={props.testId}>
      <thead className="text-white/70">
        <tr>
          <th className="py-1">{props.levelHeader}</th>
          <th className="py-1">{props.priceHeader}</th>
          <th className="py-1 text-right">{props.figureHeader}</th>
        </tr>
      </thead>
      <tbody>
        {props.rows.map((l) => (
          <tr key={l.id} className="border-t border-white/10">
            <td className="py-2">
              <span aria-hidden="true" className="mr-2 inline-block h-3 w-3 rounded-sm align-middle" style={{ background: l.color }} />
              {l.name}
            </td>
            <td className="py-2">{formatMoney(l.priceMinor, l.currency, props.locale)}</td>
            <td className="py-2 text-right tabular-nums">{l.figure}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
