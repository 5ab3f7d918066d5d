import Link from "next/link";
import { useLocale, useTranslations } from "next-intl";
import { StatusBadge } from "@/app/admin/_components/event-nav";
import type { OrderListRow } from "@/lib/admin/orders";
import { formatInZone, formatMoney } from "@/lib/format";
import { intlLocale, isLocale } from "@/lib/i18n/config";
import { seatLabel, type SeatWords } from "@/lib/venues/seat-label";

/**
 * Orders as the list and the search show them (the same rows: lib/admin/orders.ts): order id,
 * fan, seats in the reader's language, status, total, refunded, placed (the venue's time). A
 * table on a desktop; on a phone each order is a card (the rows stacked, each value after its
 * column's name), so nothing runs off the screen.
 */
export function OrderTable({ rows, timeZone, testId, rowTestId }: { rows: OrderListRow[]; timeZone: string; testId: string; rowTestId: string }) {
  const t = useTranslations("AdminOrders");
  const seatWords = useTranslations("Seat") as unknown as SeatWords;
  const locale = useLocale();
  const fmt = intlLocale(isLocale(locale) ? locale : "en");
  // A column's name before its value, on a phone only (the table's header is hidden there).
  const phoneLabel = (text: string) => <span className="text-white/60 md:hidden">{text}: </span>;
  return (
    <table className="w-full text-left text-sm max-md:block" data-testid={testId}>
      <thead className="text-white/60 max-md:sr-only">
        <tr>
          <th className="py-1 pr-3">{t("colOrder")}</th>
          <th className="pr-3">{t("colFan")}</th>
          <th className="pr-3">{t("colSeats")}</th>
          <th className="pr-3">{t("colStatus")}</th>
          <th className="pr-3 text-right">{t("colTotal")}</th>
          <th className="pr-3 text-right">{t("colRefunded")}</th>
          <th className="text-right">{t("colPlaced")}</th>
        </tr>
      </thead>
      <tbody className="max-md:block">
        {rows.map((r) => (
          <tr key={r.id} className="border-t border-white/10 align-top max-md:block max-md:space-y-1 max-md:py-3" data-testid={rowTestId} data-status={r.status}>
            <td className="py-2 pr-3 font-mono text-xs max-md:block max-md:py-0" translate="no">
              <Link href={`/admin/orders/${r.id}`} className="break-all underline">
                {r.id}
              </Link>
            </td>
            <td className="py-2 pr-3 max-md:block max-md:py-0">
              {phoneLabel(t("colFan"))}
              {r.fanEmail === null ? t("deletedAccount") : <span className="break-all" translate="no">{r.fanEmail}</span>}
            </td>
            <td className="py-2 pr-3 text-white/80 max-md:block max-md:py-0">
              {phoneLabel(t("colSeats"))}
              {r.seats.map((seat) => seatLabel(seatWords, seat)).join(", ")}
            </td>
            <td className="py-2 pr-3 max-md:block max-md:py-0">
              <StatusBadge status={r.status} />
            </td>
            <td className="whitespace-nowrap py-2 pr-3 text-right tabular-nums max-md:block max-md:py-0 max-md:text-left">
              {phoneLabel(t("colTotal"))}
              {formatMoney(r.totalMinor, r.currency, fmt)}
            </td>
            <td className={`whitespace-nowrap py-2 pr-3 text-right tabular-nums text-white/70 max-md:block max-md:py-0 max-md:text-left ${r.refundedMinor > 0 ? "" : "max-md:hidden"}`} data-testid="order-refunded">
              {phoneLabel(t("colRefunded"))}
              {r.refundedMinor > 0 ? formatMoney(r.refundedMinor, r.currency, fmt) : "—"}
            </td>
            <td className="py-2 text-right text-white/70 max-md:block max-md:py-0 max-md:text-left">
              {phoneLabel(t("colPlaced"))}
              {formatInZone(r.createdAt, timeZone, fmt)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
