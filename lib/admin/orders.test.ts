/**
 * The organizer's order desk against the real Postgres, Redis and the sandbox PSP:
 * search, the order list (status filter, paging) and its CSV export (also through its route), the order view, refund (the seat goes back on sale), re-issue, release of a
 * stuck hold, and the ownership checks. Purchases go through the sandbox PSP exactly as
 * in lib/reconciliation/failure-table.test.ts. Each test ends with the invariant checker at zero.
 */
import { and, eq, sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { adminActions, eventSeats, lineItems, orders, payments, tickets, user } from "@/db/schema";
import { GET as ordersCsvRoute } from "@/app/api/admin/events/[eventId]/orders.csv/route";
import { auth } from "@/lib/auth";
import { AppError } from "@/lib/errors";
import {
  countEventOrders,
  exportEventOrdersCsv,
  getAdminOrder,
  listEventOrders,
  normalizeSeatQuery,
  seatLabelPattern,
  ordersCsv,
  parseOrderListQuery,
  refundOrder,
  refundOrderTickets,
  reissueTickets,
  releaseStuckHold,
  searchOrders,
  type OrderListRow,
} from "@/lib/admin/orders";
import { listDiscrepancies, reconcileEventNow } from "@/lib/admin/discrepancies";
import { closeDb, db } from "@/lib/db";
import { env } from "@/lib/env";
import { inventoryKeys } from "@/lib/inventory/keys";
import { readHold } from "@/lib/inventory/hold";
import { rebuildInventory } from "@/lib/inventory/rebuild";
import { reopenSoldSeats } from "@/lib/inventory/reopen";
import { placeOrder } from "@/lib/orders/place-order";
import { startCheckout } from "@/lib/payments/checkout";
import * as psp from "@/lib/payments/sandbox/psp";
import { recordDiscrepancy } from "@/lib/audit/discrepancies";
import { checkInvariants, totalViolations } from "@/lib/reconciliation/invariants";
import { closeRedis, redis } from "@/lib/redis";
import { deliverAll, sandbox } from "@/lib/testing/psp";
import { CLEAN_INVARIANTS } from "@/lib/testing/invariants";
import { makeFans, makeStudioShow, makeUser } from "@/lib/testing/fixtures";
import { checkIn } from "@/lib/tickets/check-in";
import { closePendingOrder } from "@/lib/payments/expiry";

afterAll(async () => {
  await closeDb();
  await closeRedis();
});

const provider = sandbox;
const MIN = 60_000;
let show: Awaited<ReturnType<typeof makeStudioShow>>;
beforeEach(async () => {
  show = await makeStudioShow(db(), { onSaleAt: new Date(Date.now() - 86_400_000) });
  await rebuildInventory(db(), show.eventId);
});


/** A fan holds `ordinals` (the hold started `ageMs` ago, less than its 15 minutes) and opens the checkout. */
async function held(ordinals: number[], ageMs = 0, fanId?: string) {
  const fan = fanId ?? (await makeFans(db(), 1))[0]!;
  const at = new Date(Date.now() - ageMs);
  const order = await placeOrder(db(), { eventId: show.eventId, fanId: fan, request: { kind: "seats", ordinals }, now: at });
  await startCheckout(db(), provider, { orderId: order.orderId, fanId: fan, now: at });
  const payment = (await db().query.payments.findFirst({ where: eq(payments.orderId, order.orderId) }))!;
  return { fan, orderId: order.orderId, checkoutId: payment.checkoutSessionId };
}

/** A fan buys `ordinals` through the sandbox PSP (approve + webhook) and has tickets. */
async function bought(ordinals: number[], fanId?: string) {
  const h = await held(ordinals, 0, fanId);
  await psp.approve(h.checkoutId);
  await deliverAll(h.checkoutId);
  expect(await statusOf(h.orderId)).toBe("ticketed");
  return h;
}

const statusOf = async (orderId: string) => (await db().query.orders.findFirst({ where: eq(orders.id, orderId) }))!.status;
const freeBit = (ordinal: number) => redis().getbit(inventoryKeys(show.eventId).free, ordinal);
const emailOf = async (id: string) => (await db().query.user.findFirst({ where: eq(user.id, id) }))!.email;
async function expectInvariantsClean() {
  const report = await checkInvariants(db(), { eventId: show.eventId, graceMs: 0 });
  expect(report).toEqual(CLEAN_INVARIANTS);
  expect(totalViolations(report)).toBe(0);
}
async function refusal(p: Promise<unknown>): Promise<AppError> {
  const error = await p.then(
    () => null,
    (e: unknown) => e,
  );
  // Every refusal is an AppError with a stable code (ownership refusals are AdminOrderErrors).
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe("searchOrders", () => {
  it("finds orders by fan email (case-insensitive, partial), order id, seat label or seat ordinal — only of this show", async () => {
    const a = await bought([13]); // Sec MAIN · Row B · Seat 4
    const b = await held([20, 21]); // Row C · Seats 1–2
    const other = await makeStudioShow(db());
    const email = await emailOf(a.fan);

    const byEmail = await searchOrders(db(), show.organizerId, show.eventId, email.slice(0, 12).toUpperCase());
    expect(byEmail.map((h) => h.id)).toEqual([a.orderId]);
    expect(byEmail[0]).toMatchObject({ fanEmail: email, status: "ticketed", totalMinor: 4_500, refundedMinor: 0, currency: "EUR", matchedBy: "email" });
    // The seat comes with its parts, for a label in the reader's language.
    expect(byEmail[0]!.seats).toEqual([{ label: "Sec MAIN · Row B · Seat 4", section: "MAIN", standing: false, row: "B", number: 4 }]);

    expect((await searchOrders(db(), show.organizerId, show.eventId, b.orderId)).map((h) => h.id)).toEqual([b.orderId]);
    expect((await searchOrders(db(), show.organizerId, show.eventId, b.orderId.slice(0, 10))).map((h) => h.id)).toContain(b.orderId);

    const bySeat = await searchOrders(db(), show.organizerId, show.eventId, "Row B · Seat 4");
    expect(bySeat.map((h) => [h.id, h.matchedBy])).toEqual([[a.orderId, "seat"]]);
    expect((await searchOrders(db(), show.organizerId, show.eventId, "row b seat 4")).map((h) => h.id)).toEqual([a.orderId]);
    expect((await searchOrders(db(), show.organizerId, show.eventId, "13")).map((h) => h.id)).toEqual([a.orderId]);
    expect((await searchOrders(db(), show.organizerId, show.eventId, "Row C")).map((h) => h.id)).toEqual([b.orderId]);
    expect(await searchOrders(db(), show.organizerId, show.eventId, "Row B · Seat 5")).toEqual([]);
    // "Seat 1" is a whole word: Row C · Seat 1, not Seat 10.
    expect((await searchOrders(db(), show.organizerId, show.eventId, "seat 1")).map((h) => h.id)).toEqual([b.orderId]);
    // Empty query: the latest orders, newest first.
    expect((await searchOrders(db(), show.organizerId, show.eventId, "")).map((h) => h.id)).toEqual([b.orderId, a.orderId]);
    // LIKE wildcards are literal.
    expect(await searchOrders(db(), show.organizerId, show.eventId, "%@%")).toEqual([]);

    // Another organizer's show: refused; and their search never sees this show's orders.
    expect((await refusal(searchOrders(db(), other.organizerId, show.eventId, email))).code).toBe("not_your_show");
    expect(await searchOrders(db(), other.organizerId, other.eventId, email)).toEqual([]);
    expect(normalizeSeatQuery("  Sec MAIN · Row B · Seat 4 ")).toBe("sec main row b seat 4");

    // What a Chinese organizer types: the label as composed for them ("MAIN区 B排 4号"), or part of it, with or without spaces.
    for (const q of ["MAIN区 B排 4号", "main区b排4号", "B排 4号", "B排4座"]) {
      expect((await searchOrders(db(), show.organizerId, show.eventId, q)).map((h) => [h.id, h.matchedBy]), q).toEqual([[a.orderId, "seat"]]);
    }
    expect((await searchOrders(db(), show.organizerId, show.eventId, "C排")).map((h) => h.id)).toEqual([b.orderId]);
    // Whole words in Chinese too: "1号" is Seat 1 (Row C), not Seat 10–19; "B排 5号" is no one's.
    expect((await searchOrders(db(), show.organizerId, show.eventId, "1号")).map((h) => h.id)).toEqual([b.orderId]);
    expect(await searchOrders(db(), show.organizerId, show.eventId, "B排 5号")).toEqual([]);
    await expectInvariantsClean();
  });
});

describe("getAdminOrder", () => {
  it("shows the order, fan, seats, payments, tickets and the transition log newest last; another organizer gets a typed error", async () => {
    const a = await bought([12, 13]);
    const view = await getAdminOrder(db(), show.organizerId, a.orderId);
    expect(view).toMatchObject({ id: a.orderId, status: "ticketed", totalMinor: 9_000, currency: "EUR", fan: { id: a.fan, email: await emailOf(a.fan) } });
    expect(view.lineItems.map((l) => [l.seat.label, l.status, l.priceLevel])).toEqual([
      ["Sec MAIN · Row B · Seat 3", "sold", "Front"],
      ["Sec MAIN · Row B · Seat 4", "sold", "Front"],
    ]);
    expect(view.payments.map((p) => [p.status, p.amountMinor, p.refundedMinor])).toEqual([["captured", 9_000, 0]]);
    expect(view.displayStatus).toBe("ticketed");
    expect(view.lineItems[1]!.seat).toEqual({ label: "Sec MAIN · Row B · Seat 4", section: "MAIN", standing: false, row: "B", number: 4 });
    expect(view.tickets.map((t) => [t.seat.label, t.status])).toEqual([
      ["Sec MAIN · Row B · Seat 3", "valid"],
      ["Sec MAIN · Row B · Seat 4", "valid"],
    ]);
    expect(view.tickets[0]!.code).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const orderLog = view.transitions.filter((t) => t.entity === "order").map((t) => t.toStatus);
    expect(orderLog.at(-1)).toBe("ticketed");
    expect(orderLog).toEqual(expect.arrayContaining(["paid", "ticketed"]));
    const times = view.transitions.map((t) => t.at.getTime());
    expect([...times].sort((x, y) => x - y)).toEqual(times);
    expect(view.can).toEqual({ refund: true, refundTickets: true, reissue: true, releaseHold: false });

    const stranger = await makeUser(db(), "organizer");
    const e = await refusal(getAdminOrder(db(), stranger.id, a.orderId));
    expect([e.code, e.message]).toEqual(["not_your_show", "This order is for a show run by another organizer."]);
    expect((await refusal(getAdminOrder(db(), show.organizerId, "ord_doesnotexist"))).code).toBe("not_found");
    await expectInvariantsClean();
  });
});

describe("refundOrder", () => {
  it("refunds at the PSP, voids the tickets, frees the seat for another fan, and logs it", async () => {
    const a = await bought([13]);
    const [ticket] = await db().select().from(tickets).where(eq(tickets.orderId, a.orderId));
    expect(await freeBit(13)).toBe(0);

    const outcome = await refundOrder(db(), show.organizerId, a.orderId, "fan cannot come");
    expect(outcome).toMatchObject({ orderId: a.orderId, ticketsVoided: 1, seatsReleased: ["Sec MAIN · Row B · Seat 4"], redis: { result: "reopened", seats: 1 } });
    expect(outcome.refunded).toEqual([{ paymentId: expect.stringMatching(/^pay_/), amountMinor: 4_500, currency: "EUR" }]);

    expect(await statusOf(a.orderId)).toBe("refunded");
    expect((await psp.retrieve(a.checkoutId)).status).toBe("refunded");
    const [p] = await db().select().from(payments).where(eq(payments.orderId, a.orderId));
    expect(p!.status).toBe("refunded");
    expect((await db().select().from(tickets).where(eq(tickets.id, ticket!.id)))[0]!.status).toBe("void");
    expect((await db().select().from(lineItems).where(eq(lineItems.orderId, a.orderId))).map((l) => l.status)).toEqual(["refunded"]);
    const [seat] = await db().select().from(eventSeats).where(and(eq(eventSeats.eventId, show.eventId), eq(eventSeats.seatId, ticket!.seatId)));
    expect(seat!.status).toBe("available");
    expect(await freeBit(13)).toBe(1);
    expect(await redis().hget(inventoryKeys(show.eventId).fan, a.fan)).toBeNull();
    expect(await readHold(show.eventId, (await db().query.orders.findFirst({ where: eq(orders.id, a.orderId) }))!.holdId)).toBeNull();

    // Guarded transitions, logged with the organizer as actor.
    const view = await getAdminOrder(db(), show.organizerId, a.orderId);
    expect(view.transitions.filter((t) => t.actor === `organizer:${show.organizerId}`).map((t) => `${t.entity}:${t.fromStatus}→${t.toStatus}`)).toEqual([
      "payment:captured→refunded",
      "order:ticketed→refunded",
      "ticket:valid→void",
    ]);
    expect(view.adminActions.map((x) => [x.action, x.detail.outcome])).toEqual([["refund", "done"]]);
    expect(view.can.refund).toBe(false);

    // The old ticket no longer gets in.
    expect((await checkIn(db(), show.organizerId, ticket!.code)).result).toBe("refunded");
    // Another fan can hold (and buy) the seat.
    const c = await bought([13]);
    expect(await statusOf(c.orderId)).toBe("ticketed");

    // A second refund is refused, with a clear message, and logged.
    const again = await refusal(refundOrder(db(), show.organizerId, a.orderId));
    expect([again.code, again.message]).toEqual(["already_refunded", "This order has already been refunded."]);
    expect(await db().select().from(adminActions).where(eq(adminActions.orderId, a.orderId))).toHaveLength(2);
    // Reopening twice is harmless.
    expect((await reopenSoldSeats(show.eventId, view.holdId)).result).toBe("unknown");
    await expectInvariantsClean();
  });

  it("refuses an order that is not paid, and another organizer's order", async () => {
    const h = await held([30]);
    const e = await refusal(refundOrder(db(), show.organizerId, h.orderId));
    expect([e.code, e.message]).toEqual(["nothing_to_refund", "This order is not paid (it is pending payment), so there is nothing to refund."]);
    const [logged] = await db().select().from(adminActions).where(eq(adminActions.orderId, h.orderId));
    expect(logged).toMatchObject({ action: "refund", organizerId: show.organizerId, eventId: show.eventId, detail: { outcome: "refused", code: "nothing_to_refund" } });

    const a = await bought([31]);
    const stranger = await makeUser(db(), "organizer");
    expect((await refusal(refundOrder(db(), stranger.id, a.orderId))).code).toBe("not_your_show");
    expect(await statusOf(a.orderId)).toBe("ticketed");
    await expectInvariantsClean();
  });

  it("5 simultaneous refund clicks: one refund, the others are told it is done", async () => {
    const a = await bought([40, 41]);
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => refundOrder(db(), show.organizerId, a.orderId)));
    const ok = results.filter((r) => r.status === "fulfilled");
    expect(ok).toHaveLength(1);
    for (const r of results) if (r.status === "rejected") expect((r.reason as AppError).code).toBe("already_refunded");
    const log = await getAdminOrder(db(), show.organizerId, a.orderId);
    expect(log.transitions.filter((t) => t.toStatus === "refunded").map((t) => t.entity).sort()).toEqual(["order", "payment"]);
    expect(await freeBit(40)).toBe(1);
    expect(await freeBit(41)).toBe(1);
    await expectInvariantsClean();
  });
});

