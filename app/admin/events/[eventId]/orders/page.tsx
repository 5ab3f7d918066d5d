import Link from "next/link";
import { EventAdminNav, StatusBadge } from "@/app/admin/_components/event-nav";
import { searchOrders, SEARCH_LIMIT } from "@/lib/admin/orders";
import { requireOrganizerOfEvent } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { formatInZone, formatMoney } from "@/lib/format";
import { OrderFilters, OrderList } from "./order-list";

export const metadata = { title: "Orders" };

/**
 * The orders of one show: a list filtered by status (`?status=`), a page at a time
 * (`?page=`), with a CSV download of the filtered list (./order-list.tsx); and a search
 * (`?q=`) by fan email, order id, seat label ("Row B · Seat 4") or seat number. Organizer
 * of the show only (others get 403, fans too).
 */
export default async function EventOrdersPage({ params, searchParams }: PageProps<"/admin/events/[eventId]/orders">) {
  const { eventId } = await params;
  const { user, event } = await requireOrganizerOfEvent(eventId, `/admin/events/${eventId}/orders`);
  const query = await searchParams;
  const raw = query.q;
  const q = (typeof raw === "string" ? raw : "").trim().slice(0, 200);
  const hits = q ? await searchOrders(db(), user.id, event.id, q) : [];
  return (
    <div className="space-y-6">
      <EventAdminNav eventId={event.id} name={event.name} current="orders" />
      <h1 className="text-3xl font-bold">Orders</h1>
      <form method="get" className="flex max-w-2xl gap-2" role="search">
        <label className="sr-only" htmlFor="order-search">
          Search orders
        </label>
        <input
          id="order-search"
          name="q"
          defaultValue={q}
          placeholder="Fan email, order id, seat (Row B · Seat 4) or seat number"
          className="w-full rounded bg-black/40 px-3 py-2"
          autoComplete="off"
        />
        <button className="button-primary px-4 py-2">Search</button>
      </form>
      {!q && <OrderList organizerId={user.id} event={event} query={{ status: query.status, page: query.page }} />}
      {q && <OrderFilters organizerId={user.id} eventId={event.id} />}
      {q && (
        <p className="text-sm text-white/60" data-testid="order-search-summary">
          {`${hits.length === SEARCH_LIMIT ? `First ${SEARCH_LIMIT}` : hits.length} ${hits.length === 1 ? "order matches" : "orders match"} “${q}”.`}{" "}
          <Link href={`/admin/events/${event.id}/orders`} className="underline">
            All orders
          </Link>
        </p>
      )}
      {hits.length > 0 && (
        <div className="overflow-x-auto">
          <table className="w-full text-left text-sm" data-testid="order-results">
            <thead className="text-white/60">
              <tr>
                <th className="py-1">Order</th>
                <th>Fan</th>
                <th>Seats</th>
                <th>Status</th>
                <th className="text-right">Total</th>
                <th className="text-right">Placed</th>
              </tr>
            </thead>
            <tbody>
              {hits.map((h) => (
                <tr key={h.id} className="border-t border-white/10 align-top" data-testid="order-result">
                  <td className="py-2 font-mono text-xs">
                    <Link href={`/admin/orders/${h.id}`} className="underline">
                      {h.id}
                    </Link>
                  </td>
                  <td>{h.fanEmail}</td>
                  <td className="text-white/80">{h.seats.join(", ")}</td>
                  <td>
                    <StatusBadge status={h.status} />
                  </td>
                  <td className="text-right tabular-nums">{formatMoney(h.totalMinor, h.currency)}</td>
                  <td className="text-right text-white/70">{formatInZone(h.createdAt, event.timeZone)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
