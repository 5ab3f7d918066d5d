/**
 * Partial refunds per ticket (docs/adr/0020) against the real Postgres, Redis and the sandbox
 * PSP: exactly the chosen tickets' prices go back, those tickets stop working and their seats
 * go back on sale, the order stays ticketed (shown partially refunded), the reason is audited,
 * the fan is told which tickets; a double submit refunds once; the PSP's ledger and the
 * invariant checker agree that money kept = the live tickets' prices.
 */
import { and, eq } from "drizzle-orm";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { adminActions, emails, eventSeats, lineItems, orders, payments, refunds, seats, tickets, user } from "@/db/schema";
import { sandboxRefunds } from "@/db/sandbox-psp-schema";
import { countEventOrders, getAdminOrder, listEventOrders, refundOrder, refundOrderTickets, searchOrders } from "@/lib/admin/orders";
import { closeDb, db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { inventoryKeys } from "@/lib/inventory/keys";
import { rebuildInventory } from "@/lib/inventory/rebuild";
import { placeOrder } from "@/lib/orders/place-order";
import { startCheckout } from "@/lib/payments/checkout";
import { finishRequestedRefunds } from "@/lib/payments/refund-tickets";
import * as psp from "@/lib/payments/sandbox/psp";
import { checkInvariants } from "@/lib/reconciliation/invariants";
import { reconcileLedger } from "@/lib/reconciliation/ledger";
import { closeRedis, redis } from "@/lib/redis";
import { CLEAN_INVARIANTS } from "@/lib/testing/invariants";
import { makeFans, makeStudioShow } from "@/lib/testing/fixtures";
import { deliverAll, sandbox } from "@/lib/testing/psp";
import { checkIn } from "@/lib/tickets/check-in";

afterAll(async () => {
  await closeDb();
  await closeRedis();
});

let show: Awaited<ReturnType<typeof makeStudioShow>>;
beforeEach(async () => {
  show = await makeStudioShow(db(), { onSaleAt: new Date(Date.now() - 86_400_000) });
  await rebuildInventory(db(), show.eventId);
});

/** A fan buys seats 3 (Front, 45.00), 25 and 26 (Back, 29.00 each): 103.00 EUR, ticketed. */
async function bought(ordinals = [3, 25, 26]) {
  const [fan] = await makeFans(db(), 1);
  const order = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals } });
  await startCheckout(db(), sandbox, { orderId: order.orderId, fanId: fan!, now: new Date() });
  const payment = (await db().query.payments.findFirst({ where: eq(payments.orderId, order.orderId) }))!;
  await psp.approve(payment.checkoutSessionId);
  await deliverAll(payment.checkoutSessionId);
  const tix = await db()
    .select({ id: tickets.id, ordinal: seats.ordinal, code: tickets.code })
    .from(tickets)
    .innerJoin(seats, eq(tickets.seatId, seats.id))
    .where(eq(tickets.orderId, order.orderId))
    .orderBy(seats.ordinal);
  expect(tix.map((t) => t.ordinal)).toEqual(ordinals);
  const byOrdinal = Object.fromEntries(tix.map((t) => [t.ordinal, t])) as Record<number, (typeof tix)[number]>;
  return { fan: fan!, orderId: order.orderId, payment, tickets: byOrdinal };
}

