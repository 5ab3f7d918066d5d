/**
 * Refusals of show set-up (lib/events/setup.ts), all {@link AppError}s: a message an
 * organizer can act on, a stable code, and, when one form field is at fault, its path
 * (`"slug"`, `"priceLevels.1.rows"`) so the form shows it under that field.
 */
import { AppError, type ErrorKind } from "@/lib/errors";

/** Base of every set-up refusal: `params` are the facts its message names (the ICU arguments of `errors.<code>`). */
export class EventSetupError extends AppError {
  constructor(kind: ErrorKind, code: string, message: string, field?: string, params?: Record<string, string | number>) {
    super(kind, code, message, { field, params });
  }
}

/** No show with that id (404 `no_such_show`). */
export class EventNotFoundError extends EventSetupError {
  constructor() {
    super("not_found", "no_such_show", "There is no such show.");
  }
}

/** The caller is not the show's organizer (403 `not_your_show`). */
export class NotYourEventError extends EventSetupError {
  constructor() {
    super("forbidden", "not_your_show", "Only the organizer of this show can change it.");
  }
}

/** A cancelled show can no longer be edited or published (409 `show_cancelled`). */
export class EventNotEditableError extends EventSetupError {
  constructor() {
    super("conflict", "show_cancelled", "This show has been cancelled and can no longer be changed.");
  }
}

/** The price levels / inventory cannot change any more: orders exist, or sales have opened (409 `price_levels_locked`). */
export class PriceLevelsLockedError extends EventSetupError {
  constructor(readonly reason: "orders" | "on_sale") {
    super(
      "conflict",
      "price_levels_locked",
      reason === "orders"
        ? "This show already has orders, so its price levels and seats can no longer change. You can still edit its name, description, times and limits."
        : "Sales for this show have opened, so its price levels and seats can no longer change. You can still edit its name, description, times and limits.",
      "priceLevels",
      { reason },
    );
  }
}

/** The on-sale of a published show has already opened; its time can no longer move (409 `on_sale_locked`). */
export class OnSaleLockedError extends EventSetupError {
  constructor() {
    super("conflict", "on_sale_locked", "The on-sale has already opened, so its time can no longer change.", "onSaleAt");
  }
}

/** Another show already uses the slug (409 `slug_taken`). */
export class SlugTakenError extends EventSetupError {
  constructor(slug: string) {
    super("conflict", "slug_taken", `Another show already uses the address /events/${slug}. Choose another slug.`, "slug", { slug });
  }
}

/** No venue with that id (400 `unknown_venue`). */
export class UnknownVenueError extends EventSetupError {
  constructor() {
    super("bad_request", "unknown_venue", "Choose one of the venues in the list.", "venueId");
  }
}

/** What is wrong with a price level's seat rules, with the facts its message names. */
export type SeatRuleProblem =
  /** A tier the venue does not have; `tiers`: the ones it has. */
  | { code: "unknown_tier"; tier: string; tiers: string[] }
  /** Section codes the venue does not have; `sections`: the ones it has, in plan order. */
  | { code: "unknown_section"; unknown: string[]; sections: string[] }
  /** The level's rules leave it no seat: they match none, or earlier levels took them all. */
  | { code: "level_without_seats"; level: string };

/** Most section codes a message lists; the rest are counted. */
const LISTED_SECTIONS = 30;

/**
 * A price level's seat rules name an unknown tier or section, or leave it no seat: 400
 * `unknown_tier` {tier, tiers}, `unknown_section` {unknown, sections, total, more} or
 * `level_without_seats` {level}, under the level's field at fault.
 */
export class SeatRuleError extends EventSetupError {
  /** The price level at fault (0-based). */
  readonly levelIndex: number;

  /** @param problem a {@link SeatRuleProblem}; a plain message is English only (400 `bad_seat_rule`, under the level's rows). */
  constructor(problem: SeatRuleProblem | string, levelIndex: number) {
    const at = `priceLevels.${levelIndex}`;
    if (typeof problem === "string") {
      super("bad_request", "bad_seat_rule", problem, `${at}.rows`);
    } else if (problem.code === "unknown_tier") {
      const tiers = problem.tiers.join(", ");
      super("bad_request", "unknown_tier", `There is no tier "${problem.tier}" in this venue. Its tiers: ${tiers}.`, `${at}.tiers`, { tier: problem.tier, tiers });
    } else if (problem.code === "unknown_section") {
      const unknown = problem.unknown.join(", ");
      const sections = problem.sections.slice(0, LISTED_SECTIONS).join(", ");
      const total = problem.sections.length;
      const more = Math.max(0, total - LISTED_SECTIONS);
      super(
        "bad_request",
        "unknown_section",
        `No section ${unknown} in this venue. Its sections: ${sections}${more ? ` … (${total} in all)` : ""}.`,
        `${at}.sections`,
        { unknown, sections, total, more },
      );
    } else {
      super(
        "bad_request",
        "level_without_seats",
        `No seat is left for "${problem.level}": its rules match no seat of this venue, or earlier levels already took them all.`,
        `${at}.rows`,
        { level: problem.level },
      );
    }
    this.levelIndex = levelIndex;
  }
}

/** Why a show's times were refused, with the facts its message names. */
export type EventTimeProblem =
  /** The show would start now or earlier. */
  | { code: "show_in_past" }
  /** The on-sale would open at or after the start. */
  | { code: "onsale_after_start" }
  /**
   * A wall-clock time the venue's zone never shows (an impossible date, an hour daylight saving
   * time skips): `time` as typed, `english` the words lib/time-zone.ts's refusal gives.
   */
  | { code: "no_such_local_time"; time: string; timeZone: string; english: string };

/**
 * The times do not make sense together or on the venue's clock: 400 `show_in_past`,
 * `onsale_after_start` or `no_such_local_time` {what, time, timeZone}, under the time's field.
 */
export class EventTimeError extends EventSetupError {
  /** @param problem an {@link EventTimeProblem}; a plain message is English only (400 `bad_time`). */
  constructor(problem: EventTimeProblem | string, field: "startsAt" | "onSaleAt") {
    if (typeof problem === "string") {
      super("bad_request", "bad_time", problem, field);
    } else if (problem.code === "show_in_past") {
      super("bad_request", "show_in_past", "The show must start in the future.", field);
    } else if (problem.code === "onsale_after_start") {
      super("bad_request", "onsale_after_start", "The on-sale must open before the show starts.", field);
    } else {
      super("bad_request", "no_such_local_time", problem.english, field, {
        what: field,
        time: problem.time.trim().replace("T", " "),
        timeZone: problem.timeZone,
      });
    }
  }
}
