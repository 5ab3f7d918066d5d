import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { getLocale, getTranslations } from "next-intl/server";
import { statusWord } from "@/app/admin/_components/event-nav";
import { PriceLevelTable } from "@/components/price-level-table";
import { requireOrganizerOfEvent } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { getEventSetup } from "@/lib/events/edit-view";
import { venueSections } from "@/lib/venues/queries";
import { formatCount, formatInZone } from "@/lib/format";
import { intlLocale } from "@/lib/i18n/config";
import { publishEventAction, updateEventAction } from "../../actions";
import { EventForm, PublishButton, SeatMapPreview } from "../../event-form";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("AdminShows"))("editTitle") };
}

/** The notice after a redirect (`?created`, `?saved`, `?published`): its `AdminShows` message. */
const NOTICES = { created: "noticeCreated", saved: "noticeSaved", published: "noticePublished" } as const;

/** Why the price levels are locked (lib/events/edit-view.ts `levelsLocked`): its `AdminShows` message. */
const LOCKED = { orders: "lockedOrders", on_sale: "lockedOnSale" } as const;

/** Organizer: edit one of their shows, preview its seat map by price level, publish a draft. Owner checked server-side. */
export default async function EditShowPage({ params, searchParams }: PageProps<"/admin/events/[eventId]/edit">) {
  const { eventId } = await params;
  const { event } = await requireOrganizerOfEvent(eventId, `/admin/events/${eventId}/edit`);
  const setup = await getEventSetup(db(), event.id);
  if (!setup) notFound();
  const sections = await venueSections(db(), setup.venue.id);
  const query = await searchParams;
  const notice = (Object.keys(NOTICES) as (keyof typeof NOTICES)[]).find((k) => query[k] !== undefined);
  const [t, admin, status, fmt] = await Promise.all([getTranslations("AdminShows"), getTranslations("Admin"), getTranslations("Admin.status"), getLocale().then(intlLocale)]);
  const { venue, levels } = setup;
  const e = setup.event;
  const statusStyle = e.status === "published" ? "bg-emerald-500/20 text-emerald-200" : e.status === "draft" ? "bg-amber-500/20 text-amber-200" : "bg-red-500/20 text-red-200";

  return (
    <div className="space-y-8">
      <Link href="/admin" className="text-sm text-white/60 underline hover:text-white">
        ← {admin("dashboard")}
      </Link>
      <header className="space-y-2">
        <div className="flex flex-wrap items-center gap-3">
          <h1 className="break-words text-3xl font-bold" data-testid="setup-event-name">
            {e.name}
          </h1>
          <span className={`rounded-full px-3 py-0.5 text-sm ${statusStyle}`} data-testid="event-status" data-status={e.status}>
            {statusWord(status, e.status)}
          </span>
        </div>
        <p className="text-white/70">
          {t("venueAndTimes", { venue: venue.name, city: venue.city, starts: formatInZone(e.startsAt, e.timeZone, fmt), onSale: formatInZone(e.onSaleAt, e.timeZone, fmt) })}
        </p>
        <p className="flex flex-wrap gap-4 text-sm">
          {e.status === "published" && (
            <Link href={`/events/${e.slug}`} className="underline">
              {t("publicPage")}
            </Link>
          )}
          <Link href={`/admin/events/${e.id}/live`} className="underline">
            {t("liveView")}
          </Link>
        </p>
      </header>

      {notice && (
        <p role="status" className="rounded-lg border border-emerald-400/50 bg-emerald-500/10 p-3 text-sm text-emerald-200" data-testid="setup-notice">
          {t(NOTICES[notice])}
        </p>
      )}

      {e.status === "draft" && (
        <section className="space-y-3 rounded-xl border border-amber-400/40 bg-amber-500/10 p-5" data-testid="publish-panel">
          <h2 className="text-xl font-semibold">{statusWord(status, "draft")}</h2>
          <p className="text-sm text-white/80">{t("draftExplained", { onSale: formatInZone(e.onSaleAt, e.timeZone, fmt) })}</p>
          <PublishButton action={publishEventAction.bind(null, e.id)} name={e.name} onSaleText={formatInZone(e.onSaleAt, e.timeZone, fmt)} />
        </section>
      )}

      <section className="space-y-3" aria-labelledby="preview-heading">
        <h2 id="preview-heading" className="text-xl font-semibold">
          {t("preview")}{" "}
          <span className="text-sm font-normal text-white/60">{t("seatsOnSale", { onSale: formatCount(setup.seatsOnSale, fmt), capacity: formatCount(venue.capacity, fmt) })}</span>
        </h2>
        <SeatMapPreview eventId={e.id} version={e.updatedAt.getTime()} />
        <PriceLevelTable
          testId="setup-levels"
          levelHeader={t("level")}
          priceHeader={t("price")}
          figureHeader={t("seats")}
          locale={fmt}
          rows={levels.map((l) => ({ ...l, figure: formatCount(l.seats, fmt) }))}
        />
      </section>

      <section className="space-y-3" aria-labelledby="edit-heading">
        <h2 id="edit-heading" className="text-xl font-semibold">
          {t("edit")}
        </h2>
        {!setup.levelsLocked && !setup.rulesExact && (
          <p className="text-sm text-amber-200">{t("rulesApproximate")}</p>
        )}
        <EventForm
          key={e.updatedAt.getTime()}
          mode="edit"
          action={updateEventAction.bind(null, e.id)}
          initial={setup.form}
          venues={[venue]}
          sectionsByVenue={{ [venue.id]: sections }}
          levelsEditable={setup.levelsLocked === null}
          lockedMessage={setup.levelsLocked ? t(LOCKED[setup.levelsLocked]) : undefined}
          submitLabel={t("saveChanges")}
        />
      </section>
    </div>
  );
}
