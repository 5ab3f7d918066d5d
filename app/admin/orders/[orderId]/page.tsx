import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { getLocale, getTranslations } from "next-intl/server";
import { Fragment, type ReactNode } from "react";
import { EventAdminNav, StatusBadge, statusWord } from "@/app/admin/_components/event-nav";
import { readLoggedReason } from "@/lib/admin/log-reason";
import { getAdminOrder, orderShow, type OrderSeat } from "@/lib/admin/orders";
import { requireOrganizer, requireOrganizerOfEvent } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { formatInZone, formatMoney, formatMomentInZone, zoneName } from "@/lib/format";
import { intlLocale, isLocale } from "@/lib/i18n/config";
import { translateErrorCode } from "@/lib/i18n/translate";
import { orderIdSchema } from "@/lib/ids";
import { seatLabel, type SeatWords } from "@/lib/venues/seat-label";
import { OrderActions } from "./order-actions";
import { RefundTicketsForm } from "./refund-tickets-form";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("AdminOrders"))("orderTitle") };
}

/** A logged reason with its instants (written as ISO 8601 UTC when logged) shown in the venue's time, with the zone: one rule for time (for a reason shown as logged). */
function inVenueTime(reason: string, timeZone: string): string {
  return reason.replace(/\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z\b/g, (iso) => formatInZone(new Date(iso), timeZone));
}

/** Who caused a logged change: "webhook:sandbox" → its kind ("webhook") and who or what of that kind ("sandbox"). */
function actorParts(actor: string): { kind: string; id: string } {
  const at = actor.indexOf(":");
  return at < 0 ? { kind: actor, id: "" } : { kind: actor.slice(0, at), id: actor.slice(at + 1) };
}

// The tables are tables on a desktop; on a phone each row is a card (cells stacked, each value after its column's name), so nothing runs off the screen.
const TABLE = "w-full text-left text-sm max-md:block";
const HEAD = "text-white/60 max-md:sr-only";
const BODY = "max-md:block";
const ROW = "border-t border-white/10 align-top max-md:block max-md:space-y-1 max-md:py-3";
/** Every cell keeps space after it on a desktop (no "17:34 CETorder"). */
const CELL = "py-2 pr-4 max-md:block max-md:py-0 max-md:pr-0";
const NUM = `${CELL} whitespace-nowrap text-right tabular-nums max-md:text-left`;
const TH = "py-1 pr-4 font-medium";

/**
 * One order for its show's organizer, in their language: the order and fan, seats, payments
 * (money captured and given back), tickets (with codes), the transition log and the audit log,
 * with Refund / Refund some tickets / Re-issue tickets / Release stuck hold behind a
 * confirmation step. Times on the venue's clock; what the organizer entered (show and price
 * level names, reasons) and what was logged stay as written. Fans and other organizers get 403.
 */
