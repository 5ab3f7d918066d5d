/**
 * E-mail through the outbox, end to end on real services: a purchase ticketed through the real
 * paths queues the confirmation in issuance's transaction; the worker's delivery sends it over
 * SMTP to the development mailbox (a real smtp-server on a free port), which parses and stores
 * it (attachments' bytes too, which the mailbox serves); a refund queues its notice; a dead SMTP
 * server leaves the message queued with back-off. A Chinese reader's tickets name their seats in
 * Chinese (issue 42).
 */
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emails, payments, tickets, user } from "@/db/schema";
import { refundOrder } from "@/lib/admin/orders";
import { closeDb, db } from "@/lib/db";
import { rebuildInventory } from "@/lib/inventory/rebuild";
import { deliverEmails } from "@/lib/mail/deliver";
import { devAttachment, devMessagesFor, startDevMailbox } from "@/lib/mail/dev-mailbox";
import { renderEmail } from "@/lib/mail/messages";
import { smtpSender } from "@/lib/mail/transport";
import { placeOrder } from "@/lib/orders/place-order";
import { startCheckout } from "@/lib/payments/checkout";
import { SandboxProvider } from "@/lib/payments/sandbox/provider";
import * as psp from "@/lib/payments/sandbox/psp";
import { syncOrderPayment } from "@/lib/payments/sync";
import { closeRedis } from "@/lib/redis";
import { makeStudioShow, makeUser } from "@/lib/testing/fixtures";
import { issueTickets } from "@/lib/tickets/issue";
import { formatShortCode } from "@/lib/tickets/short-code";

let mailbox: Awaited<ReturnType<typeof startDevMailbox>>;
beforeAll(async () => {
  mailbox = await startDevMailbox(db(), { port: 0 });
});
afterAll(async () => {
  await mailbox.stop();
  await closeDb();
  await closeRedis();
});

const from = "StarArena <tickets@stararena.test>";
const queuedFor = (orderId: string) => db().select().from(emails).where(sql`${emails.payload}->>'orderId' = ${orderId}`);

/** A fan buys seats `ordinals` of a new studio show and the order is ticketed. */
async function bought(ordinals: number[]) {
  const show = await makeStudioShow(db());
  await rebuildInventory(db(), show.eventId);
  const fan = await makeUser(db());
  const order = await placeOrder(db(), { eventId: show.eventId, fanId: fan.id, request: { kind: "seats", ordinals } });
  await startCheckout(db(), new SandboxProvider(), { orderId: order.orderId, fanId: fan.id });
  const p = (await db().query.payments.findFirst({ where: eq(payments.orderId, order.orderId) }))!;
  await psp.approve(p.checkoutSessionId);
  await syncOrderPayment(db(), order.orderId, { actor: "test", reason: "return" });
  await issueTickets(db(), order.orderId, { actor: "test", reason: "tickets" });
  return { show, fan, orderId: order.orderId };
}

