/**
 * Check-in against the real Postgres and Redis, with tickets bought through the sandbox
 * PSP: a ticket gets in once, a second scan is refused with the first scan's time, 20
 * simultaneous scans let exactly one in, forged and foreign codes are refused; a typed short
 * code goes through the same rules.
 */
import { and, eq } from "drizzle-orm";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { adminActions, orderTransitions, payments, tickets } from "@/db/schema";
import { refundOrder } from "@/lib/admin/orders";
import { closeDb, db } from "@/lib/db";
import { rebuildInventory } from "@/lib/inventory/rebuild";
import { placeOrder } from "@/lib/orders/place-order";
import { startCheckout } from "@/lib/payments/checkout";
import { WebhookSignatureError } from "@/lib/payments/provider";
import { SandboxProvider } from "@/lib/payments/sandbox/provider";
import * as psp from "@/lib/payments/sandbox/psp";
import { handleWebhook } from "@/lib/payments/webhooks";
import { checkInvariants, totalViolations } from "@/lib/reconciliation/invariants";
import { closeRedis } from "@/lib/redis";
import { makeFans, makeStudioShow, makeUser } from "@/lib/testing/fixtures";
import { checkIn } from "@/lib/tickets/check-in";
import { signTicketCode } from "@/lib/tickets/codes";
import { formatShortCode } from "@/lib/tickets/short-code";
import { translator } from "@/lib/i18n/translate";
import { seatLabel, type SeatWords } from "@/lib/venues/seat-label";

afterAll(async () => {
  await closeDb();
  await closeRedis();
});

const provider = new SandboxProvider();
let show: Awaited<ReturnType<typeof makeStudioShow>>;
beforeEach(async () => {
  show = await makeStudioShow(db(), { onSaleAt: new Date(Date.now() - 86_400_000) });
  await rebuildInventory(db(), show.eventId);
});

const deliverToApp: psp.SandboxWebhookDeliver = async (_url, body, headers) => {
  try {
    await handleWebhook(db(), provider, body, new Headers(headers));
    return { status: 200 };
  } catch (error) {
    return { status: error instanceof WebhookSignatureError ? 401 : 503 };
  }
};

/** A fan buys `ordinals` through the sandbox PSP; returns the order id and its tickets (seat order). */
async function buy(ordinals: number[]) {
  const [fan] = await makeFans(db(), 1);
  const order = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals } });
  await startCheckout(db(), provider, { orderId: order.orderId, fanId: fan! });
  const payment = (await db().query.payments.findFirst({ where: eq(payments.orderId, order.orderId) }))!;
  await psp.approve(payment.checkoutSessionId);
  await psp.dispatchDueWebhooks({ checkoutIds: [payment.checkoutSessionId], deliver: deliverToApp, now: new Date(Date.now() + 3_600_000) });
  const tix = await db().select().from(tickets).where(eq(tickets.orderId, order.orderId)).orderBy(tickets.seatId);
  expect(tix).toHaveLength(ordinals.length);
  return { orderId: order.orderId, tickets: tix };
}

async function expectInvariantsClean() {
  const report = await checkInvariants(db(), { eventId: show.eventId, graceMs: 0 });
  expect(totalViolations(report)).toBe(0);
}

