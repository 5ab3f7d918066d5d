/**
 * E-mail through the outbox, end to end on real services: a purchase ticketed through the real
 * paths queues the confirmation in issuance's transaction; the worker's delivery sends it over
 * SMTP to the development mailbox (a real smtp-server on a free port), which parses and stores
 * it; a refund queues its notice; a dead SMTP server leaves the message queued with back-off.
 */
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emails, payments, tickets } from "@/db/schema";
import { refundOrder } from "@/lib/admin/orders";
import { closeDb, db } from "@/lib/db";
import { rebuildInventory } from "@/lib/inventory/rebuild";
import { deliverEmails } from "@/lib/mail/deliver";
import { devMessagesFor, startDevMailbox } from "@/lib/mail/dev-mailbox";
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
