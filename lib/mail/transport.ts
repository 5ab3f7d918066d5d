/**
 * The SMTP transport (nodemailer) from SMTP_URL, e.g. `smtp://user:pass@smtp.example.com:587`
 * or `smtps://…:465`; MAIL_FROM is the sender. Without SMTP_URL there is no transport and
 * messages wait in the outbox (the worker says so). `npm start` and the e2e server point it at
 * the local development mailbox (scripts/mailbox.ts) when nothing else is configured.
 */
import nodemailer from "nodemailer";
import { env } from "@/lib/env";
import type { SendMail } from "@/lib/mail/deliver";

/** The transport's send function for `url` (default SMTP_URL), or null when there is none. Connection and greeting each time out after 10 s. */
export function smtpSender(url: string | undefined = env().SMTP_URL): SendMail | null {
  const SMTP_URL = url;
  if (!SMTP_URL) return null;
  const transport = nodemailer.createTransport({ url: SMTP_URL, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 });
  return (m) => transport.sendMail({ from: m.from, to: m.to, subject: m.subject, text: m.text, html: m.html, attachments: m.attachments });
}
