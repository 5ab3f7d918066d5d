import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { QueueView } from "@/components/queue-view";
import { requireUser } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { findPublishedEvent } from "@/lib/events/queries";
import { formatInZone } from "@/lib/format";
import { intlLocale, type Locale } from "@/lib/i18n/config";

export async function generateMetadata({ params }: PageProps<"/[locale]/events/[slug]/queue">): Promise<Metadata> {
  const t = await getTranslations({ locale: (await params).locale as Locale, namespace: "Queue" });
  return { title: t("title") };
}

/** The waiting room of one show: countdown before the on-sale, then place, progress and ETA. */
export default async function QueuePage({ params }: PageProps<"/[locale]/events/[slug]/queue">) {
  const { slug, locale } = await params;
  await requireUser(`/events/${slug}/queue`);
  const show = await findPublishedEvent(db(), slug);
  if (!show) notFound();
  return (
    <QueueView
      eventId={show.event.id}
      slug={slug}
      name={show.event.name}
      onSaleAt={show.event.onSaleAt.toISOString()}
      onSaleLabel={formatInZone(show.event.onSaleAt, show.event.timeZone, intlLocale(locale as Locale))}
      timeZone={show.event.timeZone}
    />
  );
}
