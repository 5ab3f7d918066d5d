/**
 * Direct access to the e2e server's database (stararena_e2e, or E2E_DATABASE as scripts/e2e-server.ts reads it) for setting up scenarios the
 * UI cannot create yet. Uses the app's own lib functions.
 */
const base = new URL(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/stararena");
base.pathname = `/${process.env.E2E_DATABASE ?? "stararena_e2e"}`;
process.env.DATABASE_URL = base.toString();

import { eq } from "drizzle-orm";
import { user } from "@/db/schema";
import { closeDb, db } from "@/lib/db";
import { createEvent } from "@/lib/events/create";
import { findVenueBySlug } from "@/lib/venues/store";
import { ARENA_PRICE_LEVELS } from "@/scripts/lib/seed";

/** Creates a published 50-seat studio show whose on-sale opens `inSeconds` from now. */
export async function createQueueShow(opts: { slug: string; inSeconds: number; ratePerMinute: number; activeCap: number; holdMinutes?: number }): Promise<string> {
  const venue = (await findVenueBySlug(db(), "the-studio"))!;
  const organizer = (await db().query.user.findFirst({ where: eq(user.email, "organizer@stararena.test") }))!;
  const now = Date.now();
  const { eventId } = await createEvent(db(), {
    venueId: venue.id,
    organizerId: organizer.id,
    name: "Queue Rehearsal",
    slug: opts.slug,
    status: "published",
    startsAt: new Date(now + 7 * 86_400_000),
    onSaleAt: new Date(now + opts.inSeconds * 1000),
    timeZone: venue.timeZone,
    admissionRatePerMinute: opts.ratePerMinute,
    activeCap: opts.activeCap,
    holdMinutes: opts.holdMinutes ?? 15,
    priceLevels: [{ name: "Standard", priceMinor: 3_000, currency: "EUR", color: "#0d9488", seats: [{}] }],
  });
  await closeDb();
  return eventId;
}

/**
 * Creates a published show in the 20,000-seat arena, on sale from a minute ago, with the demo
 * show's five price levels (the upper bowl's front 12 rows at €79.00). @returns its event id.
 */
export async function createArenaShow(slug: string): Promise<string> {
  const venue = (await findVenueBySlug(db(), "stararena-dome"))!;
  const organizer = (await db().query.user.findFirst({ where: eq(user.email, "organizer@stararena.test") }))!;
  const now = Date.now();
  const { eventId } = await createEvent(db(), {
    venueId: venue.id,
    organizerId: organizer.id,
    name: "Arena Rehearsal",
    slug,
    status: "published",
    startsAt: new Date(now + 14 * 86_400_000),
    onSaleAt: new Date(now - 60_000),
    timeZone: venue.timeZone,
    priceLevels: [...ARENA_PRICE_LEVELS],
  });
  await closeDb();
  return eventId;
}

/** The language stored on an account (lib/i18n: what its e-mails are written in), or null. */
export async function localeOfUser(email: string): Promise<string | null> {
  const [row] = await db().select({ locale: user.locale }).from(user).where(eq(user.email, email));
  await closeDb();
  return row?.locale ?? null;
}
