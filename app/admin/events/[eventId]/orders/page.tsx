import type { Metadata } from "next";
import Link from "next/link";
import { getTranslations } from "next-intl/server";
import { EventAdminNav } from "@/app/admin/_components/event-nav";
import { searchOrders, SEARCH_LIMIT } from "@/lib/admin/orders";
import { requireOrganizerOfEvent } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { OrderFilters, OrderList } from "./order-list";
import { OrderTable } from "./order-table";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("AdminOrders"))("title") };
}

/**
 * The orders of one show: a list filtered by status (`?status=`), a page at a time
 * (`?page=`), with a CSV download of the filtered list (./order-list.tsx); and a search
 * (`?q=`) by fan email, order id, seat label ("Row B · Seat 4", or "B排 4号" as a Chinese
 * reader sees it) or seat number — its hits are rows of the same table. Organizer of the show
 * only (others get 403, fans too).
 */
export default async function EventOrdersPage({ params, searchParams }: PageProps<"/admin/events/[eventId]/orders">) {
  const { eventId } = await params;
  const { user, event } = await requireOrganizerOfEvent(eventId, `/admin/events/${eventId}/orders`);
  const query = await searchParams;
  const raw = query.q;
  const q = (typeof raw === "string" ? raw : "").trim().slice(0, 200);
  const [t, hits] = await Promise.all([getTranslations("AdminOrders"), q ? searchOrders(db(), user.id, event.id, q) : []]);
  return (
    <div className="space-y-6">
      <EventAdminNav eventId={event.id} name={event.name} current="orders" />
      <h1 className="text-3xl font-bold">{t("title")}</h1>
      <form method="get" className="flex max-w-2xl gap-2" role="search">
        <label className="sr-only" htmlFor="order-search">
          {t("searchLabel")}
        </label>
        <input id="order-search" name="q" defaultValue={q} placeholder={t("searchPlaceholder")} className="w-full min-w-0 rounded bg-black/40 px-3 py-2" autoComplete="off" />
        <button className="button-primary shrink-0 px-4 py-2">{t("search")}</button>
      </form>
      {!q && <OrderList organizerId={user.id} event={event} query={{ status: query.status, page: query.page }} />}
      {q && <OrderFilters organizerId={user.id} eventId={event.id} />}
      {q && (
        <p className="break-words text-sm text-white/60" data-testid="order-search-summary">
          {hits.length === SEARCH_LIMIT ? t("searchSummaryFirst", { count: hits.length, q }) : t("searchSummary", { count: hits.length, q })}{" "}
          <Link href={`/admin/events/${event.id}/orders`} className="underline">
            {t("allOrders")}
          </Link>
        </p>
      )}
      {hits.length > 0 && <OrderTable rows={hits} timeZone={event.timeZone} testId="order-results" rowTestId="order-result" />}
    </div>
  );
}
