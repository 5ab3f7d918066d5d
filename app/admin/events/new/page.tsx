import type { Metadata } from "next";
import Link from "next/link";
import { getTranslations } from "next-intl/server";
import { requireOrganizer } from "@/lib/auth/session";
import { db } from "@/lib/db";
import type { EventFormValues } from "@/lib/events/form";
import { listVenues, venueSections } from "@/lib/venues/queries";
import { createEventAction } from "../actions";
import { EventForm } from "../event-form";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("AdminShows"))("newShow") };
}

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
  const [t, admin] = await Promise.all([getTranslations("AdminShows"), getTranslations("Admin")]);
  return (
    <div className="space-y-6">
      <Link href="/admin" className="text-sm text-white/60 underline hover:text-white">
        ← {admin("dashboard")}
      </Link>
      <header className="space-y-1">
        <h1 className="text-3xl font-bold">{t("newShow")}</h1>
        <p className="text-white/70">{t("newShowIntro")}</p>
      </header>
      <EventForm
        mode="create"
        action={createEventAction}
        initial={BLANK}
        venues={venues}
        sectionsByVenue={sectionsByVenue}
        levelsEditable
        submitLabel={t("createShow")}
      />
    </div>
  );
}
