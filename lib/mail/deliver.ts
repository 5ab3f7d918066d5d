/**
 * Sending queued e-mail (./outbox.ts) from the worker: due rows, oldest first, claimed with
 * SKIP LOCKED in a short transaction (two workers never send one row), then each rendered
 * (./messages.ts) and handed to the SMTP transport outside any transaction. A failure leaves the row queued with its error and a later
 * `available_at` (exponential back-off, 10 s … 1 h); after {@link MAX_ATTEMPTS} it stays as a
 * failure an operator can see (`sent_at` null, `attempts` = the limit). Nothing is lost.
 * What is due, the claim and the back-off are Postgres's clock, as `available_at` is written
 * (docs/adr/0024): a worker whose clock runs behind holds no message back.
 */
import { eq, sql } from "drizzle-orm";
import { user } from "@/db/schema";
import { sqlNow } from "@/lib/clock";
import type { Db } from "@/lib/db";
import { DEFAULT_LOCALE, isLocale, type Locale } from "@/lib/i18n/config";
import { renderEmail, type RenderedEmail } from "@/lib/mail/messages";
import type { EmailKind, EmailPayloads } from "@/lib/mail/outbox";

/** How long a pass's claim on a row lasts (s): a worker that dies mid-pass leaves its rows to the next pass after this. */
export const CLAIM_SECONDS = 300;

/** Attempts before a message is left for an operator. */
export const MAX_ATTEMPTS = 12;

/** What sends one message (nodemailer's `sendMail` in production: ./transport.ts). */
export type SendMail = (message: RenderedEmail & { to: string; from: string }) => Promise<unknown>;

/** What one delivery pass did. */
export interface DeliveryReport {
  sent: number;
  failed: number;
  errors: string[];
}

type Row = { id: number; kind: EmailKind; to_address: string; payload: EmailPayloads[EmailKind]; attempts: number };

/** The language the account with this address chose (lib/i18n), English when none or no account. */
async function recipientLocale(db: Db, address: string): Promise<Locale> {
  const [row] = await db.select({ locale: user.locale }).from(user).where(eq(user.email, address)).limit(1);
  return isLocale(row?.locale) ? row.locale : DEFAULT_LOCALE;
}

/**
 * Sends up to `limit` due messages, each in its recipient's language.
 * @param opts.from the sender address (e.g. `StarArena <tickets@example.com>`).
 * @param opts.now a test's simulated clock; without it, Postgres's `now()`.
 */
export async function deliverEmails(db: Db, send: SendMail, opts: { from: string; limit?: number; now?: Date }): Promise<DeliveryReport> {
  const now = sqlNow(opts.now);
  const report: DeliveryReport = { sent: 0, failed: 0, errors: [] };
  // Claim the due rows in a short transaction (pushed {@link CLAIM_SECONDS} ahead, so another
  // pass leaves them alone), then talk SMTP outside any transaction: a slow or dead mail server
  // never holds a Postgres connection or row locks for its timeouts.
  const rows = (await db.execute(
    sql`update emails set available_at = ${now} + ${CLAIM_SECONDS} * interval '1 second'
        where id in (
          select id from emails
          where sent_at is null and attempts < ${MAX_ATTEMPTS} and available_at <= ${now}
          order by id limit ${opts.limit ?? 20} for update skip locked)
        returning id, kind, to_address, payload, attempts`,
  )) as unknown as Row[];
  rows.sort((a, b) => a.id - b.id);
  for (const row of rows) {
    try {
      const message = await renderEmail(db, row.kind, row.payload, await recipientLocale(db, row.to_address));
      await send({ ...message, to: row.to_address, from: opts.from });
      await db.execute(sql`update emails set sent_at = now(), last_error = null, attempts = attempts + 1 where id = ${row.id}`);
      report.sent++;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      report.failed++;
      report.errors.push(`${row.kind} to ${row.to_address}: ${message}`);
      await db.execute(
        sql`update emails set attempts = attempts + 1, last_error = ${message.slice(0, 500)},
              available_at = ${now} + least(interval '1 hour', interval '10 seconds' * power(2, attempts))
            where id = ${row.id}`,
      );
    }
  }
  return report;
}