describe("checkIn", () => {
  it("lets a ticket in once; a second scan is refused with the first scan's time", async () => {
    const { orderId, tickets: [t] } = await buy([13]);
    const first = new Date("2027-01-30T19:31:05Z");
    const ok = await checkIn(db(), show.organizerId, `  ${t!.code}\n`, first);
    expect(ok).toMatchObject({
      result: "ok",
      checkedInAt: first,
      ticket: { ticketId: t!.id, orderId, eventId: show.eventId, seatLabel: "Sec MAIN · Row B · Seat 4", eventName: "Test show", shortCode: t!.shortCode },
    });
    // The seat's parts come with it, so the door composes the label in its reader's language.
    expect(ok.result === "ok" && ok.ticket.seat).toEqual({ section: "MAIN", standing: false, row: "B", number: 4 });
    expect(ok.result === "ok" && seatLabel(translator("zh-CN", "Seat") as unknown as SeatWords, ok.ticket.seat)).toBe("MAIN区 B排 4号");

    const again = await checkIn(db(), show.organizerId, t!.code, new Date("2027-01-30T19:45:00Z"));
    expect(again).toMatchObject({ result: "already_used", firstCheckedInAt: first });

    const [row] = await db().select().from(tickets).where(eq(tickets.id, t!.id));
    expect([row!.status, row!.checkedInAt]).toEqual(["used", first]);
    const log = await db().select().from(orderTransitions).where(and(eq(orderTransitions.entity, "ticket"), eq(orderTransitions.entityId, t!.id)));
    expect(log.map((l) => [l.fromStatus, l.toStatus, l.actor])).toEqual([["valid", "used", `organizer:${show.organizerId}`]]);
    const audit = await db().select().from(adminActions).where(eq(adminActions.ticketId, t!.id));
    expect(audit.map((a) => a.action)).toEqual(["check_in"]);
    await expectInvariantsClean();
  });

  it("20 simultaneous scans of one code: exactly one gets in, the rest see the first scan's time", async () => {
    const { tickets: [t] } = await buy([20]);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => checkIn(db(), show.organizerId, t!.code, new Date(Date.now() + i))));
    const ok = results.filter((r) => r.result === "ok");
    expect(ok).toHaveLength(1);
    const firstAt = ok[0]!.result === "ok" ? ok[0]!.checkedInAt : null;
    const rest = results.filter((r) => r.result !== "ok");
    expect(rest).toHaveLength(19);
    for (const r of rest) expect(r).toMatchObject({ result: "already_used", firstCheckedInAt: firstAt });
    expect(await db().select().from(orderTransitions).where(and(eq(orderTransitions.entityId, t!.id), eq(orderTransitions.toStatus, "used")))).toHaveLength(1);
    await expectInvariantsClean();
  });

  it("refuses forged, altered and malformed codes", async () => {
    const { orderId, tickets: [t] } = await buy([30]);
    // Signed with another key: a well-formed code that is not ours.
    const forged = await signTicketCode({ ticketId: t!.id, eventId: show.eventId, seatLabel: "Sec MAIN · Row D · Seat 1", orderId }, "not-the-real-secret-000000000000000");
    expect(await checkIn(db(), show.organizerId, forged)).toEqual({ result: "not_genuine", reason: "not_genuine" });
    // The real code with one signature character changed.
    const [h, p, s] = t!.code.split(".");
    const altered = [h, p, (s![0] === "A" ? "B" : "A") + s!.slice(1)].join(".");
    expect(await checkIn(db(), show.organizerId, altered)).toEqual({ result: "not_genuine", reason: "not_genuine" });
    expect(await checkIn(db(), show.organizerId, "hello")).toEqual({ result: "not_genuine", reason: "malformed" });
    expect(await checkIn(db(), show.organizerId, "")).toEqual({ result: "not_genuine", reason: "malformed" });
    // None of that touched the ticket.
    expect((await checkIn(db(), show.organizerId, t!.code)).result).toBe("ok");
    await expectInvariantsClean();
  });

  it("refuses another organizer's ticket, a refunded ticket, and a genuine code for an unknown ticket", async () => {
    const { orderId, tickets: [t, u] } = await buy([40, 41]);
    const stranger = await makeUser(db(), "organizer");
    expect(await checkIn(db(), stranger.id, t!.code)).toEqual({ result: "other_show" });
    expect((await db().select().from(tickets).where(eq(tickets.id, t!.id)))[0]!.status).toBe("valid");

    expect((await checkIn(db(), show.organizerId, u!.code)).result).toBe("ok");
    await refundOrder(db(), show.organizerId, orderId);
    expect(await checkIn(db(), show.organizerId, t!.code)).toMatchObject({ result: "refunded", ticket: { seatLabel: "Sec MAIN · Row E · Seat 1" } });
    // A used ticket of a refunded order is void too.
    expect((await checkIn(db(), show.organizerId, u!.code)).result).toBe("refunded");

    const { env } = await import("@/lib/env");
    const stray = await signTicketCode({ ticketId: "tkt_nosuchticket0000", eventId: show.eventId, seatLabel: "x", orderId }, env().TICKET_SIGNING_SECRET);
    expect(await checkIn(db(), show.organizerId, stray)).toEqual({ result: "unknown_ticket" });
    await expectInvariantsClean();
  });
});

