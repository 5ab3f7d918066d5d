/**
 * Which seats a show sells at which price level: rules over the venue plan — by tier,
 * section codes and row ranges, first matching rule wins, seats no rule matches are not
 * on sale — planned here for creating a show (./create.ts) and for editing it
 * (./setup.ts, ./edit-view.ts), together with the rule that locks them once orders exist
 * or sales have opened.
 */
import { asc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { eventSeats, rows, seats, sections } from "@/db/schema";
import type { Db } from "@/lib/db";
import { SeatRuleError, type PriceLevelsLockedError } from "@/lib/events/errors";
import { venueSections } from "@/lib/venues/queries";

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0] | Db;

/** A level's rules as the form shows them: comma-separated tiers and sections, a row range ("1–5"). */
export type RuleTexts = { tiers: string; sections: string; rows: string };

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

/** One rule: every given criterion must match. */
export type SeatRule = z.infer<typeof seatRuleSchema>;

/** One price level of a show: its name, price (minor units), currency, colour and seat rules. */
export const priceLevelInputSchema = z.object({
  name: z.string().trim().min(1).max(60),
  /** Minor units (cents). */
  priceMinor: z.number().int().min(0).max(10_000_000),
  currency: z.string().regex(/^[A-Z]{3}$/, "currency must be an ISO 4217 code such as EUR"),
  color: z.string().regex(/^#[0-9a-fA-F]{6}$/, "color must look like #1e88e5"),
  seats: z.array(seatRuleSchema).min(1),
});


/** True when `seat` satisfies every criterion of `rule`. */
export function seatMatches(rule: SeatRule, seat: Omit<SeatFacts, "seatId">): boolean {
  if (rule.tier && rule.tier !== seat.tier) return false;
  if (rule.sections && !rule.sections.includes(seat.section)) return false;
  if (rule.rows && (seat.row < rule.rows.from || seat.row > rule.rows.to)) return false;
  return true;
}

/** A price level as createEvent takes it. */
export type PriceLevelInput = z.output<typeof priceLevelInputSchema>;

/**
 * Checks that every tier and section code of the levels exists in the venue and rewrites
 * them in the venue's own spelling (codes are matched case-insensitively).
 * @throws {SeatRuleError} naming the unknown codes and the ones that exist.
 */
export async function canonicalLevels(db: Db, venueId: string, levels: PriceLevelInput[]): Promise<PriceLevelInput[]> {
  const secs = await venueSections(db, venueId);
  const sectionCodes = new Map(secs.map((s) => [s.code.toLowerCase(), s.code]));
  const tierNames = new Map(secs.map((s) => [s.tier.toLowerCase(), s.tier]));
  return levels.map((level, i) => ({
    ...level,
    seats: level.seats.map((rule) => {
      const out: SeatRule = { ...rule };
      if (rule.tier) {
        const tier = tierNames.get(rule.tier.toLowerCase());
        if (!tier) throw new SeatRuleError({ code: "unknown_tier", tier: rule.tier, tiers: [...new Set(tierNames.values())] }, i);
        out.tier = tier;
      }
      if (rule.sections) {
        const unknown = rule.sections.filter((c) => !sectionCodes.has(c.toLowerCase()));
        if (unknown.length) throw new SeatRuleError({ code: "unknown_section", unknown, sections: [...sectionCodes.values()] }, i);
        out.sections = rule.sections.map((c) => sectionCodes.get(c.toLowerCase())!);
      }
      return out;
    }),
  }));
}

/** What a seat rule can look at: the seat's tier, section code and row (1 = nearest the stage). */
export type SeatFacts = { seatId: number; tier: string; section: string; row: number };

/** The venue's seats with their tier, section and row, in plan order. */
export async function loadVenueSeats(db: Tx, venueId: string): Promise<SeatFacts[]> {
  return db
    .select({ seatId: seats.id, tier: sections.tier, section: sections.code, row: sql<number>`${rows.sortOrder} + 1` })
    .from(seats)
    .innerJoin(sections, eq(seats.sectionId, sections.id))
    .innerJoin(rows, eq(seats.rowId, rows.id))
    .where(eq(seats.venueId, venueId))
    .orderBy(asc(seats.ordinal));
}

/** Seat id → index of the first level whose rules match it (the same rule as createEvent). */
export function assignSeats(venueSeats: SeatFacts[], levels: { seats: SeatRule[] }[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const seat of venueSeats) {
    const i = levels.findIndex((l) => l.seats.some((rule) => seatMatches(rule, seat)));
    if (i >= 0) out.set(seat.seatId, i);
  }
  return out;
}

/** True when two seat → level assignments are the same. */
export function sameAssignment(a: Map<number, number>, b: Map<number, number>): boolean {
  if (a.size !== b.size) return false;
  for (const [seat, level] of a) if (b.get(seat) !== level) return false;
  return true;
}

/**
 * Seat rules that reproduce an existing assignment, for the edit form (the database keeps
 * the assignment, not the rules). Per level: the tiers (or sections) it covers and its row
 * range, left out where they cover the whole venue. `exact` says whether re-applying them
 * (first match wins) gives back exactly the stored assignment.
 */
export function describeAssignment(venueSeats: SeatFacts[], assignment: Map<number, number>, levelCount: number): { rules: RuleTexts[]; exact: boolean } {
  const allSections = [...new Set(venueSeats.map((s) => s.section))];
  const sectionsOfTier = new Map<string, Set<string>>();
  const maxRow = new Map<string, number>();
  for (const s of venueSeats) {
    if (!sectionsOfTier.has(s.tier)) sectionsOfTier.set(s.tier, new Set());
    sectionsOfTier.get(s.tier)!.add(s.section);
    maxRow.set(s.section, Math.max(maxRow.get(s.section) ?? 0, s.row));
  }
  const rules: RuleTexts[] = [];
  const derived: { seats: SeatRule[] }[] = [];
  for (let i = 0; i < levelCount; i++) {
    const mine = venueSeats.filter((s) => assignment.get(s.seatId) === i);
    const secs = new Set(mine.map((s) => s.section));
    const secList = allSections.filter((c) => secs.has(c));
    let tiers: string[] = [];
    let sectionList: string[] = [];
    if (secList.length > 0 && secList.length < allSections.length) {
      const whole = [...sectionsOfTier].filter(([, set]) => [...set].every((c) => secs.has(c)));
      const covered = new Set(whole.flatMap(([, set]) => [...set]));
      if (whole.length > 0 && covered.size === secs.size) tiers = whole.map(([t]) => t);
      else sectionList = secList;
    }
    const lo = mine.reduce((m, s) => Math.min(m, s.row), Infinity);
    const hi = mine.reduce((m, s) => Math.max(m, s.row), 0);
    const deepest = secList.reduce((m, c) => Math.max(m, maxRow.get(c) ?? 0), 0);
    const range = mine.length > 0 && (lo > 1 || hi < deepest) ? { from: lo, to: hi } : undefined;
    const narrowing: SeatRule = { ...(sectionList.length ? { sections: sectionList } : {}), ...(range ? { rows: range } : {}) };
    derived.push({ seats: tiers.length ? tiers.map((tier) => ({ tier, ...narrowing })) : [narrowing] });
    rules.push({ tiers: tiers.join(", "), sections: sectionList.join(", "), rows: range ? (range.from === range.to ? String(range.from) : `${range.from}–${range.to}`) : "" });
  }
  return { rules, exact: sameAssignment(assignSeats(venueSeats, derived), assignment) };
}

/** Seat id → index (in `levelIds` order) of its stored price level. */
export async function currentAssignment(db: Tx, eventId: string, levelIds: string[]): Promise<Map<number, number>> {
  const index = new Map(levelIds.map((id, i) => [id, i]));
  const stored = await db.select({ seatId: eventSeats.seatId, level: eventSeats.priceLevelId }).from(eventSeats).where(eq(eventSeats.eventId, eventId));
  return new Map(stored.map((s) => [s.seatId, index.get(s.level) ?? -1]));
}

/**
 * Why price levels and seats can no longer change (orders exist, or sales have opened), or null.
 * @param now Postgres's clock (docs/adr/0024): the caller reads it where it locks the show.
 */
export function lockReason(event: { status: string; onSaleAt: Date }, orderCount: number, now: Date): PriceLevelsLockedError["reason"] | null {
  if (orderCount > 0) return "orders";
  if (event.status === "published" && event.onSaleAt <= now) return "on_sale";
  return null;
}

