/**
 * Every order transition, allowed and forbidden, against the real database: allowed
 * ones change the row once and log it; a second identical call (the race loser) changes
 * nothing; forbidden ones throw before writing.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { orders, orderTransitions } from "@/db/schema";
import { closeDb, db } from "@/lib/db";
import { newId } from "@/lib/ids";
import { ForbiddenTransitionError, ORDER_TRANSITIONS, transitionOrder, type OrderStatus } from "@/lib/orders/state-machine";
import { makeFans, makeStudioShow } from "@/lib/testing/fixtures";

const STATUSES: OrderStatus[] = ["pending_payment", "paid", "ticketed", "expired", "cancelled", "refunded"];
/** The design's transitions, written out independently of ORDER_TRANSITIONS. */
const ALLOWED = new Set([
  "pending_payment>paid",
  "pending_payment>expired",
  "pending_payment>cancelled",
  "paid>ticketed",
  "paid>refunded",
  "paid>cancelled",
  "ticketed>refunded",
  "ticketed>cancelled",
  "expired>paid",
]);

let eventId: string;
let fanId: string;
beforeAll(async () => {
  eventId = (await makeStudioShow(db())).eventId;
  [fanId] = (await makeFans(db(), 1)) as [string];
});
afterAll(async () => {
  await closeDb();
});

async function orderIn(status: OrderStatus): Promise<string> {
  const id = newId("ord");
  // A fan of its own per order: a fan may have only one pending order per show.
  const [owner] = status === "pending_payment" ? await makeFans(db(), 1) : [fanId];
  await db().insert(orders).values({ id, eventId, fanId: owner!, status, holdId: newId("hld"), holdExpiresAt: new Date(), totalMinor: 100, currency: "EUR" });
  return id;
}

describe("order state machine", () => {
  it("the table matches the design", () => {
    const table = STATUSES.flatMap((from) => ORDER_TRANSITIONS[from].map((to) => `${from}>${to}`));
    expect(new Set(table)).toEqual(ALLOWED);
  });

  const cases = STATUSES.flatMap((from) => STATUSES.map((to) => ({ from, to, allowed: ALLOWED.has(`${from}>${to}`) })));
  it.each(cases)("$from → $to (allowed: $allowed)", async ({ from, to, allowed }) => {
    const id = await orderIn(from);
    const cause = { actor: "test", reason: `${from} to ${to}` };
    if (!allowed) {
      await expect(transitionOrder(db(), id, from, to, cause)).rejects.toBeInstanceOf(ForbiddenTransitionError);
      expect((await db().query.orders.findFirst({ where: eq(orders.id, id) }))!.status).toBe(from);
      expect(await db().select().from(orderTransitions).where(eq(orderTransitions.orderId, id))).toEqual([]);
      return;
    }
    expect(await transitionOrder(db(), id, from, to, cause)).toBe(true);
    // The same guarded update again (a concurrent duplicate) finds the order no longer in `from`.
    expect(await transitionOrder(db(), id, from, to, cause)).toBe(false);
    expect((await db().query.orders.findFirst({ where: eq(orders.id, id) }))!.status).toBe(to);
    const log = await db().select().from(orderTransitions).where(eq(orderTransitions.orderId, id));
    expect(log.map((l) => [l.entity, l.fromStatus, l.toStatus, l.actor, l.reason])).toEqual([["order", from, to, "test", `${from} to ${to}`]]);
  });

  it("of 20 concurrent identical transitions exactly one wins", async () => {
    const id = await orderIn("pending_payment");
    const results = await Promise.all(Array.from({ length: 20 }, () => transitionOrder(db(), id, "pending_payment", "paid", { actor: "test", reason: "race" })));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await db().select().from(orderTransitions).where(eq(orderTransitions.orderId, id))).toHaveLength(1);
  });
});
