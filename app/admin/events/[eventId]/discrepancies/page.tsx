import type { Metadata } from "next";
import Link from "next/link";
import { getLocale, getTranslations } from "next-intl/server";
import { EventAdminNav, StatusBadge } from "@/app/admin/_components/event-nav";
import { listDiscrepancies } from "@/lib/admin/discrepancies";
import { requireOrganizerOfEvent } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { formatInZone } from "@/lib/format";
import { intlLocale } from "@/lib/i18n/config";
import { DISCREPANCY_KINDS, type KnownKind } from "./kinds";
import { RunReconciliation } from "./run-button";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("Admin"))("discrepancies") };
}

/**
 * What reconciliation found for one show — kind and what it means, order, status, when — with
 * the record reconciliation wrote (in English, as logged) folded away, and a button to run a
 * pass now. Organizer of the show only. A table on a desktop, one card per finding on a phone.
 */
export default async function DiscrepanciesPage({ params }: PageProps<"/admin/events/[eventId]/discrepancies">) {
  const { eventId } = await params;
  const { user, event } = await requireOrganizerOfEvent(eventId, `/admin/events/${eventId}/discrepancies`);
  const rows = await listDiscrepancies(db(), user.id, event.id);
  const [t, admin, fmt] = await Promise.all([getTranslations("Discrepancies"), getTranslations("Admin"), getLocale().then(intlLocale)]);
  const known = (kind: string): kind is KnownKind => (DISCREPANCY_KINDS as readonly string[]).includes(kind);
  const phoneLabel = (text: string) => <span className="mr-1 text-white/60 md:hidden">{admin("labelled", { label: text })}</span>;
  return (
    <div className="space-y-6">
      <EventAdminNav eventId={event.id} name={event.name} current="discrepancies" />
      <h1 className="text-3xl font-bold">{admin("discrepancies")}</h1>
      <p className="max-w-3xl text-white/70">{t.rich("intro", { em: (chunks) => <em className="font-semibold not-italic">{chunks}</em> })}</p>
      <RunReconciliation eventId={event.id} />
      {rows.length === 0 ? (
        <p className="text-white/60" data-testid="no-discrepancies">
          {t("none")}
        </p>
      ) : (
        <table className="w-full text-left text-sm max-md:block" data-testid="discrepancies">
          <thead className="text-white/60 max-md:sr-only">
            <tr>
              <th className="py-1">{t("kind")}</th>
              <th>{t("order")}</th>
              <th>{t("status")}</th>
              <th className="text-right">{t("detected")}</th>
            </tr>
          </thead>
          <tbody className="max-md:block">
            {rows.map((d) => (
              <tr key={d.id} className="border-t border-white/10 align-top max-md:block max-md:space-y-1 max-md:py-3" data-testid="discrepancy" data-kind={d.kind}>
                <td className="py-2 pr-3 max-md:block max-md:py-0">
                  <p className="font-medium">{known(d.kind) ? t(`kinds.${d.kind}`) : d.kind}</p>
                  {known(d.kind) && <p className="mt-0.5 max-w-xl text-white/70">{t(`explain.${d.kind}`)}</p>}
                  {d.action && (
                    <details className="mt-1 text-xs text-white/60">
                      <summary className="cursor-pointer">{t("record")}</summary>
                      <p lang="en" className="mt-1 break-words font-mono">
                        {d.action}
                      </p>
                    </details>
                  )}
                </td>
                <td className="pr-3 font-mono text-xs max-md:block">
                  {phoneLabel(t("order"))}
                  {d.orderId ? (
                    <Link href={`/admin/orders/${d.orderId}`} className="break-all underline">
                      {d.orderId}
                    </Link>
                  ) : (
                    "—"
                  )}
                </td>
                <td className="pr-3 max-md:block">
                  <StatusBadge status={d.status} />
                </td>
                <td className="text-right text-white/70 max-md:block max-md:text-left">
                  {phoneLabel(t("detected"))}
                  {formatInZone(d.detectedAt, event.timeZone, fmt)}
                  {d.resolvedAt && <span className="block text-xs">{t("resolved", { at: formatInZone(d.resolvedAt, event.timeZone, fmt) })}</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
