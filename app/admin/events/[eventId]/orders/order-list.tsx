import Link from "next/link";
import { getLocale, getTranslations } from "next-intl/server";
import { statusWord } from "@/app/admin/_components/event-nav";
import { countEventOrders, listEventOrders, ORDER_LIST_STATUSES, parseOrderListQuery, type OrderListStatus } from "@/lib/admin/orders";
import { db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { formatCount } from "@/lib/format";
import { intlLocale, isLocale } from "@/lib/i18n/config";
import { OrderTable } from "./order-table";

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

/** The reader's locale for numbers and dates. */
const numberLocale = async () => {
  const locale = await getLocale();
  return intlLocale(isLocale(locale) ? locale : "en");
};

/**
 * The status filters as links, each with its number of orders; `active` is marked (null: "All";
 * undefined: none, while a search is shown).
 */
export async function OrderFilters({ organizerId, eventId, active }: { organizerId: string; eventId: string; active?: OrderListStatus | null }) {
  const [counts, t, status, fmt] = await Promise.all([countEventOrders(db(), organizerId, eventId), getTranslations("AdminOrders"), getTranslations("Admin.status"), numberLocale()]);
  const filter = (s: OrderListStatus | null, label: string, n: number) => (
    <li key={s ?? "all"}>
      <Link
        href={listHref(eventId, s)}
        aria-current={active === s ? "page" : undefined}
        data-testid="order-filter"
        data-status={s ?? "all"}
        className={`inline-block rounded px-3 py-1 text-sm ${active === s ? "bg-white/15 font-semibold" : "text-white/70 hover:bg-white/10"}`}
      >
        {label} <span className="tabular-nums text-white/60">{formatCount(n, fmt)}</span>
      </Link>
    </li>
  );
  return (
    <nav aria-label={t("filterBy")}>
      <ul className="flex flex-wrap gap-1">
        {filter(null, t("all"), counts.total)}
        {ORDER_LIST_STATUSES.map((s) => filter(s, statusWord(status, s), counts.byStatus[s]))}
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
  const [t, statusWords, fmt] = await Promise.all([getTranslations("AdminOrders"), getTranslations("Admin.status"), numberLocale()]);
  let wanted: ReturnType<typeof parseOrderListQuery>;
  try {
    wanted = parseOrderListQuery(query);
  } catch (error) {
    if (!(error instanceof AppError) || error.kind !== "bad_request") throw error;
    const given = typeof error.params?.status === "string" ? error.params.status : "";
    return (
      <>
        <OrderFilters organizerId={organizerId} eventId={event.id} />
        <p role="alert" className="rounded bg-red-500/15 px-3 py-2 text-sm text-red-200" data-testid="order-list-error">
          {error.code === "unknown_status" ? t("refused.unknown_status", { status: given }) : t("refused.bad_page")}
        </p>
      </>
    );
  }
  const list = await listEventOrders(db(), organizerId, event.id, wanted);
  const { status, page, pages, total } = list;
  const pageOf = { page: formatCount(page, fmt), pages: formatCount(pages, fmt) };
  return (
    <>
      <OrderFilters organizerId={organizerId} eventId={event.id} active={status} />
      <div className="flex flex-wrap items-center justify-between gap-3">
        <p className="text-sm text-white/60" data-testid="order-list-summary">
          {status ? t("listSummaryStatus", { total, status: statusWord(statusWords, status), ...pageOf }) : t("listSummary", { total, ...pageOf })}
        </p>
        {/* A plain link: the answer is a download (Content-Disposition: attachment), not a page. */}
        <a href={csvHref(event.id, status)} download className="rounded bg-white/10 px-3 py-1 text-sm font-semibold hover:bg-white/20" data-testid="orders-csv">
          {t("downloadCsv")}
        </a>
      </div>
      {list.rows.length === 0 ? (
        <p className="text-white/70">{status ? t("noOrdersWithStatus") : t("noOrders")}</p>
      ) : (
        <OrderTable rows={list.rows} timeZone={event.timeZone} testId="order-list" rowTestId="order-row" />
      )}
      {pages > 1 && (
        <nav aria-label={t("pages")} className="flex flex-wrap items-center gap-3 text-sm">
          {page > 1 ? (
            <Link href={listHref(event.id, status, page - 1)} rel="prev" className="underline">
              {t("previous")}
            </Link>
          ) : (
            <span className="text-white/60">{t("previous")}</span>
          )}
          <span className="text-white/60">{t("pageOf", pageOf)}</span>
          {page < pages ? (
            <Link href={listHref(event.id, status, page + 1)} rel="next" className="underline">
              {t("next")}
            </Link>
          ) : (
            <span className="text-white/60">{t("next")}</span>
          )}
        </nav>
      )}
    </>
  );
}