describe("checkIn with a typed short code", () => {
  it("lets the ticket in once, in any spelling a person types; a second time is already used", async () => {
    const { orderId, tickets: [t] } = await buy([14]);
    const short = t!.shortCode!;
    expect(short).toMatch(/^[0-9A-HJKMNP-TV-Z]{10}$/);
    const first = new Date("2027-01-30T19:31:05Z");
    // Lower case, with the dash, and spaces around: as typed at the door.
    const ok = await checkIn(db(), show.organizerId, `  ${formatShortCode(short).toLowerCase()} `, first);
    expect(ok).toMatchObject({ result: "ok", checkedInAt: first, ticket: { ticketId: t!.id, orderId, seatLabel: "Sec MAIN · Row B · Seat 5" } });
    expect(await checkIn(db(), show.organizerId, short, new Date("2027-01-30T19:40:00Z"))).toMatchObject({ result: "already_used", firstCheckedInAt: first });
    // The signed code of the same ticket is used too: one ticket, one entry, whichever code is shown.
    expect(await checkIn(db(), show.organizerId, t!.code)).toMatchObject({ result: "already_used", firstCheckedInAt: first });
    const log = await db().select().from(orderTransitions).where(and(eq(orderTransitions.entity, "ticket"), eq(orderTransitions.entityId, t!.id)));
    expect(log.map((l) => [l.fromStatus, l.toStatus])).toEqual([["valid", "used"]]);
    const audit = await db().select().from(adminActions).where(eq(adminActions.ticketId, t!.id));
    expect(audit.map((a) => [a.action, (a.detail as { by?: string }).by])).toEqual([["check_in", "short_code"]]);
    await expectInvariantsClean();
  });

  it("reads O as 0 and I or L as 1", async () => {
    // Find a bought ticket whose short code has a 0 or a 1 (a few purchases at most: ~27% of codes have neither).
    let found: { code: string; id: string } | undefined;
    for (let i = 0; i < 12 && !found; i++) {
      const { tickets: tix } = await buy([i]);
      const t = tix[0]!;
      if (/[01]/.test(t.shortCode!)) found = { code: t.shortCode!, id: t.id };
    }
    expect(found).toBeDefined();
    const typed = found!.code.replace(/0/g, "o").replace(/1/g, "L");
    expect(typed).not.toBe(found!.code);
    expect(await checkIn(db(), show.organizerId, typed)).toMatchObject({ result: "ok", ticket: { ticketId: found!.id } });
  });

  it("refuses another organizer's show, an unknown code, a refunded ticket and a code replaced by a re-issue", async () => {
    const { orderId, tickets: [t, u] } = await buy([42, 43]);
    const stranger = await makeUser(db(), "organizer");
    expect(await checkIn(db(), stranger.id, t!.shortCode!)).toEqual({ result: "other_show" });
    expect((await db().select().from(tickets).where(eq(tickets.id, t!.id)))[0]!.status).toBe("valid");
    // Well-formed but no ticket has it (a different last character from t's own).
    const unknown = t!.shortCode!.slice(0, 9) + (t!.shortCode!.endsWith("Z") ? "Y" : "Z");
    expect(await checkIn(db(), show.organizerId, formatShortCode(unknown))).toEqual({ result: "unknown_ticket" });
    // Too short to be a short code, and not a signed code either.
    expect(await checkIn(db(), show.organizerId, "7K3QD-M9XW")).toEqual({ result: "not_genuine", reason: "malformed" });

    const { rotateTicketCodes } = await import("@/lib/tickets/reissue");
    await rotateTicketCodes(db(), orderId, {});
    const [rotated] = await db().select().from(tickets).where(eq(tickets.id, u!.id));
    expect(rotated!.shortCode).not.toBe(u!.shortCode);
    expect(await checkIn(db(), show.organizerId, u!.shortCode!)).toEqual({ result: "unknown_ticket" });

    await refundOrder(db(), show.organizerId, orderId);
    expect(await checkIn(db(), show.organizerId, rotated!.shortCode!)).toMatchObject({ result: "refunded", ticket: { ticketId: u!.id } });
    await expectInvariantsClean();
  });

  it("door staff check in for their organizer, logged as themselves", async () => {
    const { tickets: [t] } = await buy([44]);
    const { createDoorStaff } = await import("@/lib/auth/staff");
    const staffId = await createDoorStaff(db(), show.organizerId, { name: "Door", email: `door-${t!.id}@test.stararena`, password: "door-password" });
    expect(await checkIn(db(), { organizerId: show.organizerId, staffId }, t!.shortCode!)).toMatchObject({ result: "ok" });
    const log = await db().select().from(orderTransitions).where(and(eq(orderTransitions.entity, "ticket"), eq(orderTransitions.entityId, t!.id)));
    expect(log.map((l) => l.actor)).toEqual([`door_staff:${staffId}`]);
    const audit = await db().select().from(adminActions).where(eq(adminActions.ticketId, t!.id));
    expect(audit.map((a) => [a.organizerId, (a.detail as { staffId?: string }).staffId])).toEqual([[show.organizerId, staffId]]);
  });
});