describe("refundOrder of a paid order whose tickets are not issued yet", () => {
  it("refuses while issuance is blocked (nothing changes), then issues and voids the tickets and refunds", async () => {
    const h = await held([35]);
    // Another session blocks ticket inserts (issuance gives up after its 2 s lock timeout).
    const blocker = postgres(env().DATABASE_URL, { max: 1, onnotice: () => {} });
    const reserved = await blocker.reserve();
    await reserved`begin`;
    await reserved`lock table tickets in share row exclusive mode`;
    try {
      await psp.approve(h.checkoutId);
      await deliverAll(h.checkoutId);
      expect(await statusOf(h.orderId)).toBe("paid");
      const e = await refusal(refundOrder(db(), show.organizerId, h.orderId));
      expect(e.code).toBe("busy");
      expect(await statusOf(h.orderId)).toBe("paid");
      expect((await psp.retrieve(h.checkoutId)).status).toBe("captured");
    } finally {
      await reserved`rollback`;
      reserved.release();
      await blocker.end();
    }
    const out = await refundOrder(db(), show.organizerId, h.orderId);
    expect(out).toMatchObject({ ticketsVoided: 1, redis: { result: "reopened", seats: 1 } });
    expect(await statusOf(h.orderId)).toBe("refunded");
    expect((await db().select().from(tickets).where(eq(tickets.orderId, h.orderId))).map((t) => t.status)).toEqual(["void"]);
    expect(await freeBit(35)).toBe(1);
    await expectInvariantsClean();
  }, 30_000);
});

