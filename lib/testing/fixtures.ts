/**
 * Test fixtures that write real rows through the same lib functions the app uses.
 * Every fixture gets unique slugs/emails, so tests in one database never collide.
 */
import { randomUUID } from "node:crypto";
import { user as userTable } from "@/db/schema";
import { ensureUser } from "@/lib/auth/users";
import type { Db } from "@/lib/db";
import { createEvent, type EventInput } from "@/lib/events/create";
import { studioPlan } from "@/lib/venues/plan";
import { createVenue } from "@/lib/venues/store";

const unique = () => randomUUID().slice(0, 8);

/** A fan (or organizer) account with a unique email. */
export async function makeUser(db: Db, role: "fan" | "organizer" = "fan") {
  const email = `${role}-${unique()}@test.stararena`;
  const id = await ensureUser(db, { email, password: "password-123", name: `Test ${role}`, role });
  return { id, email };
}

/** A 50-seat studio show (rows 1–2 "Front" 45.00 EUR, rows 3–5 "Back" 29.00 EUR), on sale since a minute ago. */
export async function makeStudioShow(db: Db, overrides: Partial<EventInput> = {}) {
  const organizer = await makeUser(db, "organizer");
  const { venueId } = await createVenue(db, { slug: `studio-${unique()}`, name: "Test Studio", city: "Berlin", timeZone: "Europe/Berlin" }, studioPlan());
  const now = Date.now();
  const { eventId, seatsByLevel } = await createEvent(db, {
    venueId,
    organizerId: organizer.id,
    name: "Test show",
    slug: `test-show-${unique()}`,
    status: "published",
    startsAt: new Date(now + 86_400_000),
    onSaleAt: new Date(now - 60_000),
    timeZone: "Europe/Berlin",
    priceLevels: [
      { name: "Front", priceMinor: 4_500, currency: "EUR", color: "#7c3aed", seats: [{ rows: { from: 1, to: 2 } }] },
      { name: "Back", priceMinor: 2_900, currency: "EUR", color: "#0d9488", seats: [{ rows: { from: 3, to: 5 } }] },
    ],
    ...overrides,
  });
  return { eventId, venueId, organizerId: organizer.id, seatsByLevel };
}

/** `n` fan accounts inserted in one statement (no password: they never sign in through the UI). */
export async function makeFans(db: Db, n: number): Promise<string[]> {
  const run = unique();
  const rows = Array.from({ length: n }, (_, i) => ({ id: `usr_t${run}${i}`, email: `fan-${run}-${i}@test.stararena`, name: `Fan ${i}`, role: "fan" as const }));
  await db.insert(userTable).values(rows);
  return rows.map((r) => r.id);
}
