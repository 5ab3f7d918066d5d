import Link from "next/link";
import { requireUser } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { formatInZone } from "@/lib/format";
import { getFanTickets } from "@/lib/orders/queries";
import { formatShortCode } from "@/lib/tickets/short-code";
import { TicketQr } from "@/components/ticket-qr";

export const metadata = { title: "My tickets" };

/** "My tickets": every valid ticket of the signed-in fan, with its QR code. */
export default async function MyTicketsPage() {
  const user = await requireUser("/tickets");
  const tickets = await getFanTickets(db(), user.id);
  return (
    <div className="space-y-6">
      <h1 className="text-3xl font-bold">My tickets</h1>
      {tickets.length === 0 && (
        <p className="text-white/70">
          No tickets yet. <Link href="/" className="underline">Find a show</Link>.
        </p>
      )}
      <ul className="grid gap-4 sm:grid-cols-2 md:grid-cols-3">
        {tickets.map((t) => (
          <li key={t.id} className="rounded-xl bg-white p-3 text-black" data-testid="ticket">
            <TicketQr code={t.code} className="mx-auto w-48" />
            <p className="mt-2 text-center font-semibold">{t.eventName}</p>
            <p className="text-center text-sm">{t.seatLabel}</p>
            {t.shortCode && <p className="text-center font-mono tracking-widest">{formatShortCode(t.shortCode)}</p>}
            <p className="text-center text-xs text-black/60">{formatInZone(t.startsAt, t.timeZone)}</p>
            {t.status === "used" && <p className="text-center text-xs font-semibold text-red-600">Used</p>}
          </li>
        ))}
      </ul>
    </div>
  );
}
