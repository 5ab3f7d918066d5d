import Link from "next/link";
import { notFound } from "next/navigation";
import { EventAdminNav, StatusBadge } from "@/app/admin/_components/event-nav";
import { getAdminOrder, orderShow } from "@/lib/admin/orders";
import { requireOrganizer, requireOrganizerOfEvent } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { formatInZone, formatMoney } from "@/lib/format";
import { orderIdSchema } from "@/lib/ids";
import { OrderActions } from "./order-actions";
import { RefundTicketsForm } from "./refund-tickets-form";

export const metadata = { title: "Order" };

/** "30 Jan, 20:31:05" in the show's time zone. */
/** A logged reason with its instants (written as ISO 8601 UTC when logged) shown in the venue's time, with the zone: one rule for time. */
function inVenueTime(reason: string, timeZone: string): string {
  return reason.replace(/\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z\b/g, (iso) => formatInZone(new Date(iso), timeZone));
}

function at(d: Date | null, timeZone: string): string {
  if (!d) return "—";
  return new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", second: "2-digit", timeZone }).format(d);
}

/** One line about an audit entry: the refusal's message, the seat(s), or the reason. */
function describe(detail: Record<string, unknown>): string {
  if (typeof detail.message === "string") return detail.message;
  if (typeof detail.seat === "string") return detail.seat;
  if (Array.isArray(detail.seats) && detail.seats.length > 0) return `${detail.seats.join(", ")}${typeof detail.reason === "string" ? ` — ${detail.reason}` : ""}`;
  return typeof detail.reason === "string" ? detail.reason : "";
}

/**
 * One order for its show's organizer: the order and fan, seats, payments, tickets (with
 * codes), the transition log and the audit log, with Refund / Re-issue tickets / Release
 * stuck hold behind a confirmation step. Fans and other organizers get 403.
 */
