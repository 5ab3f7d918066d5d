/**
 * The development mailbox (lib/mail/dev-mailbox.ts): what the local SMTP server received,
 * newest first, filtered by `?to=`. Served only with DEV_MAILBOX on (lib/env.ts allows that
 * only on loopback addresses); otherwise there is no such page.
 */
import { notFound } from "next/navigation";
import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { devMessagesFor } from "@/lib/mail/dev-mailbox";

export const dynamic = "force-dynamic";
export const metadata = { title: "Development mailbox" };

/** The text with its web addresses as links (a reset link must be one click). */
function Linked({ text }: { text: string }) {
  return (
    <>
      {text.split(/(https?:\/\/[^\s<>"]+)/g).map((part, i) =>
        /^https?:\/\//.test(part) ? (
          <a key={i} href={part} className="break-all underline">
            {part}
          </a>
        ) : (
          part
        ),
      )}
    </>
  );
}

export default async function MailboxPage({ searchParams }: PageProps<"/dev/mailbox">) {
  if (!env().DEV_MAILBOX) notFound();
  const to = (await searchParams).to;
  const messages = await devMessagesFor(db(), typeof to === "string" && to ? to : undefined);
  return (
    <div className="space-y-4">
      <h1 className="text-3xl font-bold">Development mailbox</h1>
      <p className="text-sm text-white/60">Every e-mail StarArena sent on this machine (the local SMTP server), newest first. Nothing here reached a real inbox.</p>
      {messages.length === 0 && <p>No messages{typeof to === "string" && to ? ` to ${to}` : ""} yet.</p>}
      <ul className="space-y-3">
        {messages.map((m) => (
          <li key={m.id} className="rounded-xl border border-white/10 bg-white/5 p-4" data-testid="mail">
            <p className="text-sm text-white/60">
              to {m.recipients.join(", ")} · {m.receivedAt.toISOString().replace("T", " ").slice(0, 19)} UTC · {m.attachments.length} attachment{m.attachments.length === 1 ? "" : "s"}
            </p>
            <h2 className="font-semibold" data-testid="mail-subject">
              {m.subject}
            </h2>
            <pre className="mt-2 whitespace-pre-wrap break-words font-sans text-sm">
              <Linked text={m.text} />
            </pre>
          </li>
        ))}
      </ul>
    </div>
  );
}
