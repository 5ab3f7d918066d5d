import Link from "next/link";
import { requireOrganizer } from "@/lib/auth/session";
import { db } from "@/lib/db";
import type { EventFormValues } from "@/lib/events/form";
import { listVenues, venueSections } from "@/lib/venues/queries";
import { createEventAction } from "../actions";
import { EventForm } from "../event-form";

export const metadata = { title: "New show" };

const BLANK: EventFormValues = {
  venueId: "",
  name: "",
  slug: "",
  description: "",
  startsAt: "",
  onSaleAt: "",
  holdMinutes: "15",
  perFanLimit: "4",
  admissionRatePerMinute: "600",
  activeCap: "2000",
  priceLevels: [{ name: "", price: "", currency: "EUR", color: "#7c3aed", tiers: "", sections: "", rows: "" }],
};

/** Organizer: create a show (saved as a draft) on one of the venues. Server-side role check. */
export default async function NewShowPage() {
  await requireOrganizer("/admin/events/new");
  const venues = await listVenues(db());
  const sectionsByVenue = Object.fromEntries(await Promise.all(venues.map(async (v) => [v.id, await venueSections(db(), v.id)] as const)));
  return (
    <div className="space-y-6">
      <Link href="/admin" className="text-sm text-white/60 underline hover:text-white">
        ← Organizer dashboard
      </Link>
      <header className="space-y-1">
        <h1 className="text-3xl font-bold">New show</h1>
        <p className="text-white/70">The show is saved as a draft: you can preview its seat map and publish it when it is ready.</p>
      </header>
      <EventForm
        mode="create"
        action={createEventAction}
        initial={BLANK}
        venues={venues}
        sectionsByVenue={sectionsByVenue}
        levelsEditable
        submitLabel="Create show"
      />
    </div>
  );
}
