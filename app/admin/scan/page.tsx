import Link from "next/link";
import { requireOrganizer } from "@/lib/auth/session";
import { ScanForm } from "./scan-form";

export const metadata = { title: "Check-in" };

/** Check-in at the door for the organizer's shows: each ticket gets in once. Organizers only (fans get 403). */
export default async function ScanPage() {
  const organizer = await requireOrganizer("/admin/scan");
  return (
    <div className="mx-auto max-w-2xl space-y-6">
      <nav className="text-sm text-white/60">
        <Link href="/admin" className="underline">
          Organizer
        </Link>{" "}
        / Check-in
      </nav>
      <h1 className="text-3xl font-bold">Check-in</h1>
      <p className="text-white/70">
        Tickets of every show run by {organizer.email}. A ticket gets in once; a second scan shows when it was first used.
      </p>
      <ScanForm />
    </div>
  );
}