describe("discrepancies", () => {
  it("lists the show's findings to its organizer only, and runs reconciliation on demand (logged)", async () => {
    const a = await bought([36]);
    await recordDiscrepancy(db(), { key: `test_${a.orderId}`, kind: "late_payment", eventId: show.eventId, orderId: a.orderId, detail: {}, action: "seats were still free: re-claimed and sold", status: "repaired" });
    const rows = await listDiscrepancies(db(), show.organizerId, show.eventId);
    expect(rows.map((r) => [r.kind, r.orderId, r.status, r.action])).toEqual([["late_payment", a.orderId, "repaired", "seats were still free: re-claimed and sold"]]);
    const stranger = await makeUser(db(), "organizer");
    expect((await refusal(listDiscrepancies(db(), stranger.id, show.eventId))).code).toBe("not_your_show");
    expect((await refusal(reconcileEventNow(db(), stranger.id, show.eventId))).code).toBe("not_your_show");

    // Redis forgets the sold seat: reconciliation repairs it and says so.
    await redis().setbit(inventoryKeys(show.eventId).free, 36, 1);
    const summary = await reconcileEventNow(db(), show.organizerId, show.eventId);
    expect(summary).toMatchObject({ redisMismatchesRepaired: 1, violations: 0, errors: [] });
    expect(await freeBit(36)).toBe(0);
    expect((await listDiscrepancies(db(), show.organizerId, show.eventId)).map((r) => r.kind)).toContain("redis_drift");
    const [logged] = await db().select().from(adminActions).where(and(eq(adminActions.eventId, show.eventId), eq(adminActions.action, "reconcile")));
    expect(logged!.detail).toMatchObject({ outcome: "done", redisMismatchesRepaired: 1 });
    await expectInvariantsClean();
  });
});

