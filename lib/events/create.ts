/**
 * Creating a show: the event row, its price levels, and its inventory (which seats
 * are on sale at which price level), in one transaction.
 *
 * Price levels are assigned by rules over the venue plan — by tier, section codes and
 * row ranges — first matching rule wins; seats no rule matches are not on sale
 * (./seat-rules.ts).
 */

import { z } from "zod";
import { eventSeats, events, priceLevels } from "@/db/schema";
import type { Db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { assignSeats, loadVenueSeats, priceLevelInputSchema } from "@/lib/events/seat-rules";
import { writeQueueSettings } from "@/lib/waiting-room/config";

const INSERT_BATCH = 5_000;

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

/** Raised when a price-level plan matches no seat at all for a level: 400 `empty_price_level`. */
export class EmptyPriceLevelError extends AppError {
  constructor(readonly level: string) {
    super("bad_request", "empty_price_level", `Price level "${level}" matches no seat of the venue`);
  }
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

  // Which level sells each seat: the first whose rules match it (./seat-rules.ts).
  const assignment = assignSeats(await loadVenueSeats(db, v.venueId), levels);
  const inventory: { eventId: string; seatId: number; priceLevelId: string }[] = [];
  const seatsByLevel: Record<string, number> = Object.fromEntries(levels.map((l) => [l.name, 0]));
  for (const [seatId, i] of assignment) {
    inventory.push({ eventId, seatId, priceLevelId: levels[i]!.id });
    seatsByLevel[levels[i]!.name]! += 1;
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
    });
    // The waiting room's settings have one writer: its own config module.
    await writeQueueSettings(tx, eventId, { ratePerMinute: v.admissionRatePerMinute, activeCap: v.activeCap });
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
