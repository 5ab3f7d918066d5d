import Link from "next/link";
import { EventAdminNav, StatusBadge } from "@/app/admin/_components/event-nav";
import { listDiscrepancies } from "@/lib/admin/discrepancies";
import { requireOrganizerOfEvent } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { formatInZone } from "@/lib/format";
import { RunReconciliation } from "./run-button";

export const metadata = { title: "Discrepancies" };

/**
 * What reconciliation found for one show — kind, order, status, the action taken, when —
 * and a button to run a pass now. Organizer of the show only.
 */
export default async function DiscrepanciesPage({ params }: PageProps<"/admin/events/[eventId]/discrepancies">) {
  const { eventId } = await params;
  const { user, event } = await requireOrganizerOfEvent(eventId, `/admin/events/${eventId}/discrepancies`);
  const rows = await listDiscrepancies(db(), user.id, event.id);
  return (
    <div className="space-y-6">
      <EventAdminNav eventId={event.id} name={event.name} current="discrepancies" />
      <h1 className="text-3xl font-bold">Discrepancies</h1>
      <p className="max-w-3xl text-white/70">
        Reconciliation compares orders, payments at the PSP, tickets and the seat map every minute, repairs what is safe to repair and lists every
        finding here. Rows marked <em>needs attention</em> wait for you.
      </p>
      <RunReconciliation eventId={event.id} />
      {rows.length === 0 ? (
        <p className="text-white/60" data-testid="no-discrepancies">
          No discrepancies for this show.
        </p>
      ) : (
        <table className="w-full text-left text-sm" data-testid="discrepancies">
          <thead className="text-white/60">
            <tr>
              <th className="py-1">Kind</th>
              <th>Order</th>
              <th>Status</th>
              <th>Action taken</th>
              <th className="text-right">Detected</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((d) => (
              <tr key={d.id} className="border-t border-white/10 align-top" data-testid="discrepancy">
                <td className="py-2">{d.kind.replaceAll("_", " ")}</td>
                <td className="font-mono text-xs">
                  {d.orderId ? (
                    <Link href={`/admin/orders/${d.orderId}`} className="underline">
                      {d.orderId}
                    </Link>
                  ) : (
                    "—"
                  )}
                </td>
                <td>
                  <StatusBadge status={d.status} />
                </td>
                <td className="text-white/80">{d.action ?? "—"}</td>
                <td className="text-right text-white/70">
                  {formatInZone(d.detectedAt, event.timeZone)}
                  {d.resolvedAt && <span className="block text-xs">resolved {formatInZone(d.resolvedAt, event.timeZone)}</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
