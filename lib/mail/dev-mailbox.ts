/**
 * The local development mailbox: a real SMTP server (smtp-server) that stores every message
 * it receives in Postgres (`dev_mailbox.messages`, db/dev-mailbox-schema.ts), parsed by
 * mailparser. `npm start` (for local development) and the e2e server run it (scripts/mailbox.ts);
 * /dev/mailbox lists what arrived (each attachment opens from /dev/mailbox/<id>/<n>), and tests read it. It accepts anything from anyone on the
 * loopback address it listens on, so it must never face a network.
 */
import { desc, eq, sql } from "drizzle-orm";
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";
import { devMessages } from "@/db/dev-mailbox-schema";
import type { Db } from "@/lib/db";

/** A received message as the mailbox page and tests read it. */
export type DevMessage = typeof devMessages.$inferSelect;

/** An attachment as stored: its name, type and size, and its bytes in base64 (messages stored before the bytes were kept have none). */
export type DevAttachment = DevMessage["attachments"][number];

/** One attachment's bytes and type, for the mailbox's attachment link. */
export interface DevAttachmentFile {
  filename: string;
  contentType: string;
  content: Buffer;
}

/** Messages larger than this are refused (bytes): tickets with QR codes are ~10 kB each. */
const MAX_MESSAGE_BYTES = 5 * 1024 * 1024;

/**
 * Starts the SMTP server on `host`:`port` (0: any free port).
 * @returns its port and a stop function.
 */
export async function startDevMailbox(db: Db, opts: { port: number; host?: string; log?: (line: string) => void }): Promise<{ port: number; stop(): Promise<void> }> {
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    size: MAX_MESSAGE_BYTES,
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then(async (mail) => {
          const recipients = session.envelope.rcptTo.map((r) => r.address.toLowerCase());
          const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : "";
          await db.insert(devMessages).values({
            recipients,
            fromAddress: from,
            subject: mail.subject ?? "",
            text: mail.text ?? "",
            html: typeof mail.html === "string" ? mail.html : null,
            // The bytes too (base64, within the 5-MB message limit), so a developer can open the ticket QR codes.
            attachments: mail.attachments.map((a): DevAttachment => ({ filename: a.filename ?? "", contentType: a.contentType, size: a.size, cid: a.cid ?? null, content: a.content.toString("base64") })),
          });
          opts.log?.(`mail to ${recipients.join(", ")}: ${mail.subject ?? ""}`);
          callback();
        })
        .catch((error: unknown) => callback(error instanceof Error ? error : new Error(String(error))));
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host ?? "127.0.0.1", () => resolve());
  });
  const address = server.server.address();
  const port = typeof address === "object" && address ? address.port : opts.port;
  return { port, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The latest messages (newest first), to `recipient` when given. */
export async function devMessagesFor(db: Db, recipient?: string, limit = 50): Promise<DevMessage[]> {
  const q = db.select().from(devMessages);
  const filtered = recipient ? q.where(sql`${recipient.toLowerCase()} = any(${devMessages.recipients})`) : q;
  return filtered.orderBy(desc(devMessages.id)).limit(limit);
}

/** Attachment `index` (0-based) of message `id`, or null when there is no such message or attachment, or its bytes were not kept. */
export async function devAttachment(db: Db, id: number, index: number): Promise<DevAttachmentFile | null> {
  const [row] = await db.select({ attachments: devMessages.attachments }).from(devMessages).where(eq(devMessages.id, id)).limit(1);
  const a = row?.attachments[index];
  if (!a?.content) return null;
  return { filename: a.filename, contentType: a.contentType, content: Buffer.from(a.content, "base64") };
}