describe("reissueTickets", () => {
  it("gives valid tickets new codes; the old code is refused, the new one gets in; used tickets stay", async () => {
    const a = await bought([5, 6]);
    const before = await db().select().from(tickets).where(eq(tickets.orderId, a.orderId)).orderBy(tickets.seatId);
    // One ticket is already in: it is not re-issued.
    expect((await checkIn(db(), show.organizerId, before[1]!.code)).result).toBe("ok");

    const out = await reissueTickets(db(), show.organizerId, a.orderId);
    expect(out.reissued.map((t) => t.ticketId)).toEqual([before[0]!.id]);
    expect(out.skipped).toEqual([]);
    const after = await db().select().from(tickets).where(eq(tickets.orderId, a.orderId)).orderBy(tickets.seatId);
    expect(after.map((t) => t.id)).toEqual(before.map((t) => t.id));
    expect(after[0]!.code).not.toBe(before[0]!.code);
    expect(after[1]!.code).toBe(before[1]!.code);

    expect((await checkIn(db(), show.organizerId, before[0]!.code)).result).toBe("replaced");
    expect((await checkIn(db(), show.organizerId, after[0]!.code)).result).toBe("ok");
    // Nothing valid left: refused with a clear message.
    const e = await refusal(reissueTickets(db(), show.organizerId, a.orderId));
    expect([e.code, e.message]).toEqual(["no_valid_tickets", "This order has no valid tickets to re-issue (used tickets stay as they are)."]);
    const logged = await db().select().from(adminActions).where(and(eq(adminActions.orderId, a.orderId), eq(adminActions.action, "reissue_tickets")));
    expect(logged.map((l) => [l.ticketId, l.detail.outcome])).toEqual([
      [before[0]!.id, "done"],
      [null, "refused"],
    ]);
    await expectInvariantsClean();
  });
});