describe("e-mail through the outbox", () => {
  it("issuing tickets queues one confirmation; delivery sends it with a QR image and short code per ticket", async () => {
    const { fan, orderId } = await bought([0, 1]);
    // Issuing again (a retried job) queues nothing more.
    await issueTickets(db(), orderId, { actor: "test", reason: "again" });
    const queued = await queuedFor(orderId);
    expect(queued.map((e) => [e.kind, e.toAddress, e.sentAt])).toEqual([["order_confirmation", fan.email, null]]);

    const report = await deliverEmails(db(), smtpSender(`smtp://127.0.0.1:${mailbox.port}`)!, { from, limit: 1_000 });
    expect(report.failed).toBe(0);
    expect(report.sent).toBeGreaterThanOrEqual(1);
    expect((await queuedFor(orderId))[0]!.sentAt).not.toBeNull();

    const [mail, ...more] = await devMessagesFor(db(), fan.email);
    expect(more).toHaveLength(0);
    expect(mail!.subject).toBe("Your tickets for Test show");
    expect(mail!.fromAddress).toBe("tickets@stararena.test");
    // Studio seats 0 and 1: row A, seats 1 and 2, front rows at 45.00 EUR each.
    expect(mail!.text).toContain("payment of €90.00 was received");
    const issued = await db().select().from(tickets).where(eq(tickets.orderId, orderId));
    expect(issued).toHaveLength(2);
    for (const t of issued) {
      expect(t.shortCode).toMatch(/^[0-9A-HJKMNP-TV-Z]{10}$/);
      expect(mail!.text).toContain(`code ${formatShortCode(t.shortCode!)}`);
    }
    expect(mail!.text).toContain("Sec MAIN · Row A · Seat 1");
    // One inline PNG per ticket (mailparser turns the cid: references into data: URLs in the stored HTML).
    expect(mail!.attachments.map((a) => [a.contentType, a.cid]).sort()).toEqual(issued.map((t) => ["image/png", `ticket-${t.id}`]).sort());
    expect(mail!.html!.match(/<img src="data:image\/png;base64,/g)).toHaveLength(2);
    // The mailbox keeps each attachment's bytes: a PNG a developer can open (and nothing past the last).
    for (const i of [0, 1]) {
      const file = (await devAttachment(db(), mail!.id, i))!;
      expect(file.contentType).toBe("image/png");
      expect(file.content.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      expect(file.content.length).toBe(mail!.attachments[i]!.size);
    }
    expect(await devAttachment(db(), mail!.id, 2)).toBeNull();

    // Sent once: a second pass finds nothing for this order.
    await deliverEmails(db(), smtpSender(`smtp://127.0.0.1:${mailbox.port}`)!, { from, limit: 1_000 });
    expect(await devMessagesFor(db(), fan.email)).toHaveLength(1);
  });

  it("a refund queues its notice with the amount, in the refund's transaction", async () => {
    const { show, fan, orderId } = await bought([30]);
    await refundOrder(db(), show.organizerId, orderId, "the fan cannot come");
    const kinds = (await queuedFor(orderId)).map((e) => e.kind).sort();
    expect(kinds).toEqual(["order_confirmation", "order_refunded"]);
    await deliverEmails(db(), smtpSender(`smtp://127.0.0.1:${mailbox.port}`)!, { from, limit: 1_000 });
    const subjects = (await devMessagesFor(db(), fan.email)).map((m) => m.subject).sort();
    expect(subjects).toEqual(["Refund for Test show", "Your tickets for Test show"]);
    const refund = (await devMessagesFor(db(), fan.email)).find((m) => m.subject.startsWith("Refund"))!;
    // Seat 30 is in the back rows: 29.00 EUR.
    expect(refund.text).toContain("€29.00 goes back to the card you paid with");
  });

  it("a Chinese reader's tickets and partial refund name the seats in Chinese; the codes are untouched", async () => {
    const { fan, orderId } = await bought([0, 31]);
    await db().update(user).set({ locale: "zh-CN" }).where(eq(user.id, fan.id));
    const issued = await db().select().from(tickets).where(eq(tickets.orderId, orderId));
    const mail = await renderEmail(db(), "order_confirmation", { orderId }, "zh-CN");
    // Studio seat 0 is row A seat 1; seat 31 is row D seat 2 (10 seats a row).
    expect(mail.text).toContain("MAIN区 A排 1号");
    expect(mail.text).toContain("MAIN区 D排 2号");
    expect(mail.text + mail.html).not.toMatch(/Sec |Row |Seat /);
    expect(mail.html).toContain("MAIN区 A排 1号 的门票二维码");
    for (const t of issued) expect(mail.text).toContain(`票码 ${formatShortCode(t.shortCode!)}`);
    // The time in the venue's zone, named in Chinese (not "GMT+1").
    expect(mail.text).toMatch(/中欧时间 \d\d:\d\d/);
    expect(mail.text).not.toContain("GMT");
    const refund = await renderEmail(db(), "order_refunded", { orderId, amountMinor: 2_900, currency: "EUR", seats: ["Sec MAIN · Row D · Seat 2"] }, "zh-CN");
    expect(refund.text).toContain("以下门票已不能入场：MAIN区 D排 2号。");
    const english = await renderEmail(db(), "order_refunded", { orderId, amountMinor: 2_900, currency: "EUR", seats: ["Sec MAIN · Row D · Seat 2"] }, "en");
    expect(english.text).toContain("These tickets no longer let anyone in: Sec MAIN · Row D · Seat 2.");
  });

  it("a dead mail server leaves the message queued, with its error and a later attempt", async () => {
    const { orderId } = await bought([10]);
    const now = new Date();
    // Nothing listens on port 1.
    const report = await deliverEmails(db(), smtpSender("smtp://127.0.0.1:1")!, { from, now, limit: 1_000 });
    expect(report.failed).toBeGreaterThanOrEqual(1);
    const [row] = await queuedFor(orderId);
    expect(row!.sentAt).toBeNull();
    expect(row!.attempts).toBe(1);
    expect(row!.lastError).toMatch(/ECONNREFUSED|connect/i);
    // First retry 10 s later (10 s × 2^0).
    expect(row!.availableAt.getTime() - now.getTime()).toBe(10_000);
  });
});
