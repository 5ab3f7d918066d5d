import Link from "next/link";
import { connection } from "next/server";
import { db } from "@/lib/db";
import { listPublishedEvents } from "@/lib/events/queries";
import { formatCount, formatInZone, formatMoney } from "@/lib/format";

/** Home: the published shows, soonest on-sale first. */
export default async function HomePage() {
  await connection();
  const shows = await listPublishedEvents(db());
  return (
    <div className="space-y-6">
      <h1 className="text-3xl font-bold">Shows</h1>
      {shows.length === 0 && <p className="text-white/60">No shows are on sale yet.</p>}
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
                {s.venueName}, {s.city} · {formatInZone(s.startsAt, s.timeZone)}
              </p>
              <p className="mt-2 text-sm">
                {!s.onSaleOpen ? (
                  <span className="text-amber-300">On sale {formatInZone(s.onSaleAt, s.timeZone)}</span>
                ) : (
                  <span className="text-emerald-300">On sale now</span>
                )}
                {" · "}
                {formatCount(s.seatsAvailable)} of {formatCount(s.seatsOnSale)} seats left
                {s.minPriceMinor !== null && s.currency && (
                  <>
                    {" · "}
                    {formatMoney(s.minPriceMinor, s.currency)}–{formatMoney(s.maxPriceMinor ?? s.minPriceMinor, s.currency)}
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
