/**
 * Seat rules checked against a real venue in Postgres: codes are matched case-insensitively and
 * rewritten in the venue's spelling; an unknown tier or section is refused with its own code and
 * facts — the specific message in Chinese, English exactly as before.
 */
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { closeDb, db } from "@/lib/db";
import { toErrorBody } from "@/lib/errors";
import { SeatRuleError } from "@/lib/events/errors";
import { canonicalLevels, type PriceLevelInput } from "@/lib/events/seat-rules";
import { studioPlan } from "@/lib/venues/plan";
import { createVenue } from "@/lib/venues/store";

afterAll(async () => {
  await closeDb();
});

const level = (name: string, seats: PriceLevelInput["seats"]): PriceLevelInput => ({ name, priceMinor: 4_500, currency: "EUR", color: "#7c3aed", seats });

/** The studio (one section "MAIN", tier "main") as a venue of its own. */
async function studio(): Promise<string> {
  const { venueId } = await createVenue(db(), { slug: `studio-${randomUUID().slice(0, 8)}`, name: "Rules Studio", city: "Berlin", timeZone: "Europe/Berlin" }, studioPlan());
  return venueId;
}

/** What `canonicalLevels` threw. */
async function refusal(venueId: string, levels: PriceLevelInput[]): Promise<SeatRuleError> {
  const error = await canonicalLevels(db(), venueId, levels).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SeatRuleError);
  return error as SeatRuleError;
}

describe("canonicalLevels", () => {
  it("rewrites tiers and sections in the venue's spelling", async () => {
    const venueId = await studio();
    const [out] = await canonicalLevels(db(), venueId, [level("Front", [{ tier: "MAIN", sections: ["main"], rows: { from: 1, to: 2 } }])]);
    expect(out!.seats).toEqual([{ tier: "main", sections: ["MAIN"], rows: { from: 1, to: 2 } }]);
  });

  it("refuses an unknown tier under the level's tiers, naming it and the venue's tiers", async () => {
    const venueId = await studio();
    const e = await refusal(venueId, [level("Front", [{ rows: { from: 1, to: 2 } }]), level("Balcony", [{ tier: "balcony" }])]);
    expect({ code: e.code, field: e.field, params: e.params, levelIndex: e.levelIndex }).toEqual({ code: "unknown_tier", field: "priceLevels.1.tiers", params: { tier: "balcony", tiers: "main" }, levelIndex: 1 });
    expect(toErrorBody(e, "req", "en").error).toBe('There is no tier "balcony" in this venue. Its tiers: main.');
    expect(toErrorBody(e, "req", "zh-CN").error).toBe("本场馆没有“balcony”这个看台层。本场馆的看台层：main。");
  });

  it("refuses unknown sections under the level's sections, naming them and the venue's sections", async () => {
    const venueId = await studio();
    const e = await refusal(venueId, [level("Front", [{ sections: ["main", "BALCONY", "b2"] }])]);
    expect({ code: e.code, field: e.field }).toEqual({ code: "unknown_section", field: "priceLevels.0.sections" });
    expect(toErrorBody(e, "req", "en").error).toBe("No section BALCONY, b2 in this venue. Its sections: MAIN.");
    expect(toErrorBody(e, "req", "zh-CN").error).toBe("本场馆没有分区 BALCONY, b2。本场馆的分区：MAIN。");
  });
});
