import type { Metadata } from "next";
import Link from "next/link";
import { getLocale, getTranslations } from "next-intl/server";
import { statusWord } from "@/app/admin/_components/event-nav";
import { requireOrganizer } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { listOrganizerEvents } from "@/lib/events/queries";
import { formatCount, formatInZone } from "@/lib/format";
import { intlLocale } from "@/lib/i18n/config";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("Admin"))("dashboard") };
}

/**
 * Organizer home: their shows. Server-side role check: fans get 403, signed-out users go to sign-in.
 * A table on a desktop; on a phone each show is a card (the table's rows stacked), so nothing scrolls sideways.
 */
export default async function AdminPage() {
  const organizer = await requireOrganizer("/admin");
  const shows = await listOrganizerEvents(db(), organizer.id);
  const [t, admin, status, fmt] = await Promise.all([getTranslations("AdminShows"), getTranslations("Admin"), getTranslations("Admin.status"), getLocale().then(intlLocale)]);
  // Words shown before a value only on a phone, where the table's header is hidden.
  const phoneLabel = (text: string) => <span className="mr-1 text-white/60 md:hidden">{admin("labelled", { label: text })}</span>;
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-3xl font-bold">{admin("dashboard")}</h1>
        <div className="flex flex-wrap gap-3">
          <Link href="/admin/scan" className="rounded bg-white/10 px-4 py-2 hover:bg-white/20">
            {admin("checkIn")}
          </Link>
          <Link href="/admin/events/new" className="button-primary px-4 py-2">
            {t("newShow")}
          </Link>
        </div>
      </div>
      <p className="break-words text-white/70">{t("signedInAs", { email: organizer.email })}</p>
      {shows.length === 0 ? (
        <p className="text-white/60" data-testid="no-shows">
          {t("noShows")}
        </p>
      ) : (
        <table className="w-full text-left text-sm max-md:block" data-testid="organizer-shows">
          <thead className="text-white/60 max-md:sr-only">
            <tr>
              <th className="py-1">{t("show")}</th>
              <th>{t("status")}</th>
              <th>{t("onSale")}</th>
              <th className="text-right">{t("soldOfOnSale")}</th>
              <th className="text-right">
                <span className="sr-only">{t("actions")}</span>
              </th>
            </tr>
          </thead>
          <tbody className="max-md:block">
            {shows.map((s) => (
              <tr key={s.id} className="border-t border-white/10 max-md:block max-md:space-y-1 max-md:py-3">
                <td className="py-2 max-md:block max-md:py-0 max-md:text-base max-md:font-semibold">
                  {/* A draft has no public page yet: its name opens the set-up page. */}
                  <Link href={s.status === "published" ? `/events/${s.slug}` : `/admin/events/${s.id}/edit`} className="break-words underline">
                    {s.name}
                  </Link>
                </td>
                <td className="max-md:block" data-status={s.status}>
                  {phoneLabel(t("status"))}
                  {statusWord(status, s.status)}
                </td>
                <td className="max-md:block">
                  {phoneLabel(t("onSale"))}
                  {formatInZone(s.onSaleAt, s.timeZone, fmt)}
                </td>
                <td className="text-right tabular-nums max-md:block max-md:text-left">
                  {phoneLabel(t("soldOfOnSale"))}
                  {formatCount(s.seatsSold, fmt)} / {formatCount(s.seatsOnSale, fmt)}
                </td>
                <td className="text-right max-md:block max-md:pt-1 max-md:text-left">
                  <span className="inline-flex flex-wrap gap-x-3 gap-y-1 md:justify-end">
                    <Link href={`/admin/events/${s.id}/edit`} className="underline" aria-label={t("editOf", { name: s.name })}>
                      {t("edit")}
                    </Link>
                    <Link href={`/admin/events/${s.id}/live`} className="underline" aria-label={t("liveOf", { name: s.name })}>
                      {admin("live")}
                    </Link>
                    <Link href={`/admin/events/${s.id}/orders`} className="underline" aria-label={t("ordersOf", { name: s.name })}>
                      {admin("orders")}
                    </Link>
                    <Link href={`/admin/events/${s.id}/discrepancies`} className="underline" aria-label={t("discrepanciesOf", { name: s.name })}>
                      {admin("discrepancies")}
                    </Link>
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
