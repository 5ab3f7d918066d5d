/**
 * What each e-mail says (./outbox.ts kinds), rendered when it is sent from the database's
 * state at that moment: a plain-text body (what every client shows), an HTML body, and for
 * tickets one inline PNG QR code each (content id `ticket-<id>`) beside its short code.
 * Times are the venue's, with the zone's name (lib/format.ts); money in the order's currency.
 */
import { and, asc, eq } from "drizzle-orm";
import QRCode from "qrcode";
import { events, lineItems, orders, seats, tickets, venues } from "@/db/schema";
import type { Db } from "@/lib/db";
import { env } from "@/lib/env";
import { formatInZone, formatMoney } from "@/lib/format";
import type { EmailKind, EmailPayloads } from "@/lib/mail/outbox";
import { formatShortCode } from "@/lib/tickets/short-code";

/** A message ready for SMTP. */
export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
  attachments: { filename: string; content: Buffer; contentType: string; cid: string }[];
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title></head><body style="font-family:system-ui,sans-serif;max-width:36rem;margin:auto;padding:1rem;color:#0b1020">${body}<p style="color:#64748b;font-size:12px">StarArena</p></body></html>`;
}

async function orderFacts(db: Db, orderId: string) {
  const [row] = await db
    .select({ order: orders, event: events, venue: venues.name })
    .from(orders)
    .innerJoin(events, eq(orders.eventId, events.id))
    .innerJoin(venues, eq(events.venueId, venues.id))
    .where(eq(orders.id, orderId))
    .limit(1);
  if (!row) throw new Error(`no order ${orderId}`);
  const when = formatInZone(row.event.startsAt, row.event.timeZone);
  const link = new URL(`/orders/${orderId}`, env().APP_URL).toString();
  return { ...row, when, link };
}

async function validTickets(db: Db, orderId: string) {
  return db
    .select({ id: tickets.id, code: tickets.code, shortCode: tickets.shortCode, seat: seats.label })
    .from(tickets)
    .innerJoin(lineItems, eq(tickets.lineItemId, lineItems.id))
    .innerJoin(seats, eq(tickets.seatId, seats.id))
    .where(and(eq(tickets.orderId, orderId), eq(tickets.status, "valid")))
    .orderBy(asc(seats.ordinal));
}

/** The tickets' part of a message: one QR image and short code each. */
async function ticketBlock(db: Db, orderId: string) {
  const list = await validTickets(db, orderId);
  const attachments = await Promise.all(
    list.map(async (t) => ({ filename: `ticket-${t.id}.png`, content: await QRCode.toBuffer(t.code, { errorCorrectionLevel: "M", margin: 1, width: 320 }), contentType: "image/png", cid: `ticket-${t.id}` })),
  );
  const text = list.map((t) => `- ${t.seat} — code ${t.shortCode ? formatShortCode(t.shortCode) : t.id}`).join("\n");
  const html = list
    .map(
      (t) =>
        `<div style="border:1px solid #e2e8f0;border-radius:12px;padding:12px;margin:12px 0;text-align:center"><img src="cid:ticket-${t.id}" width="220" height="220" alt="Ticket QR code for ${esc(t.seat)}"><p style="margin:8px 0 0;font-weight:600">${esc(t.seat)}</p><p style="margin:4px 0 0;font-family:ui-monospace,monospace;font-size:18px;letter-spacing:2px">${t.shortCode ? formatShortCode(t.shortCode) : esc(t.id)}</p></div>`,
    )
    .join("");
  return { count: list.length, text, html, attachments };
}

/**
 * Renders one queued message.
 * @throws Error when the order it is about no longer exists (the sender records it and retries later).
 */
export async function renderEmail<K extends EmailKind>(db: Db, kind: K, payload: EmailPayloads[K]): Promise<RenderedEmail> {
  switch (kind) {
    case "order_confirmation":
    case "tickets_reissued": {
      const { orderId } = payload as EmailPayloads["order_confirmation"];
      const o = await orderFacts(db, orderId);
      const t = await ticketBlock(db, orderId);
      const reissued = kind === "tickets_reissued";
      const subject = reissued ? `New ticket codes for ${o.event.name}` : `Your tickets for ${o.event.name}`;
      const lead = reissued
        ? `The organizer issued new codes for your ${t.count === 1 ? "ticket" : `${t.count} tickets`}. Use these: the old codes no longer let anyone in.`
        : `Thank you — your payment of ${formatMoney(o.order.totalMinor, o.order.currency)} was received. Here ${t.count === 1 ? "is your ticket" : `are your ${t.count} tickets`}.`;
      const text = `${lead}\n\n${o.event.name}\n${o.venue} · ${o.when}\n\nTickets (show the QR code at the door, or give the code):\n${t.text}\n\nYour order: ${o.link}\n`;
      const html = page(subject, `<h1 style="font-size:22px">${esc(o.event.name)}</h1><p>${esc(o.venue)} · ${esc(o.when)}</p><p>${esc(lead)}</p>${t.html}<p><a href="${esc(o.link)}">Your order</a></p>`);
      return { subject, text, html, attachments: t.attachments };
    }
    case "order_refunded": {
      const p = payload as EmailPayloads["order_refunded"];
      const o = await orderFacts(db, p.orderId);
      const subject = `Refund for ${o.event.name}`;
      const lead = `Your order for ${o.event.name} (${o.when}) was refunded: ${formatMoney(p.amountMinor, p.currency)} goes back to the card you paid with. Its tickets no longer let anyone in.`;
      return { subject, text: `${lead}\n\nYour order: ${o.link}\n`, html: page(subject, `<h1 style="font-size:22px">${esc(subject)}</h1><p>${esc(lead)}</p><p><a href="${esc(o.link)}">Your order</a></p>`), attachments: [] };
    }
    case "password_reset": {
      const p = payload as EmailPayloads["password_reset"];
      const subject = "Reset your StarArena password";
      const lead = `Hello ${p.name}, someone (we hope you) asked to reset the password of your StarArena account. The link works for one hour; if it was not you, ignore this message.`;
      return { subject, text: `${lead}\n\nReset your password: ${p.url}\n`, html: page(subject, `<p>${esc(lead)}</p><p><a href="${esc(p.url)}">Reset your password</a></p>`), attachments: [] };
    }
  }
  throw new Error(`unknown e-mail kind ${String(kind)}`);
}