describe("releaseStuckHold", () => {
  it("cancels a hold past its expiry after asking the PSP; the seats return to sale", async () => {
    const h = await held([44], 14 * MIN + 50_000);
    await db().update(orders).set({ holdExpiresAt: new Date(Date.now() - 1_000) }).where(eq(orders.id, h.orderId));
    expect(await releaseStuckHold(db(), show.organizerId, h.orderId)).toEqual({ orderId: h.orderId, result: "released" });
    expect(await statusOf(h.orderId)).toBe("cancelled");
    expect((await psp.retrieve(h.checkoutId)).status).toBe("cancelled");
    expect(await freeBit(44)).toBe(1);
    const e = await refusal(releaseStuckHold(db(), show.organizerId, h.orderId));
    expect(e.code).toBe("not_pending");
    await expectInvariantsClean();
  });

  it("a hold whose payment went through (webhook lost) is paid instead, never released", async () => {
    const h = await held([45], 14 * MIN + 50_000);
    await psp.setCheckoutFaults(h.checkoutId, { drop: true });
    await psp.approve(h.checkoutId);
    await db().update(orders).set({ holdExpiresAt: new Date(Date.now() - 1_000) }).where(eq(orders.id, h.orderId));
    expect((await releaseStuckHold(db(), show.organizerId, h.orderId)).result).toBe("paid");
    expect(await statusOf(h.orderId)).toBe("ticketed");
    await expectInvariantsClean();
  });

  it("refuses a hold that is still running", async () => {
    const h = await held([46]);
    const e = await refusal(releaseStuckHold(db(), show.organizerId, h.orderId));
    expect(e.code).toBe("hold_running");
    expect(e.message).toMatch(/^This hold runs until \d\d:\d\d:\d\d and ends by itself/);
    expect(await statusOf(h.orderId)).toBe("pending_payment");
    await expectInvariantsClean();
  });
});

/** A small RFC 4180 reader, independent of the writer under test: records of fields. */
function readCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted && c === '"' && text[i + 1] === '"') {
      field += '"';
      i++;
    } else if (quoted && c === '"') {
      quoted = false;
    } else if (quoted) {
      field += c;
    } else if (c === '"' && field === "") {
      quoted = true;
    } else if (c === ",") {
      record.push(field);
      field = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      record.push(field);
      records.push(record);
      record = [];
      field = "";
      i++;
    } else if (c === "\n" || c === "\r") {
      throw new Error(`bare line break at ${i}: records end with CRLF`);
    } else {
      field += c;
    }
  }
  if (field !== "" || record.length > 0) throw new Error("the last record has no CRLF");
  return records;
}

const HEADER = ["order id", "status", "fan email", "fan name", "seats", "total", "currency", "created at (UTC)", "created at (Europe/Berlin)", "paid at (UTC)", "refunded"];

