import Link from "next/link";
import { connection } from "next/server";
import { getTranslations, setRequestLocale } from "next-intl/server";
import { db } from "@/lib/db";
import { listPublishedEvents } from "@/lib/events/queries";
import { formatCount, formatInZone, formatMoney } from "@/lib/format";
import { intlLocale, type Locale } from "@/lib/i18n/config";

/** Home: the published shows, soonest on-sale first. */
export default async function HomePage({ params }: PageProps<"/[locale]">) {
  const locale = (await params).locale as Locale;
  setRequestLocale(locale);
  await connection();
  const t = await getTranslations("Home");
  const fmt = intlLocale(locale);
  const shows = await listPublishedEvents(db());
  return (
    <div className="space-y-6">
      <h1 className="text-3xl font-bold">{t("title")}</h1>
      {shows.length === 0 && <p className="text-white/60">{t("none")}</p>}
      <ul className="grid gap-4 md:grid-cols-2">
        {shows.map((s) => (
          <li key={s.id}>
            <Link
              href={`/events/${s.slug}`}
              className="block rounded-xl border border-white/10 bg-white/5 p-5 hover:border-white/30"
              data-testid="show-card"
            >
              <h2 className="text-xl font-semibold">{s.name}</h2>
              <p className="text-white/70">
                {s.venueName}, {s.city} · {formatInZone(s.startsAt, s.timeZone, fmt)}
              </p>
              <p className="mt-2 text-sm">
                {!s.onSaleOpen ? (
                  <span className="text-amber-300">{t("onSaleAt", { when: formatInZone(s.onSaleAt, s.timeZone, fmt) })}</span>
                ) : (
                  <span className="text-emerald-300">{t("onSaleNow")}</span>
                )}
                {" · "}
                {t("seatsLeft", { left: formatCount(s.seatsAvailable, fmt), total: formatCount(s.seatsOnSale, fmt) })}
                {s.minPriceMinor !== null && s.currency && (
                  <>
                    {" · "}
                    {formatMoney(s.minPriceMinor, s.currency, fmt)}–{formatMoney(s.maxPriceMinor ?? s.minPriceMinor, s.currency, fmt)}
                  </>
                )}
              </p>
            </Link>
          </li>
        ))}
      </ul>
    </div>
  );
}
