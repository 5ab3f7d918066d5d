import Link from "next/link";
import { getTranslations } from "next-intl/server";
import { requireCheckInStaff } from "@/lib/auth/session";
import { listDoorStaff } from "@/lib/auth/staff";
import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { listOrganizerEvents } from "@/lib/events/queries";
import { messagesFor } from "@/lib/i18n/translate";
import { ticketKeys } from "@/lib/tickets/codes";
import { DoorStaff } from "./door-staff";
import { ScanForm } from "./scan-form";

export async function generateMetadata() {
  return { title: (await getTranslations("Scan"))("title") };
}

/**
 * Check-in at the door for the organizer's shows: each ticket gets in once. For organizers and
 * their door staff (fans get 403); only organizers see and manage the door-staff accounts. The
 * ticket public key goes to the browser so the door can verify codes when the network is down,
 * with the shows' names and time zones and the stored labels' English grammar (offline verdicts
 * compose the seat in the reader's language from the label a code carries). In the reader's
 * language (ADR 0029). Compact on a phone: the camera view and its verdict fit the first screen.
 */
export default async function ScanPage() {
  const { user, organizerId } = await requireCheckInStaff("/admin/scan");
  const organizer = user.role === "organizer";
  const t = await getTranslations("Scan");
  const [shows, staff] = await Promise.all([listOrganizerEvents(db(), organizerId), organizer ? listDoorStaff(db(), user.id) : Promise.resolve([])]);
  const publicJwk = ticketKeys(env().TICKET_SIGNING_SECRET).publicKeyJwk;
  const { seated, standing } = messagesFor("en").Seat;
  return (
    <div className="mx-auto -mt-4 max-w-2xl space-y-4 sm:mt-0 sm:space-y-6" data-testid="scan-page">
      <div className="space-y-1">
        {organizer && (
          <nav className="text-sm text-white/60">
            <Link href="/admin" className="underline">
              {t("breadcrumbOrganizer")}
            </Link>{" "}
            / {t("title")}
          </nav>
        )}
        <h1 className="text-2xl font-bold sm:text-3xl">{t("title")}</h1>
        <p className="text-sm break-words text-white/70 sm:text-base">{organizer ? t("introOrganizer", { email: user.email }) : t("introStaff", { email: user.email })}</p>
      </div>
      <ScanForm organizerId={organizerId} publicJwk={{ ...publicJwk }} shows={shows.map(({ id, name, timeZone }) => ({ id, name, timeZone }))} words={{ seated, standing }} />
      {organizer && <DoorStaff staff={staff.map(({ id, name, email }) => ({ id, name, email }))} signInUrl={`${env().APP_URL}/sign-in?next=/admin/scan`} />}
    </div>
  );
}
