import Link from "next/link";
import { StatusBadge } from "@/app/admin/_components/event-nav";
import { countEventOrders, listEventOrders, ORDER_LIST_LABELS, ORDER_LIST_STATUSES, parseOrderListQuery, type OrderListStatus } from "@/lib/admin/orders";
import { db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { formatCount, formatInZone, formatMoney } from "@/lib/format";

type Query = { status?: string | string[]; page?: string | string[] };

/** The orders page's address for a filter and a page (the first page and "all" leave their parameter out). */
function listHref(eventId: string, status: OrderListStatus | null, page = 1): string {
  const q = new URLSearchParams();
  if (status) q.set("status", status);
  if (page > 1) q.set("page", String(page));
  const qs = q.toString();
  return `/admin/events/${eventId}/orders${qs ? `?${qs}` : ""}`;
}

/** The CSV export's address for a filter (app/api/admin/events/[eventId]/orders.csv). */
const csvHref = (eventId: string, status: OrderListStatus | null) => `/api/admin/events/${eventId}/orders.csv${status ? `?status=${status}` : ""}`;

/**
 * The status filters as links, each with its number of orders; `active` is marked (null: "All";
 * undefined: none, while a search is shown).
 */
export async function OrderFilters({ organizerId, eventId, active }: { organizerId: string; eventId: string; active?: OrderListStatus | null }) {
  const counts = await countEventOrders(db(), organizerId, eventId);
  const filter = (status: OrderListStatus | null, label: string, n: number) => (
    <li key={status ?? "all"}>
      <Link
        href={listHref(eventId, status)}
        aria-current={active === status ? "page" : undefined}
        data-testid="order-filter"
        data-status={status ?? "all"}
        className={`inline-block rounded px-3 py-1 text-sm ${active === status ? "bg-white/15 font-semibold" : "text-white/70 hover:bg-white/10"}`}
      >
        {label} <span className="tabular-nums text-white/60">{formatCount(n)}</span>
      </Link>
    </li>
  );
  return (
    <nav aria-label="Filter by status">
      <ul className="flex flex-wrap gap-1">
        {filter(null, "All", counts.total)}
        {ORDER_LIST_STATUSES.map((s) => filter(s, ORDER_LIST_LABELS[s], counts.byStatus[s]))}
      </ul>
    </nav>
  );
}

/**
 * A show's orders, newest first, a page at a time (lib/admin/orders.ts `listEventOrders`),
 * filtered by `?status=`, with Previous/Next links that keep the filter and a CSV download
 * of the whole filtered list. A malformed `?status=` or `?page=` is explained, not thrown.
 */
export async function OrderList({ organizerId, event, query }: { organizerId: string; event: { id: string; timeZone: string }; query: Query }) {
  let wanted: ReturnType<typeof parseOrderListQuery>;
  try {
    wanted = parseOrderListQuery(query);
  } catch (error) {
    if (!(error instanceof AppError) || error.kind !== "bad_request") throw error;
    return (
      <>
        <OrderFilters organizerId={organizerId} eventId={event.id} />
        <p role="alert" className="rounded bg-red-500/15 px-3 py-2 text-sm text-red-200" data-testid="order-list-error">
          {error.message}
        </p>
      </>
    );
  }
  const list = await listEventOrders(db(), organizerId, event.id, wanted);
  const { status, page, pages, total } = list;
  return (
    <>
      <OrderFilters organizerId={organizerId} eventId={event.id} active={status} />
      <div className="flex flex-wrap items-center justify-between gap-3">
        <p className="text-sm text-white/60" data-testid="order-list-summary">
          {formatCount(total)} {total === 1 ? "order" : "orders"}
          {status ? ` · ${ORDER_LIST_LABELS[status].toLowerCase()}` : ""} · page {page} of {pages}
        </p>
        {/* A plain link: the answer is a download (Content-Disposition: attachment), not a page. */}
        <a href={csvHref(event.id, status)} download className="rounded bg-white/10 px-3 py-1 text-sm font-semibold hover:bg-white/20" data-testid="orders-csv">
          Download CSV
        </a>
      </div>
      {list.rows.length === 0 ? (
        <p className="text-white/70">{status ? "No orders with this status." : "No orders yet."}</p>
      ) : (
        <div className="overflow-x-auto">
          <table className="w-full min-w-[48rem] text-left text-sm" data-testid="order-list">
            <thead className="text-white/60">
              <tr>
                <th className="py-1">Order</th>
                <th>Fan</th>
                <th>Seats</th>
                <th>Status</th>
                <th className="text-right">Total</th>
                <th className="text-right">Refunded</th>
                <th className="text-right">Placed</th>
              </tr>
            </thead>
            <tbody>
              {list.rows.map((r) => (
                <tr key={r.id} className="border-t border-white/10 align-top" data-testid="order-row" data-status={r.status}>
                  <td className="py-2 pr-2 font-mono text-xs">
                    <Link href={`/admin/orders/${r.id}`} className="underline">
                      {r.id}
                    </Link>
                  </td>
                  <td className="pr-2">{r.fanEmail}</td>
                  <td className="pr-2 text-white/80">{r.seats.join(", ")}</td>
                  <td className="pr-2">
                    <StatusBadge status={r.status} />
                  </td>
                  <td className="text-right tabular-nums">{formatMoney(r.totalMinor, r.currency)}</td>
                  <td className="text-right tabular-nums text-white/70">{r.refundedMinor > 0 ? formatMoney(r.refundedMinor, r.currency) : "—"}</td>
                  <td className="pl-2 text-right text-white/70">{formatInZone(r.createdAt, event.timeZone)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {pages > 1 && (
        <nav aria-label="Pages" className="flex items-center gap-3 text-sm">
          {page > 1 ? (
            <Link href={listHref(event.id, status, page - 1)} rel="prev" className="underline">
              Previous
            </Link>
          ) : (
            <span className="text-white/40">Previous</span>
          )}
          <span className="text-white/60">
            Page {page} of {pages}
          </span>
          {page < pages ? (
            <Link href={listHref(event.id, status, page + 1)} rel="next" className="underline">
              Next
            </Link>
          ) : (
            <span className="text-white/40">Next</span>
          )}
        </nav>
      )}
    </>
  );
}
