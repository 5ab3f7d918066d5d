import Link from "next/link";
import { requireOrganizer } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { listOrganizerEvents } from "@/lib/events/queries";
import { formatCount, formatInZone } from "@/lib/format";

export const metadata = { title: "Organizer" };

/** Organizer home: their shows. Server-side role check: fans get 403, signed-out users go to sign-in. */
export default async function AdminPage() {
  const organizer = await requireOrganizer("/admin");
  const shows = await listOrganizerEvents(db(), organizer.id);
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-3xl font-bold">Organizer dashboard</h1>
        <Link href="/admin/scan" className="rounded bg-white/10 px-4 py-2 hover:bg-white/20">
          Check-in
        </Link>
        <Link href="/admin/events/new" className="button-primary px-4 py-2">
          New show
        </Link>
      </div>
      <p className="text-white/70">Signed in as {organizer.email}.</p>
      {/* On a phone the table scrolls inside its box, not the page: its links and dates need ~470 px. */}
      <div className="overflow-x-auto">
        <table className="w-full text-left text-sm" data-testid="organizer-shows">
          <thead className="text-white/60">
            <tr>
              <th className="py-1">Show</th>
              <th>Status</th>
              <th>On-sale</th>
              <th className="text-right">Sold / on sale</th>
              <th className="text-right">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {shows.map((s) => (
              <tr key={s.id} className="border-t border-white/10">
                <td className="py-2">
                  {/* A draft has no public page yet: its name opens the set-up page. */}
                  <Link href={s.status === "published" ? `/events/${s.slug}` : `/admin/events/${s.id}/edit`} className="underline">
                    {s.name}
                  </Link>
                </td>
                <td>{s.status}</td>
                <td>{formatInZone(s.onSaleAt, s.timeZone)}</td>
                <td className="text-right tabular-nums">
                  {formatCount(s.seatsSold)} / {formatCount(s.seatsOnSale)}
                </td>
                <td className="space-x-3 text-right">
                  <Link href={`/admin/events/${s.id}/edit`} className="underline" aria-label={`Edit ${s.name}`}>
                    Edit
                  </Link>
                  <Link href={`/admin/events/${s.id}/live`} className="underline" aria-label={`Live view of ${s.name}`}>
                    Live
                  </Link>
                  <Link href={`/admin/events/${s.id}/orders`} className="underline" aria-label={`Orders of ${s.name}`}>
                    Orders
                  </Link>
                  <Link href={`/admin/events/${s.id}/discrepancies`} className="underline" aria-label={`Discrepancies of ${s.name}`}>
                    Discrepancies
                  </Link>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