export default async function AdminOrderPage({ params }: PageProps<"/admin/orders/[orderId]">) {
  const { orderId } = await params;
  const returnTo = `/admin/orders/${orderId}`;
  const user = await requireOrganizer(returnTo);
  if (!orderIdSchema.safeParse(orderId).success) notFound();
  const row = await orderShow(db(), orderId);
  if (!row) notFound();
  await requireOrganizerOfEvent(row.eventId, returnTo);
  const [o, t, statusT, seatT, requested] = await Promise.all([
    getAdminOrder(db(), user.id, orderId),
    getTranslations("AdminOrders"),
    getTranslations("Admin.status"),
    getTranslations("Seat"),
    getLocale(),
  ]);
  const locale = isLocale(requested) ? requested : "en";
  const fmt = intlLocale(locale);
  const tz = o.event.timeZone;
  const holdOver = o.can.releaseHold; // pending and past its expiry
  const money = (minor: number, currency = o.currency) => formatMoney(minor, currency, fmt);
  const seat = (parts: OrderSeat) => seatLabel(seatT as unknown as SeatWords, parts);
  const status = (s: string) => statusWord(statusT, s);
  /** "30 Jan, 20:31:05 Central European Time" on the venue's clock. */
  const at = (d: Date | null) => (d ? formatMomentInZone(d, tz, fmt) : "—");
  // A column's name before its value, on a phone only (the table's header is hidden there).
  const phoneLabel = (text: string) => <span className="text-white/60 md:hidden">{text}: </span>;
  const time = (d: Date, testId?: string) => (
    <time dateTime={d.toISOString()} title={d.toISOString()} data-testid={testId}>
      {at(d)}
    </time>
  );
  // Stored seat labels (the audit log names seats so) composed in the reader's language.
  const seatsByLabel = new Map(o.lineItems.map((l) => [l.seat.label, l.seat]));
  const storedSeat = (label: string) => {
    const parts = seatsByLabel.get(label);
    return parts ? seat(parts) : label;
  };
  /** One line about an audit entry, in the reader's words; the organizer's own reason as written. */
  const describe = (action: string, detail: Record<string, unknown>): ReactNode => {
    if (detail.outcome === "refused") {
      const code = typeof detail.code === "string" ? detail.code : "";
      const key = `refused.${code}` as "refused.hold_running";
      const message = typeof detail.message === "string" ? detail.message : "";
      return code && t.has(key) ? t(key) : (translateErrorCode(locale, code) ?? message);
    }
    if (action === "release_hold") return detail.result === "paid" ? t("releasedPaid") : t("released");
    const seats = typeof detail.seat === "string" ? [detail.seat] : Array.isArray(detail.seats) ? detail.seats.filter((s): s is string => typeof s === "string") : [];
    const named = seats.map(storedSeat).join(", ");
    // Only a partial refund's reason is the organizer's own words; the others are defaults the action name already says.
    if (action === "refund_tickets" && typeof detail.reason === "string") {
      return (
        <>
          {named} — <span translate="no">{detail.reason}</span>
        </>
      );
    }
    return named;
  };
  /** A transition's logged reason in the reader's words (lib/admin/log-reason.ts); one it does not know, as logged (English, marked so). */
  const why = (reason: string): ReactNode => {
    const pieces = readLoggedReason(reason);
    if (!pieces) {
      return (
        <span lang="en" translate="no">
          {inVenueTime(reason, tz)}
        </span>
      );
    }
    return pieces.map((piece, i) => {
      const values = { ...piece.values, ...(piece.values.at ? { at: at(new Date(piece.values.at)) } : {}), ...(piece.values.status ? { status: status(piece.values.status) } : {}), ...(piece.values.count ? { count: Number(piece.values.count) } : {}) };
      return (
        <Fragment key={i}>
          {piece.after === ": " ? t("afterColon") : piece.after === "; " ? t("afterSemicolon") : null}
          {t.rich(`reason.${piece.key}` as "reason.webhookEvent", {
            ...(values as { type: string; id: string }),
            code: (chunks) => (
              <code lang="en" translate="no" className="font-mono text-xs">
                {chunks}
              </code>
            ),
            data: (chunks) => <span translate="no">{chunks}</span>,
          })}
        </Fragment>
      );
    });
  };
  const refundable = o.tickets
    .filter((ticket) => ticket.status === "valid")
    .map((ticket) => {
      const priceMinor = o.lineItems.find((l) => l.seat.label === ticket.seat.label && l.status === "sold")?.priceMinor ?? 0;
      return { id: ticket.id, seatLabel: seat(ticket.seat), priceMinor, priceLabel: money(priceMinor) };
    });

  return (
    <div className="min-w-0 space-y-8" data-testid="admin-order" data-status={o.status}>
      <EventAdminNav eventId={o.event.id} name={o.event.name} current="orders" />
      <header className="space-y-2">
        <p className="break-all font-mono text-sm text-white/60" translate="no">
          {o.id}
        </p>
        <h1 className="flex flex-wrap items-center gap-3 text-2xl font-bold md:text-3xl">
          <span className="min-w-0 break-words">
            {t.rich("orderFor", { email: o.fan.email ?? t("deletedAccount"), mail: (chunks) => (o.fan.email === null ? chunks : <span translate="no">{chunks}</span>) })}
          </span>
          <StatusBadge status={o.status} testId="admin-order-status" />
          {o.displayStatus !== o.status && <StatusBadge status={o.displayStatus} testId="admin-order-partial" />}
        </h1>
        <dl className="grid max-w-2xl grid-cols-[auto_minmax(0,1fr)] gap-x-6 gap-y-1 text-sm">
          <dt className="text-white/60">{t("total")}</dt>
          <dd className="tabular-nums">{money(o.totalMinor)}</dd>
          <dt className="text-white/60">{t("placed")}</dt>
          <dd>{formatInZone(o.createdAt, tz, fmt)}</dd>
          <dt className="text-white/60">{t("hold")}</dt>
          <dd className="break-words">
            {(o.status === "pending_payment" ? (holdOver ? t("holdExpiredAt", { time: at(o.holdExpiresAt) }) : t("holdRunsUntil", { time: at(o.holdExpiresAt) })) : t("holdRanUntil", { time: at(o.holdExpiresAt) })) + " "}
            <span className="break-all font-mono text-xs text-white/60" translate="no">
              ({o.holdId})
            </span>
          </dd>
          <dt className="text-white/60">{t("fan")}</dt>
          <dd className="break-words" translate="no">
            {o.fan.name ? `${o.fan.name} · ` : ""}
            {o.fan.email ?? t("deletedAccount")}
          </dd>
        </dl>
      </header>

      <OrderActions orderId={o.id} can={o.can} totalLabel={money(o.totalMinor)} validTickets={refundable.length} />

      {o.can.refundTickets && (
        <RefundTicketsForm
          orderId={o.id}
          format={{ currency: o.currency, digits: new Intl.NumberFormat("en", { style: "currency", currency: o.currency }).resolvedOptions().maximumFractionDigits ?? 2 }}
          tickets={refundable}
        />
      )}

      {o.refunds.length > 0 && (
        <section className="space-y-2">
          <h2 className="text-xl font-semibold">{t("partialRefunds")}</h2>
          <table className={`${TABLE} max-w-3xl`} data-testid="partial-refunds">
            <thead className={HEAD}>
              <tr>
                <th className={TH}>{t("colWhen")}</th>
                <th className={TH}>{t("colSeats")}</th>
                <th className={TH}>{t("colReason")}</th>
                <th className={TH}>{t("colStatus")}</th>
                <th className={`${TH} text-right`}>{t("colAmount")}</th>
              </tr>
            </thead>
            <tbody className={BODY}>
              {o.refunds.map((r) => (
                <tr key={r.id} className={ROW} data-testid="partial-refund">
                  <td className={`${CELL} whitespace-nowrap text-white/70`}>{time(r.createdAt)}</td>
                  <td className={CELL}>{r.seats.map(seat).join(", ")}</td>
                  <td className={`${CELL} break-words text-white/80`} translate="no">
                    {r.reason}
                  </td>
                  <td className={CELL}>
                    <StatusBadge status={r.status} />
                  </td>
                  <td className={NUM}>{money(r.amountMinor, r.currency)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}

      <section className="space-y-2">
        <h2 className="text-xl font-semibold">{t("seatsHeading")}</h2>
        <table className={`${TABLE} max-w-3xl`}>
          <thead className={HEAD}>
            <tr>
              <th className={TH}>{t("colSeat")}</th>
              <th className={TH}>{t("colPriceLevel")}</th>
              <th className={TH}>{t("colStatus")}</th>
              <th className={`${TH} text-right`}>{t("colPrice")}</th>
            </tr>
          </thead>
          <tbody className={BODY}>
            {o.lineItems.map((l) => (
              <tr key={l.id} className={ROW} data-testid="admin-line-item" data-seat={l.seat.label}>
                <td className={CELL}>{seat(l.seat)}</td>
                <td className={`${CELL} text-white/70`}>
                  {phoneLabel(t("colPriceLevel"))}
                  <span translate="no">{l.priceLevel}</span>
                </td>
                <td className={CELL}>
                  <StatusBadge status={l.status} />
                </td>
                <td className={NUM}>
                  {phoneLabel(t("colPrice"))}
                  {money(l.priceMinor)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      <section className="space-y-2">
        <h2 className="text-xl font-semibold">{t("payments")}</h2>
        {o.payments.length === 0 ? (
          <p className="text-sm text-white/60">{t("noCheckout")}</p>
        ) : (
          <table className={TABLE} data-testid="admin-payments">
            <thead className={HEAD}>
              <tr>
                <th className={TH}>{t("colPayment")}</th>
                <th className={TH}>{t("colPsp")}</th>
                <th className={TH}>{t("colStatus")}</th>
                <th className={`${TH} text-right`}>{t("colMoney")}</th>
                <th className={`${TH} text-right`}>{t("colCaptured")}</th>
                <th className={`${TH} text-right`}>{t("colRefundedAt")}</th>
              </tr>
            </thead>
            <tbody className={BODY}>
              {o.payments.map((p) => (
                <tr key={p.id} className={ROW} data-testid="admin-payment">
                  <td className={`${CELL} font-mono text-xs`} translate="no">
                    <span className="break-all">{p.id}</span>
                    <span className="block break-all text-white/60">{p.providerPaymentId ?? p.checkoutSessionId}</span>
                  </td>
                  <td className={CELL}>
                    {phoneLabel(t("colPsp"))}
                    {t("psp", { provider: p.provider })}
                  </td>
                  <td className={CELL}>
                    <StatusBadge status={p.status} testId="admin-payment-status" />
                  </td>
                  <td className={`${CELL} text-right tabular-nums max-md:text-left`} data-testid="admin-payment-money" data-refunded-minor={p.refundedMinor}>
                    {p.capturedAt === null && p.refundedMinor === 0
                      ? money(p.amountMinor, p.currency)
                      : p.refundedMinor > 0
                        ? t("moneyCapturedRefunded", { amount: money(p.amountMinor, p.currency), refunded: money(p.refundedMinor, p.currency) })
                        : t("moneyCaptured", { amount: money(p.amountMinor, p.currency) })}
                  </td>
                  <td className={`${NUM} text-white/70 ${p.capturedAt ? "" : "max-md:hidden"}`}>
                    {phoneLabel(t("colCaptured"))}
                    {at(p.capturedAt)}
                  </td>
                  <td className={`${NUM} text-white/70 ${p.refundedAt ? "" : "max-md:hidden"}`}>
                    {phoneLabel(t("colRefundedAt"))}
                    {at(p.refundedAt)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <section className="space-y-2">
        <h2 className="text-xl font-semibold">{t("tickets")}</h2>
        {o.tickets.length === 0 ? (
          <p className="text-sm text-white/60">{t("noTickets")}</p>
        ) : (
          <table className={TABLE}>
            <thead className={HEAD}>
              <tr>
                <th className={TH}>{t("colSeat")}</th>
                <th className={TH}>{t("colStatus")}</th>
                <th className={TH}>{t("colIssued")}</th>
                <th className={TH}>{t("colCheckedIn")}</th>
                <th className={TH}>{t("colCode")}</th>
              </tr>
            </thead>
            <tbody className={BODY}>
              {o.tickets.map((ticket) => (
                <tr key={ticket.id} className={ROW} data-testid="admin-ticket" data-ticket-id={ticket.id}>
                  <td className={CELL}>{seat(ticket.seat)}</td>
                  <td className={CELL}>
                    <StatusBadge status={ticket.status} testId="admin-ticket-status" />
                  </td>
                  <td className={`${CELL} whitespace-nowrap text-white/70`}>
                    {phoneLabel(t("colIssued"))}
                    {at(ticket.issuedAt)}
                  </td>
                  <td className={`${CELL} whitespace-nowrap text-white/70 ${ticket.checkedInAt ? "" : "max-md:hidden"}`}>
                    {phoneLabel(t("colCheckedIn"))}
                    {at(ticket.checkedInAt)}
                  </td>
                  <td className={`${CELL} max-w-md`}>
                    <details>
                      <summary className="cursor-pointer text-white/70">{t("showCode")}</summary>
                      <code className="block break-all pt-1 font-mono text-xs text-white/80" data-testid="ticket-code" translate="no">
                        {ticket.code}
                      </code>
                    </details>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <section className="space-y-2">
        <h2 className="text-xl font-semibold">{t("log")}</h2>
        <table className={TABLE} data-testid="transition-log">
          <thead className={HEAD}>
            <tr>
              <th className={TH}>{t("logWhen", { zone: zoneName(tz, fmt) })}</th>
              <th className={TH}>{t("logWhat")}</th>
              <th className={TH}>{t("logChange")}</th>
              <th className={TH}>{t("logWho")}</th>
              <th className={TH}>{t("logWhy")}</th>
            </tr>
          </thead>
          <tbody className={BODY}>
            {o.transitions.map((tr) => {
              const who = actorParts(tr.actor);
              return (
                <tr key={tr.id} className={ROW} data-testid="transition" data-entity={tr.entity} data-to-status={tr.toStatus}>
                  <td className={`${CELL} whitespace-nowrap tabular-nums text-white/70`}>{time(tr.at, "transition-at")}</td>
                  <td className={CELL}>
                    {t("entity", { entity: tr.entity })}{" "}
                    {tr.entity !== "order" && (
                      <span className="break-all font-mono text-xs text-white/60" translate="no">
                        {tr.entityId}
                      </span>
                    )}
                  </td>
                  <td className={CELL}>
                    {tr.fromStatus === null ? "—" : status(tr.fromStatus)} → <strong>{status(tr.toStatus)}</strong>
                  </td>
                  <td className={`${CELL} text-xs text-white/70`}>
                    {t("actor", { kind: who.kind })}
                    {who.id && (
                      <span className="block break-all font-mono" translate="no">
                        {who.id}
                      </span>
                    )}
                  </td>
                  <td className={`${CELL} break-words text-white/80`}>
                    {phoneLabel(t("logWhy"))}
                    <span data-testid="transition-why" data-logged={tr.reason}>
                      {why(tr.reason)}
                    </span>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </section>

      <section className="space-y-2">
        <h2 className="text-xl font-semibold">{t("adminActions")}</h2>
        {o.adminActions.length === 0 ? (
          <p className="text-sm text-white/60">{t("noneYet")}</p>
        ) : (
          <table className={TABLE} data-testid="admin-actions">
            <thead className={HEAD}>
              <tr>
                <th className={TH}>{t("colWhen")}</th>
                <th className={TH}>{t("colAction")}</th>
                <th className={TH}>{t("colOutcome")}</th>
                <th className={TH}>{t("colDetail")}</th>
                <th className={TH}>{t("colBy")}</th>
              </tr>
            </thead>
            <tbody className={BODY}>
              {o.adminActions.map((a) => (
                <tr key={a.id} className={ROW} data-action={a.action}>
                  <td className={`${CELL} whitespace-nowrap tabular-nums text-white/70`}>{at(a.at)}</td>
                  <td className={CELL}>{t("action", { action: a.action })}</td>
                  <td className={CELL}>{t("outcome", { outcome: String(a.detail.outcome ?? "") })}</td>
                  <td className={`${CELL} break-words text-white/80`}>{describe(a.action, a.detail)}</td>
                  <td className={`${CELL} break-all text-white/60`} translate="no">
                    {a.organizerEmail}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <Link href={`/admin/events/${o.event.id}/orders`} className="block break-words text-sm underline">
        {t("backTo", { name: o.event.name })}
      </Link>
    </div>
  );
}
