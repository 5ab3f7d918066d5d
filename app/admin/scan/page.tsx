import Link from "next/link";
import { requireCheckInStaff } from "@/lib/auth/session";
import { listDoorStaff } from "@/lib/auth/staff";
import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { listOrganizerEvents } from "@/lib/events/queries";
import { ticketKeys } from "@/lib/tickets/codes";
import { DoorStaff } from "./door-staff";
import { ScanForm } from "./scan-form";

export const metadata = { title: "Check-in" };

/**
 * Check-in at the door for the organizer's shows: each ticket gets in once. For organizers and
 * their door staff (fans get 403); only organizers see and manage the door-staff accounts. The
 * ticket public key goes to the browser so the door can verify codes when the network is down.
 */
export default async function ScanPage() {
  const { user, organizerId } = await requireCheckInStaff("/admin/scan");
  const organizer = user.role === "organizer";
  const [shows, staff] = await Promise.all([listOrganizerEvents(db(), organizerId), organizer ? listDoorStaff(db(), user.id) : Promise.resolve([])]);
  const publicJwk = ticketKeys(env().TICKET_SIGNING_SECRET).publicKeyJwk;
  return (
    <div className="mx-auto max-w-2xl space-y-6" data-testid="scan-page">
      {organizer && (
        <nav className="text-sm text-white/60">
          <Link href="/admin" className="underline">
            Organizer
          </Link>{" "}
          / Check-in
        </nav>
      )}
      <h1 className="text-3xl font-bold">Check-in</h1>
      <p className="text-white/70 break-words">
        {organizer
          ? `Tickets of every show run by ${user.email}. A ticket gets in once; a second scan shows when it was first used.`
          : `Door staff (${user.email}): tickets of your organizer's shows. A ticket gets in once; a second scan shows when it was first used.`}
      </p>
      <ScanForm organizerId={organizerId} publicJwk={{ ...publicJwk }} eventIds={shows.map((s) => s.id)} />
      {organizer && <DoorStaff staff={staff.map(({ id, name, email }) => ({ id, name, email }))} signInUrl={`${env().APP_URL}/sign-in?next=/admin/scan`} />}
    </div>
  );
}
