/**
 * Refusals of show set-up (lib/events/setup.ts), all {@link AppError}s: a message an
 * organizer can act on, a stable code, and, when one form field is at fault, its path
 * (`"slug"`, `"priceLevels.1.rows"`) so the form shows it under that field.
 */
import { AppError, type ErrorKind } from "@/lib/errors";

/** Base of every set-up refusal. */
export class EventSetupError extends AppError {
  constructor(kind: ErrorKind, code: string, message: string, field?: string) {
    super(kind, code, message, { field });
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
    super("conflict", "slug_taken", `Another show already uses the address /events/${slug}. Choose another slug.`, "slug");
  }
}

/** No venue with that id (400 `unknown_venue`). */
export class UnknownVenueError extends EventSetupError {
  constructor() {
    super("bad_request", "unknown_venue", "Choose one of the venues in the list.", "venueId");
  }
}

/** A price level's seat rules name an unknown tier or section, or match no seat (400 `bad_seat_rule`). */
export class SeatRuleError extends EventSetupError {
  constructor(
    message: string,
    readonly levelIndex: number,
    field: "tiers" | "sections" | "rows" = "rows",
  ) {
    super("bad_request", "bad_seat_rule", message, `priceLevels.${levelIndex}.${field}`);
  }
}

/** The times do not make sense together: on-sale after the start, a start in the past (400 `bad_time`). */
export class EventTimeError extends EventSetupError {
  constructor(message: string, field: "startsAt" | "onSaleAt") {
    super("bad_request", "bad_time", message, field);
  }
}
