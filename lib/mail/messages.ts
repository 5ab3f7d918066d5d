/**
 * What each e-mail says (./outbox.ts kinds), rendered when it is sent from the database's
 * state at that moment: a plain-text body (what every client shows), an HTML body, and for
 * tickets one inline PNG QR code each (content id `ticket-<id>`) beside its short code.
 * Times are the venue's, with the zone's name (lib/format.ts); money in the order's currency;
 * the words in the recipient's language (catalogue namespace `Email`, lib/i18n), seats too
 * (composed from their parts through `Seat`, lib/venues/seat-label.ts; the stored English label
 * stays what the ticket codes sign).
 */
import { and, asc, eq, inArray } from "drizzle-orm";
import QRCode from "qrcode";
import { seatPartColumns } from "@/lib/venues/queries";
import { events, lineItems, orders, rows, seats, sections, tickets, venues } from "@/db/schema";
import type { Db } from "@/lib/db";
import { env } from "@/lib/env";
import { formatInZone, formatMoney } from "@/lib/format";
import type { EmailKind, EmailPayloads } from "@/lib/mail/outbox";
import { DEFAULT_LOCALE, intlLocale, type Locale } from "@/lib/i18n/config";
import { translator } from "@/lib/i18n/translate";
import { formatShortCode } from "@/lib/tickets/short-code";
import { seatLabel, type SeatWords } from "@/lib/venues/seat-label";

/** A message ready for SMTP. */
export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
  attachments: { filename: string; content: Buffer; contentType: string; cid: string }[];
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);


async function orderFacts(db: Db, orderId: string, fmt: string) {
  const [row] = await db
    .select({ order: orders, event: events, venue: venues.name })
    .from(orders)
    .innerJoin(events, eq(orders.eventId, events.id))
    .innerJoin(venues, eq(events.venueId, venues.id))
    .where(eq(orders.id, orderId))
    .limit(1);
  if (!row) throw new Error(`no order ${orderId}`);
  const when = formatInZone(row.event.startsAt, row.event.timeZone, fmt);
  const link = new URL(`/orders/${orderId}`, env().APP_URL).toString();
  return { ...row, when, link };
}

/** Columns of a seat's label parts, for selects joined to `sections` and `rows` on the seat. */

/** The order's valid tickets in seat order, each with its seat's label in the reader's language. */
async function validTickets(db: Db, orderId: string, seatWords: SeatWords) {
  const list = await db
    .select({ id: tickets.id, code: tickets.code, shortCode: tickets.shortCode, ...seatPartColumns })
    .from(tickets)
    .innerJoin(lineItems, eq(tickets.lineItemId, lineItems.id))
    .innerJoin(seats, eq(tickets.seatId, seats.id))
    .innerJoin(sections, eq(seats.sectionId, sections.id))
    .innerJoin(rows, eq(seats.rowId, rows.id))
    .where(and(eq(tickets.orderId, orderId), eq(tickets.status, "valid")))
    .orderBy(asc(seats.ordinal));
  return list.map((r) => ({ id: r.id, code: r.code, shortCode: r.shortCode, seat: seatLabel(seatWords, r) }));
}

/**
 * The seats a partial refund names (their stored English labels, lib/outbox payload) in the
 * reader's language, in seat order; a label the order has no seat for is kept as it is.
 */
async function refundedSeatLabels(db: Db, orderId: string, stored: string[], seatWords: SeatWords): Promise<string[]> {
  const found = await db
    .select({ label: seats.label, ...seatPartColumns })
    .from(lineItems)
    .innerJoin(seats, eq(lineItems.seatId, seats.id))
    .innerJoin(sections, eq(seats.sectionId, sections.id))
    .innerJoin(rows, eq(seats.rowId, rows.id))
    .where(and(eq(lineItems.orderId, orderId), inArray(seats.label, stored)))
    .orderBy(asc(seats.ordinal));
  const composed = new Map(found.map((r) => [r.label, seatLabel(seatWords, r)]));
  return [...new Set([...found.map((r) => r.label), ...stored])].map((label) => composed.get(label) ?? label);
}

type EmailWords = ReturnType<typeof translator>;

/** The tickets' part of a message: one QR image and short code each. */
async function ticketBlock(db: Db, orderId: string, t: EmailWords, seatWords: SeatWords) {
  const list = await validTickets(db, orderId, seatWords);
  const attachments = await Promise.all(
    list.map(async (ticket) => ({ filename: `ticket-${ticket.id}.png`, content: await QRCode.toBuffer(ticket.code, { errorCorrectionLevel: "M", margin: 1, width: 320 }), contentType: "image/png", cid: `ticket-${ticket.id}` })),
  );
  const codeOf = (ticket: (typeof list)[number]) => (ticket.shortCode ? formatShortCode(ticket.shortCode) : ticket.id);
  const text = list.map((ticket) => `- ${t("ticketLine", { seat: ticket.seat, code: codeOf(ticket) })}`).join("\n");
  const html = list
    .map(
      (ticket) =>
        `<div style="border:1px solid #e2e8f0;border-radius:12px;padding:12px;margin:12px 0;text-align:center"><img src="cid:ticket-${ticket.id}" width="220" height="220" alt="${esc(t("qrAlt", { seat: ticket.seat }))}"><p style="margin:8px 0 0;font-weight:600">${esc(ticket.seat)}</p><p style="margin:4px 0 0;font-family:ui-monospace,monospace;font-size:18px;letter-spacing:2px">${esc(codeOf(ticket))}</p></div>`,
    )
    .join("");
  return { count: list.length, text, html, attachments };
}

