/**
 * The local development mailbox's own table, in its own Postgres schema `dev_mailbox`
 * (scripts/mailbox.ts, lib/mail/dev-mailbox.ts): a real SMTP server for development and tests
 * stores every message it receives here, and /dev/mailbox shows them. Like the sandbox PSP it is
 * an outside system sharing the database server: the app never reads or writes it, except the
 * dev-only mailbox page.
 */
import { bigserial, index, jsonb, pgSchema, text, timestamp } from "drizzle-orm/pg-core";

/** The `dev_mailbox` Postgres schema. */
export const devMailbox = pgSchema("dev_mailbox");

/** One received message: its envelope, headers, bodies, and attachments (name, type, size and their bytes in base64). */
export const devMessages = devMailbox.table(
  "messages",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    /** Envelope recipients (RCPT TO), lower-cased. */
    recipients: text("recipients").array().notNull(),
    fromAddress: text("from_address").notNull(),
    subject: text("subject").notNull(),
    text: text("text").notNull(),
    html: text("html"),
    attachments: jsonb("attachments").$type<{ filename: string; contentType: string; size: number; cid: string | null; content?: string }[]>().notNull(),
    receivedAt: timestamp("received_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index("dev_messages_received_idx").on(t.receivedAt)],
);
