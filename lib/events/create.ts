/**
 * Creating a show: the event row, its price levels, and its inventory (which seats
 * are on sale at which price level), in one transaction.
 *
 * Price levels are assigned by rules over the venue plan — by tier, section codes and
 * row ranges — first matching rule wins; seats no rule matches are not on sale.
 */
import { eq, sql } from "drizzle-orm";
import { z } from "zod";
import { eventSeats, events, priceLevels, rows, seats, sections } from "@/db/schema";
import type { Db } from "@/lib/db";
import { newId } from "@/lib/ids";

const INSERT_BATCH = 5_000;

/** Which seats a price level covers. Every given criterion must match. */
export const seatRuleSchema = z.object({
  tier: z.string().min(1).optional(),
  sections: z.array(z.string().min(1)).min(1).optional(),
  /** Row range by the row's position within its section (1 = nearest the stage), inclusive. */
  rows: z
    .object({ from: z.number().int().min(1), to: z.number().int().min(1) })
    .refine((r) => r.from <= r.to, "rows.from must not be after rows.to")
    .optional(),
});

export const priceLevelInputSchema = z.object({
  name: z.string().trim().min(1).max(60),
  /** Minor units (cents). */
  priceMinor: z.number().int().min(0).max(10_000_000),
  currency: z.string().regex(/^[A-Z]{3}$/, "currency must be an ISO 4217 code such as EUR"),
  color: z.string().regex(/^#[0-9a-fA-F]{6}$/, "color must look like #1e88e5"),
  seats: z.array(seatRuleSchema).min(1),
});

export const eventInputSchema = z
  .object({
    venueId: z.string().min(1),
    organizerId: z.string().min(1),
    name: z.string().trim().min(1).max(120),
    slug: z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "slug may contain lower-case letters, digits and dashes"),
    description: z.string().max(2_000).default(""),
    status: z.enum(["draft", "published"]).default("draft"),
    startsAt: z.date(),
    onSaleAt: z.date(),
    timeZone: z.string().min(1),
    holdMinutes: z.number().int().min(1).max(120).default(15),
    perFanLimit: z.number().int().min(1).max(50).default(4),
    admissionRatePerMinute: z.number().int().min(1).default(600),
    activeCap: z.number().int().min(1).default(2_000),
    priceLevels: z.array(priceLevelInputSchema).min(1),
  })
  .refine((v) => v.onSaleAt < v.startsAt, { path: ["onSaleAt"], message: "the on-sale must open before the show starts" })
  .refine((v) => Intl.supportedValuesOf("timeZone").includes(v.timeZone) || v.timeZone === "UTC", {
    path: ["timeZone"],
    message: "timeZone must be an IANA time zone such as Europe/Berlin",
  });

export type EventInput = z.input<typeof eventInputSchema>;
export type SeatRule = z.infer<typeof seatRuleSchema>;

/** Raised when a price-level plan matches no seat at all for a level. */
export class EmptyPriceLevelError extends Error {
  constructor(readonly level: string) {
    super(`Price level "${level}" matches no seat of the venue`);
    this.name = "EmptyPriceLevelError";
  }
}

type SeatFacts = { seatId: number; tier: string; section: string; row: number };

/** True when `seat` satisfies every criterion of `rule`. */
export function seatMatches(rule: SeatRule, seat: Omit<SeatFacts, "seatId">): boolean {
  if (rule.tier && rule.tier !== seat.tier) return false;
  if (rule.sections && !rule.sections.includes(seat.section)) return false;
  if (rule.rows && (seat.row < rule.rows.from || seat.row > rule.rows.to)) return false;
  return true;
}

/**
 * Creates the event, its price levels and its inventory.
 * @returns the event id (`evt_…`) and the number of seats put on sale per level name.
 * @throws {z.ZodError} on invalid input; {@link EmptyPriceLevelError} when a level covers no seat.
 */
export async function createEvent(
  db: Db,
  input: EventInput,
): Promise<{ eventId: string; seatsByLevel: Record<string, number> }> {
  const v = eventInputSchema.parse(input);
  const eventId = newId("evt");
  const levels = v.priceLevels.map((level, i) => ({ ...level, id: newId("pl"), sortOrder: i }));

  const venueSeats: SeatFacts[] = await db
    .select({ seatId: seats.id, tier: sections.tier, section: sections.code, row: sql<number>`${rows.sortOrder} + 1` })
    .from(seats)
    .innerJoin(sections, eq(seats.sectionId, sections.id))
    .innerJoin(rows, eq(seats.rowId, rows.id))
    .where(eq(seats.venueId, v.venueId));

  const inventory: { eventId: string; seatId: number; priceLevelId: string }[] = [];
  const seatsByLevel: Record<string, number> = Object.fromEntries(levels.map((l) => [l.name, 0]));
  for (const seat of venueSeats) {
    const level = levels.find((l) => l.seats.some((rule) => seatMatches(rule, seat)));
    if (!level) continue;
    inventory.push({ eventId, seatId: seat.seatId, priceLevelId: level.id });
    seatsByLevel[level.name]! += 1;
  }
  for (const level of levels) if (seatsByLevel[level.name] === 0) throw new EmptyPriceLevelError(level.name);

  await db.transaction(async (tx) => {
    await tx.insert(events).values({
      id: eventId,
      slug: v.slug,
      venueId: v.venueId,
      organizerId: v.organizerId,
      name: v.name,
      description: v.description,
      status: v.status,
      startsAt: v.startsAt,
      onSaleAt: v.onSaleAt,
      timeZone: v.timeZone,
      holdMinutes: v.holdMinutes,
      perFanLimit: v.perFanLimit,
      admissionRatePerMinute: v.admissionRatePerMinute,
      activeCap: v.activeCap,
    });
    await tx.insert(priceLevels).values(
      levels.map((l) => ({
        id: l.id,
        eventId,
        name: l.name,
        priceMinor: l.priceMinor,
        currency: l.currency,
        color: l.color,
        sortOrder: l.sortOrder,
      })),
    );
    for (let i = 0; i < inventory.length; i += INSERT_BATCH) {
      await tx.insert(eventSeats).values(inventory.slice(i, i + INSERT_BATCH));
    }
  });
  return { eventId, seatsByLevel };
}
