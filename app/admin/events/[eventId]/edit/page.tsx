import Link from "next/link";
import { notFound } from "next/navigation";
import { PriceLevelTable } from "@/components/price-level-table";
import { requireOrganizerOfEvent } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { getEventSetup } from "@/lib/events/edit-view";
import { venueSections } from "@/lib/venues/queries";
import { formatCount, formatInZone } from "@/lib/format";
import { publishEventAction, updateEventAction } from "../../actions";
import { EventForm, PublishButton, SeatMapPreview } from "../../event-form";

export const metadata = { title: "Edit show" };

const NOTICES: Record<string, string> = {
  created: "Show created as a draft. Check the seat map below, then publish it.",
  saved: "Changes saved.",
  published: "Published: the show is on the home page now.",
};

const LOCKED: Record<string, string> = {
  orders: "This show already has orders, so its price levels and seats can no longer change. Everything else can.",
  on_sale: "Sales for this show have opened, so its price levels and seats can no longer change. Everything else can.",
};

/** Organizer: edit one of their shows, preview its seat map by price level, publish a draft. Owner checked server-side. */
export default async function EditShowPage({ params, searchParams }: PageProps<"/admin/events/[eventId]/edit">) {
  const { eventId } = await params;
  const { event } = await requireOrganizerOfEvent(eventId, `/admin/events/${eventId}/edit`);
  const setup = await getEventSetup(db(), event.id);
  if (!setup) notFound();
  const sections = await venueSections(db(), setup.venue.id);
  const query = await searchParams;
  const notice = Object.keys(NOTICES).find((k) => query[k] !== undefined);
  const { venue, levels } = setup;
  const e = setup.event;
  const statusStyle = e.status === "published" ? "bg-emerald-500/20 text-emerald-200" : e.status === "draft" ? "bg-amber-500/20 text-amber-200" : "bg-red-500/20 text-red-200";

  return (
    <div className="space-y-8">
      <Link href="/admin" className="text-sm text-white/60 underline hover:text-white">
        ← Organizer dashboard
      </Link>
      <header className="space-y-2">
        <div className="flex flex-wrap items-center gap-3">
          <h1 className="text-3xl font-bold" data-testid="setup-event-name">
            {e.name}
          </h1>
          <span className={`rounded-full px-3 py-0.5 text-sm ${statusStyle}`} data-testid="event-status">
            {e.status}
          </span>
        </div>
        <p className="text-white/70">
          {venue.name}, {venue.city} · starts {formatInZone(e.startsAt, e.timeZone)} · on-sale {formatInZone(e.onSaleAt, e.timeZone)}
        </p>
        <p className="flex flex-wrap gap-4 text-sm">
          {e.status === "published" && (
            <Link href={`/events/${e.slug}`} className="underline">
              Public page
            </Link>
          )}
          <Link href={`/admin/events/${e.id}/live`} className="underline">
            Live view
          </Link>
        </p>
      </header>

      {notice && (
        <p role="status" className="rounded-lg border border-emerald-400/50 bg-emerald-500/10 p-3 text-sm text-emerald-200" data-testid="setup-notice">
          {NOTICES[notice]}
        </p>
      )}

      {e.status === "draft" && (
        <section className="space-y-3 rounded-xl border border-amber-400/40 bg-amber-500/10 p-5" data-testid="publish-panel">
          <h2 className="text-xl font-semibold">Draft</h2>
          <p className="text-sm text-white/80">
            Only you can see this show. Publishing puts it on the home page; fans can join the waiting room before the on-sale and buy from{" "}
            {formatInZone(e.onSaleAt, e.timeZone)}.
          </p>
          <PublishButton action={publishEventAction.bind(null, e.id)} name={e.name} onSaleText={formatInZone(e.onSaleAt, e.timeZone)} />
        </section>
      )}

      <section className="space-y-3" aria-labelledby="preview-heading">
        <h2 id="preview-heading" className="text-xl font-semibold">
          Seat map preview{" "}
          <span className="text-sm font-normal text-white/60">
            ({formatCount(setup.seatsOnSale)} of {formatCount(venue.capacity)} seats on sale)
          </span>
        </h2>
        <SeatMapPreview eventId={e.id} version={e.updatedAt.getTime()} />
        <PriceLevelTable testId="setup-levels" levelHeader="Price level" figureHeader="Seats" rows={levels.map((l) => ({ ...l, figure: formatCount(l.seats) }))} />
      </section>

      <section className="space-y-3" aria-labelledby="edit-heading">
        <h2 id="edit-heading" className="text-xl font-semibold">
          Edit
        </h2>
        {!setup.levelsLocked && !setup.rulesExact && (
          <p className="text-sm text-amber-200">
            The seat rules below are the closest description of the current seat assignment; saving replaces the assignment with what they select.
          </p>
        )}
        <EventForm
          key={e.updatedAt.getTime()}
          mode="edit"
          action={updateEventAction.bind(null, e.id)}
          initial={setup.form}
          venues={[venue]}
          sectionsByVenue={{ [venue.id]: sections }}
          levelsEditable={setup.levelsLocked === null}
          lockedMessage={setup.levelsLocked ? LOCKED[setup.levelsLocked] : undefined}
          submitLabel="Save changes"
        />
      </section>
    </div>
  );
}