export default async function AdminOrderPage({ params }: PageProps<"/admin/orders/[orderId]">) {
  const { orderId } = await params;
  const returnTo = `/admin/orders/${orderId}`;
  const user = await requireOrganizer(returnTo);
  if (!orderIdSchema.safeParse(orderId).success) notFound();
  const row = await orderShow(db(), orderId);
  if (!row) notFound();
  await requireOrganizerOfEvent(row.eventId, returnTo);
  const o = await getAdminOrder(db(), user.id, orderId);
  const tz = o.event.timeZone;
  const holdOver = o.can.releaseHold; // pending and past its expiry

  return (
    <div className="space-y-8" data-testid="admin-order" data-status={o.status}>
      <EventAdminNav eventId={o.event.id} name={o.event.name} current="orders" />
      <header className="space-y-2">
        <p className="font-mono text-sm text-white/60">{o.id}</p>
        <h1 className="flex flex-wrap items-center gap-3 text-3xl font-bold">
          Order for {o.fan.email} <StatusBadge status={o.status} testId="admin-order-status" />
          {o.partiallyRefunded && <StatusBadge status="partially_refunded" testId="admin-order-partial" />}
        </h1>
        <dl className="grid max-w-2xl grid-cols-[auto_1fr] gap-x-6 gap-y-1 text-sm">
          <dt className="text-white/60">Total</dt>
          <dd className="tabular-nums">{formatMoney(o.totalMinor, o.currency)}</dd>
          <dt className="text-white/60">Placed</dt>
          <dd>{formatInZone(o.createdAt, tz)}</dd>
          <dt className="text-white/60">Hold</dt>
          <dd>
            {o.status === "pending_payment" ? (holdOver ? "expired at " : "runs until ") : "ran until "}
            {at(o.holdExpiresAt, tz)} <span className="font-mono text-xs text-white/50">({o.holdId})</span>
          </dd>
          <dt className="text-white/60">Fan</dt>
          <dd>
            {o.fan.name} · {o.fan.email}
          </dd>
        </dl>
      </header>

      <OrderActions orderId={o.id} can={o.can} totalLabel={formatMoney(o.totalMinor, o.currency)} validTickets={o.tickets.filter((t) => t.status === "valid").length} />

      {o.can.refundTickets && (
        <RefundTicketsForm
          orderId={o.id}
          format={{ currency: o.currency, digits: new Intl.NumberFormat("en", { style: "currency", currency: o.currency }).resolvedOptions().maximumFractionDigits ?? 2 }}
          tickets={o.tickets
            .filter((t) => t.status === "valid")
            .map((t) => {
              const priceMinor = o.lineItems.find((l) => l.label === t.seatLabel && l.status === "sold")?.priceMinor ?? 0;
              return { id: t.id, seatLabel: t.seatLabel, priceMinor, priceLabel: formatMoney(priceMinor, o.currency) };
            })}
        />
      )}

      {o.refunds.length > 0 && (
        <section className="space-y-2">
          <h2 className="text-xl font-semibold">Partial refunds</h2>
          <table className="w-full max-w-3xl text-left text-sm" data-testid="partial-refunds">
            <tbody>
              {o.refunds.map((r) => (
                <tr key={r.id} className="border-t border-white/10 align-top" data-testid="partial-refund">
                  <td className="whitespace-nowrap py-2 text-white/70">
                    <time dateTime={r.createdAt.toISOString()} title={r.createdAt.toISOString()}>
                      {formatInZone(r.createdAt, tz)}
                    </time>
                  </td>
                  <td>{r.seats.join(", ")}</td>
                  <td className="text-white/80">{r.reason}</td>
                  <td>
                    <StatusBadge status={r.status} />
                  </td>
                  <td className="text-right tabular-nums">{formatMoney(r.amountMinor, r.currency)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}

      <section className="space-y-2">
        <h2 className="text-xl font-semibold">Seats</h2>
        <table className="w-full max-w-3xl text-left text-sm">
          <tbody>
            {o.lineItems.map((l) => (
              <tr key={l.id} className="border-t border-white/10" data-testid="admin-line-item">
                <td className="py-2">{l.label}</td>
                <td className="text-white/70">{l.priceLevel}</td>
                <td>
                  <StatusBadge status={l.status} />
                </td>
                <td className="text-right tabular-nums">{formatMoney(l.priceMinor, o.currency)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      <section className="space-y-2">
        <h2 className="text-xl font-semibold">Payments</h2>
        {o.payments.length === 0 ? (
          <p className="text-sm text-white/60">No checkout was started.</p>
        ) : (
          <table className="w-full text-left text-sm">
            <thead className="text-white/60">
              <tr>
                <th className="py-1">Payment</th>
                <th>PSP</th>
                <th>Status</th>
                <th className="text-right">Amount</th>
                <th className="text-right">Captured</th>
                <th className="text-right">Refunded</th>
              </tr>
            </thead>
            <tbody>
              {o.payments.map((p) => (
                <tr key={p.id} className="border-t border-white/10" data-testid="admin-payment">
                  <td className="py-2 font-mono text-xs">
                    {p.id}
                    <span className="block text-white/50">{p.providerPaymentId ?? p.checkoutSessionId}</span>
                  </td>
                  <td>{p.provider}</td>
                  <td>
                    <StatusBadge status={p.status} testId="admin-payment-status" />
                  </td>
                  <td className="text-right tabular-nums">{formatMoney(p.amountMinor, p.currency)}</td>
                  <td className="text-right text-white/70">{at(p.capturedAt, tz)}</td>
                  <td className="text-right text-white/70">{at(p.refundedAt, tz)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <section className="space-y-2">
        <h2 className="text-xl font-semibold">Tickets</h2>
        {o.tickets.length === 0 ? (
          <p className="text-sm text-white/60">No tickets issued.</p>
        ) : (
          <table className="w-full text-left text-sm">
            <thead className="text-white/60">
              <tr>
                <th className="py-1">Seat</th>
                <th>Status</th>
                <th>Issued</th>
                <th>Checked in</th>
                <th>Code</th>
              </tr>
            </thead>
            <tbody>
              {o.tickets.map((t) => (
                <tr key={t.id} className="border-t border-white/10 align-top" data-testid="admin-ticket" data-ticket-id={t.id}>
                  <td className="py-2">{t.seatLabel}</td>
                  <td>
                    <StatusBadge status={t.status} testId="admin-ticket-status" />
                  </td>
                  <td className="text-white/70">{at(t.issuedAt, tz)}</td>
                  <td className="text-white/70">{at(t.checkedInAt, tz)}</td>
                  <td className="max-w-md">
                    <details>
                      <summary className="cursor-pointer text-white/70">Show code</summary>
                      <code className="block break-all pt-1 font-mono text-xs text-white/80" data-testid="ticket-code">
                        {t.code}
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
        <h2 className="text-xl font-semibold">Transition log</h2>
        <table className="w-full text-left text-sm" data-testid="transition-log">
          <thead className="text-white/60">
            <tr>
              <th className="py-1">When ({tz})</th>
              <th>What</th>
              <th>Change</th>
              <th>Who</th>
              <th>Why</th>
            </tr>
          </thead>
          <tbody>
            {o.transitions.map((t) => (
              <tr key={t.id} className="border-t border-white/10 align-top" data-testid="transition">
                <td className="whitespace-nowrap py-1.5 tabular-nums text-white/70">
                  <time dateTime={t.at.toISOString()} title={t.at.toISOString()} data-testid="transition-at">
                    {formatInZone(t.at, tz)}
                  </time>
                </td>
                <td>
                  {t.entity} <span className="font-mono text-xs text-white/50">{t.entity === "order" ? "" : t.entityId}</span>
                </td>
                <td className="whitespace-nowrap">
                  {t.fromStatus ?? "—"} → <strong>{t.toStatus}</strong>
                </td>
                <td className="font-mono text-xs text-white/70">{t.actor}</td>
                <td className="text-white/80">{inVenueTime(t.reason, tz)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      <section className="space-y-2">
        <h2 className="text-xl font-semibold">Organizer actions</h2>
        {o.adminActions.length === 0 ? (
          <p className="text-sm text-white/60">None yet.</p>
        ) : (
          <table className="w-full text-left text-sm" data-testid="admin-actions">
            <thead className="text-white/60">
              <tr>
                <th className="py-1">When</th>
                <th>Action</th>
                <th>Outcome</th>
                <th>Detail</th>
                <th>By</th>
              </tr>
            </thead>
            <tbody>
              {o.adminActions.map((a) => (
                <tr key={a.id} className="border-t border-white/10 align-top">
                  <td className="whitespace-nowrap py-1.5 tabular-nums text-white/70">{at(a.at, tz)}</td>
                  <td>{a.action.replaceAll("_", " ")}</td>
                  <td>{String(a.detail.outcome ?? "")}</td>
                  <td className="text-white/80">{describe(a.detail)}</td>
                  <td className="text-white/60">{a.organizerEmail}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <Link href={`/admin/events/${o.event.id}/orders`} className="block text-sm underline">
        Back to the orders of {o.event.name}
      </Link>
    </div>
  );
}
