/**
 * The development mailbox (lib/mail/dev-mailbox.ts): what the local SMTP server received,
 * newest first, filtered by `?to=`, each message with its attachments (images shown, every
 * one a link to its bytes: ./[id]/[index]/route.ts). Served only with DEV_MAILBOX on (lib/env.ts
 * allows that only on loopback addresses); otherwise there is no such page.
 */
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getLocale, getTranslations } from "next-intl/server";
import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { formatCount } from "@/lib/format";
import { intlLocale } from "@/lib/i18n/config";
import { devMessagesFor, type DevAttachment } from "@/lib/mail/dev-mailbox";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations("Email");
  return { title: t("mailboxTitle") };
}

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
  const t = await getTranslations("Email");
  const fmt = intlLocale((await getLocale()) as Parameters<typeof intlLocale>[0]);
  const to = (await searchParams).to;
  const recipient = typeof to === "string" && to ? to : undefined;
  const messages = await devMessagesFor(db(), recipient);
  // The mailbox belongs to no show, so no venue's zone: its clock is UTC, named as such.
  const received = new Intl.DateTimeFormat(fmt, { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23", timeZone: "UTC", timeZoneName: "short" });
  return (
    <div className="space-y-4">
      <h1 className="text-3xl font-bold">{t("mailboxTitle")}</h1>
      <p className="text-sm text-white/70">{t("mailboxIntro")}</p>
      {messages.length === 0 && <p>{recipient ? t("mailboxNoneTo", { to: recipient }) : t("mailboxNone")}</p>}
      <ul className="space-y-3">
        {messages.map((m) => {
          const attachments = m.attachments as DevAttachment[];
          return (
            <li key={m.id} className="rounded-xl border border-white/10 bg-white/5 p-4" data-testid="mail">
              <p className="text-sm text-white/70">
                {t("mailboxMeta", { to: m.recipients.join(", "), when: received.format(m.receivedAt), n: attachments.length })}
              </p>
              <h2 className="font-semibold" data-testid="mail-subject">
                {m.subject}
              </h2>
              <pre className="mt-2 whitespace-pre-wrap break-words font-sans text-sm">
                <Linked text={m.text} />
              </pre>
              {attachments.length > 0 && (
                <ul className="mt-3 flex flex-wrap gap-3" aria-label={t("mailboxAttachments")} data-testid="mail-attachments">
                  {attachments.map((a, i) => {
                    const name = a.filename || t("mailboxUnnamed", { n: i + 1 });
                    const size = t("mailboxSize", { kb: formatCount(Math.max(1, Math.round(a.size / 1024)), fmt) });
                    if (!a.content) {
                      return (
                        <li key={i} className="text-sm text-white/70">
                          {t("mailboxNotKept", { name, size })}
                        </li>
                      );
                    }
                    const href = `/dev/mailbox/${m.id}/${i}`;
                    return (
                      <li key={i} className="text-sm">
                        <a href={href} target="_blank" rel="noreferrer" className="block space-y-1 underline" data-testid="mail-attachment">
                          {a.contentType.startsWith("image/") && (
                            // eslint-disable-next-line @next/next/no-img-element -- the mailbox's own bytes, not an optimisable asset
                            <img src={href} alt={name} width={120} height={120} className="rounded bg-white" />
                          )}
                          <span>{t("mailboxOpen", { name, size })}</span>
                        </a>
                      </li>
                    );
                  })}
                </ul>
              )}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
