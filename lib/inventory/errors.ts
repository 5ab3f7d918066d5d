/**
 * Typed refusals of the hold path, all {@link AppError}s (lib/errors.ts): each carries a
 * message a fan can read, a stable `code` and, where a client needs them, the seats or
 * counts behind it.
 */
import { AppError } from "@/lib/errors";

/** One or more requested seats were just taken by someone else (409 `seat_taken`). */
export class SeatsTakenError extends AppError {
  /**
   * @param ordinals the requested seats that are not free.
   * @param unowned those of them no hold owns (Redis's answer): not free and nobody's means not on
   *   sale in this show (withheld, or not one of its seats). Omitted: unknown, any may be.
   */
  constructor(
    readonly ordinals: number[],
    readonly unowned: number[] = ordinals,
  ) {
    super(
      "conflict",
      "seat_taken",
      ordinals.length === 1 ? "Sorry — that seat was just taken. Pick another one." : "Sorry — some of those seats were just taken. Pick others.",
      { details: { seats: ordinals } },
    );
  }
}

/**
 * Not enough free seats, or none together, in the price level (409 `not_enough` / `not_together`).
 * The body carries `requested` and `bestGroup` (the most seats one hold could get there now: free
 * seats for `not_enough`, the largest group together for `not_together`; 0 = sold out), so a
 * client can offer that many at once instead of guessing down one seat at a time.
 */
export class NotEnoughSeatsError extends AppError {
  /**
   * @param requested seats asked for
   * @param bestGroup the most seats one hold could get in the level now (see above)
   * @param together whether the request wanted seats side by side (`not_together`)
   */
  constructor(
    readonly requested: number,
    readonly bestGroup: number,
    together: boolean,
  ) {
    super(
      "conflict",
      together ? "not_together" : "not_enough",
      together
        ? `There are no ${requested} seats together left at this price. The largest group left is ${bestGroup}; try fewer seats or another price level.`
        : bestGroup === 0
          ? "This price level is sold out."
          : `Only ${bestGroup} seat${bestGroup === 1 ? "" : "s"} left at this price.`,
      { params: { requested, bestGroup }, details: { requested, bestGroup } },
    );
  }
}

/** The fan would go over the show's per-fan limit (I6) (409 `fan_limit`). */
export class FanLimitError extends AppError {
  constructor(
    readonly limit: number,
    readonly current: number,
  ) {
    super(
      "conflict",
      "fan_limit",
      current > 0 ? `You can buy at most ${limit} tickets for this show, and you already have ${current} held or bought.` : `You can buy at most ${limit} tickets for this show.`,
      { params: { limit, current } },
    );
  }
}

/** The show is not on sale: unknown or unpublished (404), or before the on-sale (409); code `not_on_sale`. */
export function notOnSale(message: string, kind: "not_found" | "conflict" = "conflict"): AppError {
  return new AppError(kind, "not_on_sale", message);
}

/** A requested seat does not exist in this show or is not for sale (400 `unknown_seat`). */
export class UnknownSeatError extends AppError {
  constructor(readonly seats: number[]) {
    super("bad_request", "unknown_seat", `Seat${seats.length === 1 ? "" : "s"} ${seats.join(", ")} ${seats.length === 1 ? "is" : "are"} not for sale in this show.`, { details: { seats } });
  }
}

/** Redis has no inventory for the event and could not rebuild it in time (503 `not_ready`, retry). */
export class InventoryNotReadyError extends AppError {
  constructor() {
    super("unavailable", "not_ready", "Seat inventory is being prepared. Please try again in a moment.", { retryAfter: 2 });
  }
}

/** The fan's admission slot has ended (left the queue, bought, or timed out): the token holds nothing (403 `admission_slot_ended`). */
export class SlotEndedError extends AppError {
  constructor() {
    super("forbidden", "admission_slot_ended", "Your turn has ended (you left the queue, bought tickets, or your time ran out). Join the queue again to buy.");
  }
}

/**
 * The fan's admission token is of a queue Redis lost (another generation, ADR 0028): its turn is
 * gone with it, but its queue ticket keeps its place; the page goes back to the queue, which
 * re-seats it ahead of fans who joined since (403 `admission_queue_restarted`).
 */
export class QueueRestartedError extends AppError {
  constructor() {
    super(
      "forbidden",
      "admission_queue_restarted",
      "The waiting room was restarted, so your turn to buy ended early. Your place is kept: you are taken back to the queue, where you go ahead of everyone who joined since.",
    );
  }
}
