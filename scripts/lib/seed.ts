/**
 * Demo data, idempotent: running it again changes nothing that exists.
 * - accounts: one organizer and three fans (passwords in the README);
 * - "StarArena Dome", a 20,000-seat arena (lower and upper bowl around a stage, a
 *   general-admission floor as numbered units), and "The Studio", 50 seats;
 * - the demo show in the arena with five price levels, its on-sale `onSaleDelayMinutes`
 *   after seeding; and a small, already-open test show in the studio. Both start at 20:00
 *   venue time (60 and 30 days after seeding).
 */
import { eq } from "drizzle-orm";
import { events } from "@/db/schema";
import { ensureUser } from "@/lib/auth/users";
import type { Db } from "@/lib/db";
import { createEvent } from "@/lib/events/create";
import type { PriceLevelInput } from "@/lib/events/seat-rules";
import { utcToZonedLocal, zonedLocalToUtc } from "@/lib/time-zone";
import { arenaPlan, studioPlan } from "@/lib/venues/plan";
import { createVenue, findVenueBySlug } from "@/lib/venues/store";

/** Demo accounts (also listed in the README). */
const DEMO_ACCOUNTS = [
  { email: "organizer@stararena.test", password: "organizer-demo", name: "Olivia Organizer", role: "organizer" },
  { email: "fan1@stararena.test", password: "fan-demo-1", name: "Farah Fan", role: "fan" },
  { email: "fan2@stararena.test", password: "fan-demo-2", name: "Felix Fan", role: "fan" },
  { email: "fan3@stararena.test", password: "fan-demo-3", name: "Fiona Fan", role: "fan" },
] as const;

export const DEMO_EVENT_SLUG = "nova-lights-world-tour";

/** The demo show's five price levels in the arena (the upper bowl's front 12 rows at €79.00); e2e shows in the arena reuse them. */
export const ARENA_PRICE_LEVELS: readonly PriceLevelInput[] = [
  { name: "Floor standing", priceMinor: 12_900, currency: "EUR", color: "#e11d48", seats: [{ tier: "floor" }] },
  { name: "Premium lower", priceMinor: 16_900, currency: "EUR", color: "#7c3aed", seats: [{ tier: "lower", rows: { from: 1, to: 8 } }] },
  { name: "Lower bowl", priceMinor: 11_900, currency: "EUR", color: "#2563eb", seats: [{ tier: "lower" }] },
  { name: "Upper bowl", priceMinor: 7_900, currency: "EUR", color: "#0d9488", seats: [{ tier: "upper", rows: { from: 1, to: 12 } }] },
  { name: "Upper rear", priceMinor: 4_900, currency: "EUR", color: "#ca8a04", seats: [{ tier: "upper" }] },
];
export const TEST_EVENT_SLUG = "studio-session";

/** What {@link seedDemo} did. */
export interface SeedResult {
  organizerId: string;
  demoEventId: string;
  testEventId: string;
  created: string[];
}

/**
 * Seeds everything above that is missing.
 * @param opts.onSaleDelayMinutes minutes from now to the demo show's on-sale (only when the show is created now).
 * @param opts.now clock for tests.
 */
export async function seedDemo(db: Db, opts: { onSaleDelayMinutes: number; now?: Date }): Promise<SeedResult> {
  const now = opts.now ?? new Date();
  const created: string[] = [];
  const ids: Record<string, string> = {};
  for (const a of DEMO_ACCOUNTS) ids[a.email] = await ensureUser(db, a);
  const organizerId = ids["organizer@stararena.test"]!;

  let arena = await findVenueBySlug(db, "stararena-dome");
  if (!arena) {
    await createVenue(db, { slug: "stararena-dome", name: "StarArena Dome", city: "Berlin", timeZone: "Europe/Berlin" }, arenaPlan());
    arena = (await findVenueBySlug(db, "stararena-dome"))!;
    created.push("venue StarArena Dome (20,000 seats)");
  }
  let studio = await findVenueBySlug(db, "the-studio");
  if (!studio) {
    await createVenue(db, { slug: "the-studio", name: "The Studio", city: "Berlin", timeZone: "Europe/Berlin" }, studioPlan());
    studio = (await findVenueBySlug(db, "the-studio"))!;
    created.push("venue The Studio (50 seats)");
  }

  const DAY = 24 * 60 * 60 * 1000;
  // Shows start in the evening, at the venue: 20:00 local on the day `days` from now.
  const evening = (days: number, timeZone: string) => zonedLocalToUtc(`${utcToZonedLocal(new Date(now.getTime() + days * DAY), timeZone).slice(0, 10)}T20:00`, timeZone);
  let demo = await db.query.events.findFirst({ where: eq(events.slug, DEMO_EVENT_SLUG) });
  if (!demo) {
    await createEvent(db, {
      venueId: arena.id,
      organizerId,
      slug: DEMO_EVENT_SLUG,
      name: "Nova Lights — World Tour 2027",
      description: "One night only: Nova Lights bring the World Tour 2027 to the StarArena Dome.",
      status: "published",
      startsAt: evening(60, arena.timeZone),
      onSaleAt: new Date(now.getTime() + opts.onSaleDelayMinutes * 60_000),
      timeZone: arena.timeZone,
      holdMinutes: 15,
      perFanLimit: 4,
      admissionRatePerMinute: 1_000,
      activeCap: 2_000,
      priceLevels: [...ARENA_PRICE_LEVELS],
    });
    demo = (await db.query.events.findFirst({ where: eq(events.slug, DEMO_EVENT_SLUG) }))!;
    created.push(`show ${demo.name}, on-sale ${demo.onSaleAt.toISOString()}`);
  }
  let small = await db.query.events.findFirst({ where: eq(events.slug, TEST_EVENT_SLUG) });
  if (!small) {
    await createEvent(db, {
      venueId: studio.id,
      organizerId,
      slug: TEST_EVENT_SLUG,
      name: "Studio Session — Acoustic Night",
      description: "An intimate acoustic set for 50 people, five rows from the stage.",
      status: "published",
      startsAt: evening(30, studio.timeZone),
      onSaleAt: new Date(now.getTime() - 60_000),
      timeZone: studio.timeZone,
      holdMinutes: 15,
      perFanLimit: 4,
      admissionRatePerMinute: 600,
      activeCap: 100,
      priceLevels: [
        { name: "Front rows", priceMinor: 4_500, currency: "EUR", color: "#7c3aed", seats: [{ rows: { from: 1, to: 2 } }] },
        { name: "Back rows", priceMinor: 2_900, currency: "EUR", color: "#0d9488", seats: [{ rows: { from: 3, to: 5 } }] },
      ],
    });
    small = (await db.query.events.findFirst({ where: eq(events.slug, TEST_EVENT_SLUG) }))!;
    created.push(`show ${small.name}`);
  }
  return { organizerId, demoEventId: demo.id, testEventId: small.id, created };
}

/** True when the database holds no show yet (start-up seeds then). */
export async function isEmpty(db: Db): Promise<boolean> {
  const one = await db.select({ id: events.id }).from(events).limit(1);
  return one.length === 0;
}