const window = () => ({ from: new Date(Date.now() - 3_600_000), to: new Date(Date.now() + 60_000) });
const pspCheckout = async (checkoutId: string) => (await psp.listPayments(window())).data.find((c) => c.id === checkoutId)!;
const clean = async () => expect(await checkInvariants(db(), { eventId: show.eventId, graceMs: 0 })).toEqual(CLEAN_INVARIANTS);
async function refusal(p: Promise<unknown>): Promise<AppError> {
  const error = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe("refundOrderTickets", () => {
  it("refunds exactly the chosen tickets' prices; they stop working, their seats go back on sale, the rest stays", async () => {
    const b = await bought();
    const out = await refundOrderTickets(db(), show.organizerId, b.orderId, {
      ticketIds: [b.tickets[25]!.id, b.tickets[26]!.id],
      reason: "Two seats with a blocked view",
      idempotencyKey: "form-1",
    });
    // 2 × 29.00 = 58.00 back; 45.00 (seat 3) kept.
    expect([out.amountMinor, out.currency, out.repeated, out.redis]).toEqual([5_800, "EUR", false, "rebuilt"]);
    expect(out.seats).toEqual(["Sec MAIN · Row C · Seat 6", "Sec MAIN · Row C · Seat 7"]);
    const c = await pspCheckout(b.payment.checkoutSessionId);
    expect([c.status, c.refundedMinor]).toEqual(["captured", 5_800]);
    expect(await db().select().from(sandboxRefunds).where(eq(sandboxRefunds.checkoutId, c.id))).toHaveLength(1);

    // Order: still ticketed with one live ticket; the organizer sees "partially refunded".
    expect((await db().query.orders.findFirst({ where: eq(orders.id, b.orderId) }))!.status).toBe("ticketed");
    const view = await getAdminOrder(db(), show.organizerId, b.orderId);
    expect([view.status, view.displayStatus]).toEqual(["ticketed", "partially_refunded"]);
    expect(view.tickets.map((t) => t.status)).toEqual(["valid", "void", "void"]);
    expect(view.lineItems.map((l) => l.status)).toEqual(["sold", "refunded", "refunded"]);
    // The payment row: 103.00 captured, 58.00 of it given back.
    expect(view.payments.map((p) => [p.status, p.amountMinor, p.refundedMinor])).toEqual([["captured", 10_300, 5_800]]);
    expect(view.refunds.map((r) => [r.amountMinor, r.status, r.reason])).toEqual([[5_800, "succeeded", "Two seats with a blocked view"]]);
    // The list, its filter count and the search read the same status and the same refunded amount (one rule: lib/admin/order-status.ts).
    const listed = (await listEventOrders(db(), show.organizerId, show.eventId)).rows.find((r) => r.id === b.orderId)!;
    const email = (await db().query.user.findFirst({ where: eq(user.id, b.fan) }))!.email;
    for (const query of [email, b.orderId, "Row C · Seat 6", "C排 6号", ""]) {
      const hit = (await searchOrders(db(), show.organizerId, show.eventId, query)).find((h) => h.id === b.orderId);
      expect([hit?.status, hit?.refundedMinor], query).toEqual(["partially_refunded", 5_800]);
    }
    expect([listed.status, listed.refundedMinor]).toEqual(["partially_refunded", 5_800]);
    expect((await listEventOrders(db(), show.organizerId, show.eventId, { status: "partially_refunded" })).rows.map((r) => r.id)).toEqual([b.orderId]);
    expect((await listEventOrders(db(), show.organizerId, show.eventId, { status: "ticketed" })).rows).toEqual([]);
    expect((await countEventOrders(db(), show.organizerId, show.eventId)).byStatus).toMatchObject({ ticketed: 0, partially_refunded: 1 });
    // Seats 25 and 26 are free again in Postgres and Redis; seat 3 stays sold.
    const inv = await db().select({ ordinal: seats.ordinal, status: eventSeats.status }).from(eventSeats).innerJoin(seats, eq(eventSeats.seatId, seats.id)).where(eq(eventSeats.eventId, show.eventId));
    const statusOf = (o: number) => inv.find((s) => s.ordinal === o)!.status;
    expect([statusOf(3), statusOf(25), statusOf(26)]).toEqual(["sold", "available", "available"]);
    const k = inventoryKeys(show.eventId);
    expect([await redis().getbit(k.free, 3), await redis().getbit(k.free, 25), await redis().getbit(k.free, 26)]).toEqual([0, 1, 1]);
    // The refunded tickets no longer get in; the kept one does.
    expect((await checkIn(db(), show.organizerId, b.tickets[25]!.code)).result).toMatch(/^(void|refunded)$/);
    expect((await checkIn(db(), show.organizerId, b.tickets[3]!.code)).result).toBe("ok");
    // The reason is audited; the fan's e-mail names the two tickets.
    const audit = await db().select().from(adminActions).where(and(eq(adminActions.orderId, b.orderId), eq(adminActions.action, "refund_tickets")));
    expect(audit.map((a) => a.detail)).toEqual([expect.objectContaining({ outcome: "done", reason: "Two seats with a blocked view", amountMinor: 5_800, seats: out.seats })]);
    const mail = await db().select().from(emails).where(eq(emails.dedupeKey, `order_refunded:${b.orderId}:${out.refundId}`));
    expect(mail.map((m) => m.payload)).toEqual([{ orderId: b.orderId, amountMinor: 5_800, currency: "EUR", seats: out.seats }]);

    // The ledger pass finds nothing to repair, and does not end the order; money kept = live tickets.
    const { report } = await reconcileLedger(db(), sandbox, window(), { eventId: show.eventId });
    expect([report.refundsRecorded, report.refundsResent, report.capturesVoided, report.errors]).toEqual([0, 0, 0, []]);
    expect((await db().query.orders.findFirst({ where: eq(orders.id, b.orderId) }))!.status).toBe("ticketed");
    await clean();

    // Then the rest in full: only 45.00 more goes back; the order ends refunded.
    const full = await refundOrder(db(), show.organizerId, b.orderId, "show moved");
    expect(full.refunded.map((r) => r.amountMinor)).toEqual([4_500]);
    const after = await pspCheckout(b.payment.checkoutSessionId);
    expect([after.status, after.refundedMinor]).toEqual(["refunded", 10_300]);
    const ended = await getAdminOrder(db(), show.organizerId, b.orderId);
    expect([ended.displayStatus, ...ended.payments.map((p) => [p.status, p.refundedMinor])]).toEqual(["refunded", ["refunded", 10_300]]);
    expect((await searchOrders(db(), show.organizerId, show.eventId, b.orderId)).map((h) => [h.status, h.refundedMinor])).toEqual([["refunded", 10_300]]);
    await clean();
  });

  it("five simultaneous submits of one form refund once; the same tickets under a new key are refused", async () => {
    const b = await bought();
    const request = { ticketIds: [b.tickets[3]!.id], reason: "fan asked", idempotencyKey: "form-2" };
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => refundOrderTickets(db(), show.organizerId, b.orderId, request)));
    const done = results.filter((r): r is PromiseFulfilledResult<Awaited<ReturnType<typeof refundOrderTickets>>> => r.status === "fulfilled");
    // Each either did it or found it done (or was told the ticket is in a refund being made).
    for (const r of results) if (r.status === "rejected") expect((r.reason as AppError).code).toBe("ticket_being_refunded");
    expect(done.filter((r) => !r.value.repeated)).toHaveLength(1);
    expect(await db().select().from(refunds).where(eq(refunds.orderId, b.orderId))).toHaveLength(1);
    const c = await pspCheckout(b.payment.checkoutSessionId);
    expect(await db().select().from(sandboxRefunds).where(eq(sandboxRefunds.checkoutId, c.id))).toHaveLength(1);
    expect(c.refundedMinor).toBe(4_500);
    // A retry after the fact reports the same refund.
    expect(await refundOrderTickets(db(), show.organizerId, b.orderId, request)).toMatchObject({ repeated: true, amountMinor: 4_500 });
    // A new form for the same (now void) ticket.
    expect((await refusal(refundOrderTickets(db(), show.organizerId, b.orderId, { ...request, idempotencyKey: "form-3" }))).code).toBe("ticket_not_valid");
    // The same key for other tickets.
    expect((await refusal(refundOrderTickets(db(), show.organizerId, b.orderId, { ...request, ticketIds: [b.tickets[25]!.id] }))).code).toBe("idempotency_conflict");
    await clean();
  });

  it("a check-in racing a refund of the same ticket: never both (the fan let in and refunded)", async () => {
    // Several orders, each raced: its first ticket refunded and scanned at the door at the same moment, with small offsets.
    const outcomes: { refunded: boolean; admitted: boolean }[] = [];
    for (let round = 0; round < 6; round++) {
      const b = await bought(round % 2 ? [30 + round, 40 + round] : [10 + round, 20 + round]);
      const first = Object.values(b.tickets)[0]!;
      const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));
      const [refund, scan] = await Promise.allSettled([
        refundOrderTickets(db(), show.organizerId, b.orderId, { ticketIds: [first.id], reason: "race", idempotencyKey: `race-${round}` }),
        delay(round * 3).then(() => checkIn(db(), show.organizerId, first.code)),
      ]);
      outcomes.push({ refunded: refund.status === "fulfilled", admitted: scan.status === "fulfilled" && scan.value.result === "ok" });
      const [row] = await db().select({ status: tickets.status }).from(tickets).where(eq(tickets.id, first.id));
      // The database agrees with the answers: refunded → void; admitted → used; never one answer of each.
      if (outcomes.at(-1)!.refunded) expect(row!.status).toBe("void");
      if (outcomes.at(-1)!.admitted) expect(row!.status).toBe("used");
    }
    expect(outcomes.filter((o) => o.refunded && o.admitted)).toEqual([]);
    expect(outcomes.every((o) => o.refunded || o.admitted)).toBe(true);
    await clean();
  });

  it("refuses a missing or too long reason, no tickets, another order's ticket, a used ticket, another organizer (400/404/409/403)", async () => {
    const b = await bought();
    const other = await bought([4, 27, 28]);
    const t = b.tickets[3]!.id;
    const ask = (over: Partial<{ ticketIds: string[]; reason: string; idempotencyKey: string }>, organizer = show.organizerId) =>
      refusal(refundOrderTickets(db(), organizer, b.orderId, { ticketIds: [t], reason: "ok", idempotencyKey: `k-${Math.random()}`, ...over }));
    expect(await ask({ reason: "  " })).toMatchObject({ code: "reason_required", kind: "bad_request", field: "reason" });
    expect(await ask({ reason: "x".repeat(501) })).toMatchObject({ code: "reason_too_long", kind: "bad_request" });
    expect(await ask({ ticketIds: [] })).toMatchObject({ code: "no_tickets_chosen", kind: "bad_request" });
    expect(await ask({ ticketIds: [other.tickets[4]!.id] })).toMatchObject({ code: "no_such_ticket", kind: "not_found" });
    expect((await checkIn(db(), show.organizerId, b.tickets[25]!.code)).result).toBe("ok");
    expect(await ask({ ticketIds: [b.tickets[25]!.id] })).toMatchObject({ code: "ticket_not_valid", kind: "conflict" });
    const [stranger] = await makeFans(db(), 1);
    expect(await ask({}, stranger)).toMatchObject({ code: "not_your_show" });
    // Nothing was refunded; every refusal by the organizer is in the audit log.
    expect((await pspCheckout(b.payment.checkoutSessionId)).refundedMinor).toBe(0);
    const audit = await db().select().from(adminActions).where(and(eq(adminActions.orderId, b.orderId), eq(adminActions.action, "refund_tickets"))).orderBy(adminActions.id);
    expect(audit.map((a) => (a.detail as { code: string }).code)).toEqual(["reason_required", "reason_too_long", "no_tickets_chosen", "no_such_ticket", "ticket_not_valid"]);
    await clean();
  });

  it("a crash after the PSP refunded is finished by the reconciliation step without refunding twice", async () => {
    const b = await bought();
    const [li] = await db().select().from(lineItems).innerJoin(seats, eq(lineItems.seatId, seats.id)).where(and(eq(lineItems.orderId, b.orderId), eq(seats.ordinal, 25)));
    // The request was recorded and the PSP refunded it, then the process died.
    const [row] = await db()
      .insert(refunds)
      .values({ id: "rfd_crashtest", orderId: b.orderId, paymentId: b.payment.id, idempotencyKey: "form-crash", amountMinor: 2_900, currency: "EUR", lineItemIds: [li!.line_items.id], reason: "crash", actor: "test", createdAt: new Date(Date.now() - 120_000) })
      .returning();
    const payment = (await db().query.payments.findFirst({ where: eq(payments.id, b.payment.id) }))!;
    await sandbox.refund(payment.providerPaymentId!, { amountMinor: 2_900, currency: "EUR", reason: "crash", idempotencyKey: `refund:${row!.id}` });
    // Meanwhile the checker sees the PSP keeping 74.00 for 103.00 of live tickets.
    expect((await checkInvariants(db(), { eventId: show.eventId, graceMs: 0 })).pspKeptMoneyMismatch).toBe(1);
    expect(await finishRequestedRefunds(db(), { eventId: show.eventId })).toEqual({ finished: 1, errors: [] });
    expect(await finishRequestedRefunds(db(), { eventId: show.eventId })).toEqual({ finished: 0, errors: [] });
    const c = await pspCheckout(b.payment.checkoutSessionId);
    expect(c.refundedMinor).toBe(2_900);
    expect((await db().query.tickets.findFirst({ where: eq(tickets.id, b.tickets[25]!.id) }))!.status).toBe("void");
    await clean();
  });

  it("a partial refund made at the PSP alone is a finding for a person; the checker counts the money mismatch", async () => {
    const b = await bought();
    const payment = (await db().query.payments.findFirst({ where: eq(payments.id, b.payment.id) }))!;
    await psp.refund(payment.providerPaymentId!, "dashboard-refund", { amountMinor: 1_000 });
    const report = await checkInvariants(db(), { eventId: show.eventId, graceMs: 0 });
    // PSP keeps 93.00 for 103.00 of live tickets; the app's rows agree with each other.
    expect([report.pspKeptMoneyMismatch, report.keptMoneyMismatch, report.pspCapturedWithoutTickets]).toEqual([1, 0, 0]);
    const { report: pass } = await reconcileLedger(db(), sandbox, window(), { eventId: show.eventId });
    expect(pass.refundsRecorded).toBe(0); // not taken for a full refund: the order keeps its tickets
    expect((await db().query.orders.findFirst({ where: eq(orders.id, b.orderId) }))!.status).toBe("ticketed");
    const found = await db().query.discrepancies.findMany({ where: (d, { eq: is }) => is(d.orderId, b.orderId) });
    expect(found.map((d) => [d.kind, d.status])).toEqual([["partial_refund_unknown", "needs_attention"]]);
  });
});
