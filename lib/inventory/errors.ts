/**
 * Typed errors of the hold path. Each carries a message a fan can read; routes map
 * them to 4xx statuses via `status`.
 */

/** Base class: a refusal the caller can show as it is. */
export class InventoryError extends Error {
  constructor(
    message: string,
    /** HTTP status a route should answer with. */
    readonly status: number,
    /** Stable machine code for clients. */
    readonly code: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** One or more requested seats were just taken by someone else (409). */
export class SeatsTakenError extends InventoryError {
  constructor(readonly ordinals: number[]) {
    super(
      ordinals.length === 1 ? "Sorry — that seat was just taken. Pick another one." : "Sorry — some of those seats were just taken. Pick others.",
      409,
      "seat_taken",
    );
  }
}

/** Not enough free seats, or none together, in the price level (409). */
export class NotEnoughSeatsError extends InventoryError {
  constructor(
    readonly requested: number,
    readonly bestGroup: number,
    together: boolean,
  ) {
    super(
      together
        ? `There are no ${requested} seats together left at this price. The largest group left is ${bestGroup}; try fewer seats or another price level.`
        : bestGroup === 0
          ? "This price level is sold out."
          : `Only ${bestGroup} seat${bestGroup === 1 ? "" : "s"} left at this price.`,
      409,
      together ? "not_together" : "not_enough",
    );
  }
}

/** The fan would go over the show's per-fan limit (I6) (409). */
export class FanLimitError extends InventoryError {
  constructor(
    readonly limit: number,
    readonly current: number,
  ) {
    super(
      current > 0
        ? `You can buy at most ${limit} tickets for this show, and you already have ${current} held or bought.`
        : `You can buy at most ${limit} tickets for this show.`,
      409,
      "fan_limit",
    );
  }
}

/** The show is not on sale (unknown, unpublished, before the on-sale) (404 / 409). */
export class NotOnSaleError extends InventoryError {
  constructor(message: string, status = 409) {
    super(message, status, "not_on_sale");
  }
}

/** A requested seat does not exist in this show or is not for sale (400). */
export class UnknownSeatError extends InventoryError {
  constructor(readonly seats: number[]) {
    super(`Seat${seats.length === 1 ? "" : "s"} ${seats.join(", ")} ${seats.length === 1 ? "is" : "are"} not for sale in this show.`, 400, "unknown_seat");
  }
}

/** Redis has no inventory for the event and could not rebuild it in time (503, retry). */
export class InventoryNotReadyError extends InventoryError {
  constructor() {
    super("Seat inventory is being prepared. Please try again in a moment.", 503, "not_ready");
  }
}