/**
 * Renders one queued message in `locale` (the recipient's chosen language, lib/i18n; English by
 * default): words from the catalogue's `Email` namespace, money and the show's time formatted
 * for that language, the time in the venue's zone with its label.
 * @throws Error when the order it is about no longer exists (the sender records it and retries later).
 */
export async function renderEmail<K extends EmailKind>(db: Db, kind: K, payload: EmailPayloads[K], locale: Locale = DEFAULT_LOCALE): Promise<RenderedEmail> {
  const t = translator(locale, "Email");
  const seatWords = translator(locale, "Seat") as unknown as SeatWords;
  const fmt = intlLocale(locale);
  const page = (title: string, body: string) =>
    `<!doctype html><html lang="${locale}"><head><meta charset="utf-8"><title>${esc(title)}</title></head><body style="font-family:system-ui,sans-serif;max-width:36rem;margin:auto;padding:1rem;color:#0b1020">${body}<p style="color:#64748b;font-size:12px">${esc(t("footer"))}</p></body></html>`;
  switch (kind) {
    case "order_confirmation":
    case "tickets_reissued": {
      const { orderId } = payload as EmailPayloads["order_confirmation"];
      const o = await orderFacts(db, orderId, fmt);
      const tk = await ticketBlock(db, orderId, t, seatWords);
      const reissued = kind === "tickets_reissued";
      const subject = reissued ? t("reissuedSubject", { show: o.event.name }) : t("confirmationSubject", { show: o.event.name });
      const lead = reissued ? t("reissuedLead", { n: tk.count }) : t("confirmationLead", { amount: formatMoney(o.order.totalMinor, o.order.currency, fmt), n: tk.count });
      const text = `${lead}\n\n${o.event.name}\n${o.venue} · ${o.when}\n\n${t("ticketsHeading")}\n${tk.text}\n\n${t("yourOrder")}: ${o.link}\n`;
      const html = page(subject, `<h1 style="font-size:22px">${esc(o.event.name)}</h1><p>${esc(o.venue)} · ${esc(o.when)}</p><p>${esc(lead)}</p>${tk.html}<p><a href="${esc(o.link)}">${esc(t("yourOrder"))}</a></p>`);
      return { subject, text, html, attachments: tk.attachments };
    }
    case "order_refunded": {
      const p = payload as EmailPayloads["order_refunded"];
      const o = await orderFacts(db, p.orderId, fmt);
      const subject = t("refundSubject", { show: o.event.name });
      const facts = { show: o.event.name, when: o.when, amount: formatMoney(p.amountMinor, p.currency, fmt) };
      const lead = p.seats?.length
        ? t("partialRefundLead", { ...facts, seats: (await refundedSeatLabels(db, p.orderId, p.seats, seatWords)).join(locale === "zh-CN" ? "、" : ", ") })
        : t("refundLead", facts);
      return {
        subject,
        text: `${lead}\n\n${t("yourOrder")}: ${o.link}\n`,
        html: page(subject, `<h1 style="font-size:22px">${esc(subject)}</h1><p>${esc(lead)}</p><p><a href="${esc(o.link)}">${esc(t("yourOrder"))}</a></p>`),
        attachments: [],
      };
    }
    case "password_reset": {
      const p = payload as EmailPayloads["password_reset"];
      const subject = t("resetSubject");
      const lead = t("resetLead", { name: p.name });
      return { subject, text: `${lead}\n\n${t("resetLink")}: ${p.url}\n`, html: page(subject, `<p>${esc(lead)}</p><p><a href="${esc(p.url)}">${esc(t("resetLink"))}</a></p>`), attachments: [] };
    }
    case "email_verification": {
      const p = payload as EmailPayloads["email_verification"];
      const subject = t("verifySubject");
      const lead = t("verifyLead", { name: p.name });
      return { subject, text: `${lead}\n\n${t("verifyLink")}: ${p.url}\n`, html: page(subject, `<p>${esc(lead)}</p><p><a href="${esc(p.url)}">${esc(t("verifyLink"))}</a></p>`), attachments: [] };
    }
    case "sign_up_existing": {
      const p = payload as EmailPayloads["sign_up_existing"];
      const subject = t("existingSubject");
      const lead = t("existingLead", { name: p.name });
      const signIn = new URL("/sign-in", env().APP_URL).toString();
      const reset = new URL("/forgot-password", env().APP_URL).toString();
      return {
        subject,
        text: `${lead}\n\n${t("existingSignIn")}: ${signIn}\n${t("existingReset")}: ${reset}\n`,
        html: page(subject, `<p>${esc(lead)}</p><p><a href="${esc(signIn)}">${esc(t("existingSignIn"))}</a></p><p><a href="${esc(reset)}">${esc(t("existingReset"))}</a></p>`),
        attachments: [],
      };
    }
  }
  throw new Error(`unknown e-mail kind ${String(kind)}`);
}
