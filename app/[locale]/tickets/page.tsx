import type { Metadata } from "next";
import Link from "next/link";
import { getTranslations } from "next-intl/server";
import { requireUser } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { formatInZone } from "@/lib/format";
import { intlLocale, type Locale } from "@/lib/i18n/config";
import { getFanTickets } from "@/lib/orders/queries";
import { formatShortCode } from "@/lib/tickets/short-code";
import { TicketQr } from "@/components/ticket-qr";
import { seatLabel, type SeatWords } from "@/lib/venues/seat-label";

export async function generateMetadata({ params }: PageProps<"/[locale]/tickets">): Promise<Metadata> {
  const t = await getTranslations({ locale: (await params).locale as Locale, namespace: "Tickets" });
  return { title: t("title") };
}

/** "My tickets": every valid or used ticket of the signed-in fan, soonest show first, with its QR code and its seat in the page's language. */
export default async function MyTicketsPage({ params }: PageProps<"/[locale]/tickets">) {
  const locale = (await params).locale as Locale;
  const user = await requireUser("/tickets");
  const t = await getTranslations("Tickets");
  const seatWords = (await getTranslations("Seat")) as unknown as SeatWords;
  const tickets = await getFanTickets(db(), user.id);
  return (
    <div className="space-y-6">
      <h1 className="text-3xl font-bold">{t("title")}</h1>
      {tickets.length === 0 && (
        <p className="text-white/70">
          {t("none")}{" "}
          <Link href="/" className="underline">
            {t("findShow")}
          </Link>
        </p>
      )}
      <ul className="grid gap-4 sm:grid-cols-2 md:grid-cols-3">
        {tickets.map((ticket) => (
          <li key={ticket.id} className="rounded-xl bg-white p-3 text-black" data-testid="ticket">
            <TicketQr code={ticket.code} className="mx-auto w-48" />
            <p className="mt-2 text-center font-semibold">{ticket.eventName}</p>
            <p className="text-center text-sm" data-testid="ticket-seat">
              {seatLabel(seatWords, ticket.seat)}
            </p>
            {ticket.shortCode && <p className="text-center font-mono tracking-widest">{formatShortCode(ticket.shortCode)}</p>}
            <p className="text-center text-xs text-black/60" data-testid="ticket-when">
              {formatInZone(ticket.startsAt, ticket.timeZone, intlLocale(locale))}
            </p>
            {ticket.status === "used" && <p className="text-center text-xs font-semibold text-red-600">{t("used")}</p>}
          </li>
        ))}
      </ul>
    </div>
  );
}