describe("listEventOrders, countEventOrders and the CSV export", () => {
  it("filters by status (partially refunded too), pages newest first with a stable tie-break, and exports the filtered list as RFC 4180 CSV", async () => {
    // Eight orders, created in this order: two ticketed, one partially refunded, one refunded,
    // two waiting for payment, one expired, one cancelled (none is "paid" without tickets).
    const t1 = await bought([0, 1]); // 2 × 45.00
    const t2 = await bought([2]); // 45.00
    const pr = await bought([20, 21]); // 2 × 29.00, one refunded below
    const rf = await bought([3]); // 45.00, refunded in full below
    const p1 = await held([30]);
    const p2 = await held([31]);
    const ex = await held([32], 14 * MIN + 50_000);
    const ca = await held([33], 14 * MIN + 50_000);
    const [prTicket] = await db().select().from(tickets).where(eq(tickets.orderId, pr.orderId));
    await refundOrderTickets(db(), show.organizerId, pr.orderId, { ticketIds: [prTicket!.id], reason: "Blocked view", idempotencyKey: `list-${pr.orderId}` });
    await refundOrder(db(), show.organizerId, rf.orderId);
    await db().update(orders).set({ holdExpiresAt: new Date(Date.now() - 1_000) }).where(eq(orders.id, ex.orderId));
    expect(await closePendingOrder(db(), ex.orderId, "expired", { actor: "system", reason: "test" })).toBe("closed");
    await db().update(orders).set({ holdExpiresAt: new Date(Date.now() - 1_000) }).where(eq(orders.id, ca.orderId));
    expect((await releaseStuckHold(db(), show.organizerId, ca.orderId)).result).toBe("released");
    // t1 and t2 created at the same instant: the id decides, descending.
    // (In SQL: a JS Date would drop the microseconds.)
    await db().execute(sql`update orders set created_at = (select created_at from orders where id = ${t2.orderId}) where id = ${t1.orderId}`);
    const tied = [t1.orderId, t2.orderId].sort().reverse();
    const newestFirst = [ca.orderId, ex.orderId, p2.orderId, p1.orderId, rf.orderId, pr.orderId, ...tied];
    // The fan of t1 has a comma, quotes and a line break in name and email; t2's name starts like a formula.
    const t1Email = `"jo,"x"-${t1.orderId}@test.stararena`;
    await db().update(user).set({ name: 'Doe, "JJ"\nJr', email: t1Email }).where(eq(user.id, t1.fan));
    await db().update(user).set({ name: "=HYPERLINK(1)" }).where(eq(user.id, t2.fan));
    // Another show's orders never appear.
    const other = await makeStudioShow(db(), { onSaleAt: new Date(Date.now() - 86_400_000) });
    await rebuildInventory(db(), other.eventId);
    await placeOrder(db(), { eventId: other.eventId, fanId: (await makeFans(db(), 1))[0]!, request: { kind: "seats", ordinals: [1] } });

    // Counts per status: 2 + 0 + 2 + 1 + 1 + 1 + 1 = 8.
    expect(await countEventOrders(db(), show.organizerId, show.eventId)).toEqual({
      total: 8,
      byStatus: { pending_payment: 2, paid: 0, ticketed: 2, partially_refunded: 1, expired: 1, cancelled: 1, refunded: 1 },
    });
    const all = await listEventOrders(db(), show.organizerId, show.eventId, { page: 1, pageSize: 3 });
    expect([all.total, all.page, all.pages, all.status]).toEqual([8, 1, 3, null]);
    const pageIds: string[] = [];
    for (const page of [1, 2, 3]) {
      const p = await listEventOrders(db(), show.organizerId, show.eventId, { page, pageSize: 3 });
      expect(p.rows).toHaveLength(page < 3 ? 3 : 2);
      pageIds.push(...p.rows.map((r) => r.id));
    }
    expect(pageIds).toEqual(newestFirst);
    // Past the last page: the last page; the default page size is 50.
    expect(await listEventOrders(db(), show.organizerId, show.eventId, { page: 9, pageSize: 3 })).toMatchObject({ page: 3, pages: 3, total: 8 });
    expect(await listEventOrders(db(), show.organizerId, show.eventId)).toMatchObject({ page: 1, pages: 1, pageSize: 50, total: 8 });

    const ids = async (status: string) => (await listEventOrders(db(), show.organizerId, show.eventId, { status, page: 1 })).rows.map((r) => r.id);
    expect(await ids("ticketed")).toEqual(tied);
    expect(await ids("partially_refunded")).toEqual([pr.orderId]);
    expect(await ids("refunded")).toEqual([rf.orderId]);
    expect(await ids("pending_payment")).toEqual([p2.orderId, p1.orderId]);
    expect(await ids("expired")).toEqual([ex.orderId]);
    expect(await ids("cancelled")).toEqual([ca.orderId]);
    expect(await listEventOrders(db(), show.organizerId, show.eventId, { status: "paid", page: 1 })).toMatchObject({ rows: [], total: 0, page: 1, pages: 1 });
    expect(await ids("")).toEqual(newestFirst);

    // What a row says: seats, money in minor units, paid at, refunded.
    const rows = new Map(all.rows.concat((await listEventOrders(db(), show.organizerId, show.eventId)).rows).map((r) => [r.id, r]));
    expect(rows.get(pr.orderId)).toMatchObject({ status: "partially_refunded", totalMinor: 5_800, refundedMinor: 2_900, currency: "EUR" });
    expect(rows.get(pr.orderId)!.seats.map((seat) => seat.label)).toEqual(["Sec MAIN · Row C · Seat 1", "Sec MAIN · Row C · Seat 2"]);
    expect(rows.get(rf.orderId)).toMatchObject({ status: "refunded", totalMinor: 4_500, refundedMinor: 4_500 });
    expect(rows.get(t1.orderId)).toMatchObject({ status: "ticketed", fanEmail: t1Email, fanName: 'Doe, "JJ"\nJr', totalMinor: 9_000, refundedMinor: 0 });
    expect(rows.get(t1.orderId)!.paidAt).toBeInstanceOf(Date);
    expect(rows.get(p1.orderId)).toMatchObject({ status: "pending_payment", paidAt: null, refundedMinor: 0 });
    expect(rows.get(ca.orderId)).toMatchObject({ status: "cancelled", paidAt: null });

    // Refusals: typed, 400 for bad input, 403/404 for the wrong show.
    const bad = await refusal(listEventOrders(db(), show.organizerId, show.eventId, { status: "shipped", page: 1 }));
    expect([bad.status, bad.code]).toEqual([400, "unknown_status"]);
    expect(bad.message).toBe('"shipped" is not an order status. Filter by one of pending_payment, paid, ticketed, partially_refunded, expired, cancelled, refunded — or by none, for all orders.');
    for (const page of [0, -1, 1.5, Number.NaN]) expect((await refusal(listEventOrders(db(), show.organizerId, show.eventId, { page }))).code).toBe("bad_page");
    const stranger = await makeUser(db(), "organizer");
    expect((await refusal(listEventOrders(db(), stranger.id, show.eventId, { page: 1 }))).code).toBe("not_your_show");
    expect((await refusal(countEventOrders(db(), stranger.id, show.eventId))).code).toBe("not_your_show");
    expect((await refusal(exportEventOrdersCsv(db(), stranger.id, show.eventId))).code).toBe("not_your_show");
    expect((await refusal(exportEventOrdersCsv(db(), show.organizerId, "evt_doesnotexist"))).code).toBe("not_found");
    expect((await refusal(exportEventOrdersCsv(db(), show.organizerId, show.eventId, { status: "Ticketed" }))).code).toBe("unknown_status");
    expect((await listEventOrders(db(), other.organizerId, other.eventId)).total).toBe(1);

    // The CSV of the ticketed orders: the header, then both, every one "ticketed", quoting per RFC 4180.
    const event = (await db().query.events.findFirst({ where: (e, { eq: is }) => is(e.id, show.eventId) }))!;
    const ticketed = await exportEventOrdersCsv(db(), show.organizerId, show.eventId, { status: "ticketed" });
    expect(ticketed.filename).toBe(`${event.slug}-orders-ticketed.csv`);
    const text = await new Response(ticketed.body).text();
    const records = readCsv(text);
    expect(records[0]).toEqual(HEADER);
    expect(records.slice(1).map((r) => r[0])).toEqual(tied);
    expect(records.slice(1).every((r) => r.length === HEADER.length && r[1] === "ticketed")).toBe(true);
    const t1Line = records.find((r) => r[0] === t1.orderId)!;
    expect(t1Line.slice(1, 7)).toEqual(["ticketed", t1Email, 'Doe, "JJ"\nJr', "2", "90.00", "EUR"]);
    expect(text).toContain(`,"""jo,""x""-${t1.orderId}@test.stararena","Doe, ""JJ""\nJr",2,90.00,EUR,`);
    expect(records.find((r) => r[0] === t2.orderId)!.slice(3, 6)).toEqual(["'=HYPERLINK(1)", "1", "45.00"]);
    expect(t1Line[7]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(new Date(t1Line[8]!).getTime()).toBe(new Date(t1Line[7]!).getTime()); // the same instant on Berlin's clock
    expect(t1Line[8]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0[12]:00$/);
    expect(t1Line[9]).toMatch(/Z$/);
    expect(t1Line[10]).toBe("0.00");

    // The whole list in batches of 3 (keyset paging): every order once, in the list's order; and the partial refund's amounts.
    const everything = await exportEventOrdersCsv(db(), show.organizerId, show.eventId, { batchSize: 3 });
    expect(everything.filename).toBe(`${event.slug}-orders-all.csv`);
    const lines = readCsv(await new Response(everything.body).text()).slice(1);
    expect(lines.map((r) => r[0])).toEqual(newestFirst);
    expect(lines.find((r) => r[0] === pr.orderId)!.slice(1, 7).concat(lines.find((r) => r[0] === pr.orderId)![10]!)).toEqual(["partially_refunded", await emailOf(pr.fan), "Fan 0", "2", "58.00", "EUR", "29.00"]);
    expect(lines.find((r) => r[0] === rf.orderId)![10]).toBe("45.00");
    expect(lines.find((r) => r[0] === p1.orderId)![9]).toBe("");
    const partial = readCsv(await new Response((await exportEventOrdersCsv(db(), show.organizerId, show.eventId, { status: "partially_refunded", batchSize: 1 })).body).text());
    expect(partial.map((r) => r[0])).toEqual(["order id", pr.orderId]);
    await expectInvariantsClean();
  }, 120_000);

  it("ordersCsv writes major units per currency and the venue's clock with its offset", () => {
    const row = (over: Partial<OrderListRow>): OrderListRow => ({
      id: "ord_1",
      status: "ticketed",
      fanEmail: "a@b.c",
      fanName: "A",
      seats: [{ label: "Sec MAIN · Row A · Seat 1", section: "MAIN", standing: false, row: "A", number: 1 }],
      totalMinor: 9_000,
      currency: "EUR",
      createdAt: new Date("2026-12-03T19:00:05.123Z"),
      paidAt: null,
      refundedMinor: 0,
      ...over,
    });
    const csv = ordersCsv([row({}), row({ id: "ord_2", totalMinor: 12_000, currency: "JPY", createdAt: new Date("2026-07-01T18:30:15Z"), paidAt: new Date("2026-07-01T18:31:00Z"), refundedMinor: 500 })], { timeZone: "Europe/Berlin" });
    expect(csv.split("\r\n")).toEqual([
      HEADER.join(","),
      "ord_1,ticketed,a@b.c,A,1,90.00,EUR,2026-12-03T19:00:05Z,2026-12-03T20:00:05+01:00,,0.00",
      "ord_2,ticketed,a@b.c,A,1,12000,JPY,2026-07-01T18:30:15Z,2026-07-01T20:30:15+02:00,2026-07-01T18:31:00Z,500",
      "",
    ]);
    // A zone behind UTC by a half hour; no header.
    expect(ordersCsv([row({ fanName: "-1", fanEmail: "+x@y.z" })], { timeZone: "America/St_Johns", header: false })).toBe(
      "ord_1,ticketed,'+x@y.z,'-1,1,90.00,EUR,2026-12-03T19:00:05Z,2026-12-03T15:30:05-03:30,,0.00\r\n",
    );
  });

  it("seatLabelPattern reads English as stored and Chinese as composed, on whole words", () => {
    const matches = (q: string, label: string) => new RegExp(seatLabelPattern(q)!).test(normalizeSeatQuery(label));
    expect(seatLabelPattern("104区 7排 12号")).toBe("(^| )sec 104 row 7 (seat|unit) 12( |$)");
    expect(seatLabelPattern("Row 7 · Seat 12")).toBe("(^| )row 7 seat 12( |$)");
    expect(seatLabelPattern(" · ")).toBeNull();
    expect(matches("104区 7排 12号", "Sec 104 · Row 7 · Seat 12")).toBe(true);
    expect(matches("7排 12号", "Sec 104 · Row 7 · Seat 12")).toBe(true);
    expect(matches("7排12号", "Sec 104 · Row 7 · Seat 12")).toBe(true);
    expect(matches("7排 12号", "Sec 104 · Row 7 · Seat 120")).toBe(false);
    expect(matches("7排 12号", "Sec 104 · Row 17 · Seat 12")).toBe(false);
    expect(matches("104区 7排 12号", "Sec 105 · Row 7 · Seat 12")).toBe(false);
    // The standing floor: "内场站区 153号" / "153号" is Unit 153.
    expect(matches("内场站区 153号", "Floor GA · Unit 153")).toBe(true);
    expect(matches("153号", "Floor GA · Unit 153")).toBe(true);
    expect(matches("内场站区 153号", "Floor GA · Unit 1534")).toBe(false);
    // English words still mean what they say: "Seat 153" is not Unit 153.
    expect(matches("Seat 153", "Floor GA · Unit 153")).toBe(false);
  });

  it("parseOrderListQuery reads ?status= and ?page=", () => {
    expect(parseOrderListQuery({})).toEqual({ status: null, page: 1 });
    expect(parseOrderListQuery({ status: "all", page: "" })).toEqual({ status: null, page: 1 });
    expect(parseOrderListQuery({ status: "partially_refunded", page: "12" })).toEqual({ status: "partially_refunded", page: 12 });
    for (const status of ["shipped", "TICKETED", ["paid", "paid"], "constructor"]) expect(() => parseOrderListQuery({ status })).toThrow(expect.objectContaining({ code: "unknown_status", status: 400 }));
    for (const page of ["0", "-1", "1.5", "x", ["1", "2"], "9999999999"]) expect(() => parseOrderListQuery({ page })).toThrow(expect.objectContaining({ code: "bad_page", status: 400 }));
  });
});

describe("GET /api/admin/events/[eventId]/orders.csv", () => {
  /** Signs in through better-auth; the Cookie header a browser would send. */
  async function cookieOf(email: string): Promise<string> {
    const { headers } = await auth().api.signInEmail({ body: { email, password: "password-123" }, returnHeaders: true });
    return headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
  }
  const get = (eventId: string, qs: string, cookie?: string) =>
    ordersCsvRoute(new Request(`${env().APP_URL}/api/admin/events/${eventId}/orders.csv${qs}`, { headers: cookie ? { cookie } : {} }), { params: Promise.resolve({ eventId }) });

  it("answers the organizer with a CSV download of the filtered orders; signed out 401, a fan or another organizer 403, a bad status 400", async () => {
    const a = await bought([5]);
    await held([6]);
    const slug = (await db().query.events.findFirst({ where: (e, { eq: is }) => is(e.id, show.eventId) }))!.slug;
    const organizer = await cookieOf(await emailOf(show.organizerId));
    const res = await get(show.eventId, "?status=ticketed", organizer);
    expect(res.status).toBe(200);
    expect(Object.fromEntries(["content-type", "content-disposition", "cache-control"].map((h) => [h, res.headers.get(h)]))).toEqual({
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${slug}-orders-ticketed.csv"`,
      "cache-control": "no-store",
    });
    const records = readCsv(await res.text());
    expect(records.map((r) => [r[0], r[1]])).toEqual([
      ["order id", "status"],
      [a.orderId, "ticketed"],
    ]);
    expect(readCsv(await (await get(show.eventId, "", organizer)).text())).toHaveLength(3);

    expect((await get(show.eventId, "?status=ticketed")).status).toBe(401);
    const fan = await makeUser(db(), "fan");
    expect((await get(show.eventId, "", await cookieOf(fan.email))).status).toBe(403);
    const stranger = await makeUser(db(), "organizer");
    const refused = await get(show.eventId, "", await cookieOf(stranger.email));
    expect([refused.status, ((await refused.json()) as { code: string }).code]).toEqual([403, "not_your_show"]);
    const bad = await get(show.eventId, "?status=shipped", organizer);
    expect([bad.status, ((await bad.json()) as { code: string }).code]).toEqual([400, "unknown_status"]);
  });
});
