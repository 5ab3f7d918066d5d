import Link from "next/link";
import { useTranslations } from "next-intl";

/** The admin sub-pages of one show, with the current one marked; the show's name is the organizer's, as entered. */
export function EventAdminNav({ eventId, name, current }: { eventId: string; name: string; current: "orders" | "discrepancies" | "live" }) {
  const t = useTranslations("Admin");
  const tab = (key: typeof current, href: string, label: string) => (
    <Link
      href={href}
      aria-current={current === key ? "page" : undefined}
      className={`rounded px-3 py-1 text-sm ${current === key ? "bg-white/15 font-semibold" : "text-white/70 hover:bg-white/10"}`}
    >
      {label}
    </Link>
  );
  return (
    <nav className="flex flex-wrap items-center gap-2 border-b border-white/10 pb-3" aria-label={t("showNav")}>
      <Link href="/admin" className="text-sm text-white/60 underline">
        {t("organizer")}
      </Link>
      <span className="text-white/40" aria-hidden>
        /
      </span>
      {/* A long show name wraps inside the phone's width instead of widening the page. */}
      <span className="mr-2 min-w-0 break-words text-sm font-semibold">{name}</span>
      {tab("orders", `/admin/events/${eventId}/orders`, t("orders"))}
      {tab("discrepancies", `/admin/events/${eventId}/discrepancies`, t("discrepancies"))}
      {tab("live", `/admin/events/${eventId}/live`, t("live"))}
      <Link href="/admin/scan" className="rounded px-3 py-1 text-sm text-white/70 hover:bg-white/10">
        {t("checkIn")}
      </Link>
    </nav>
  );
}

/** Every status a badge shows (orders, payments, tickets, line items, refunds, discrepancies, shows), each worded in `Admin.status`. */
const STATUSES = [
  "pending_payment",
  "paid",
  "ticketed",
  "partially_refunded",
  "expired",
  "cancelled",
  "refunded",
  "created",
  "pending",
  "captured",
  "declined",
  "valid",
  "used",
  "void",
  "held",
  "sold",
  "released",
  "requested",
  "succeeded",
  "open",
  "repaired",
  "needs_attention",
  "dismissed",
  "draft",
  "published",
] as const;
/** A status with a word in the catalogue. */
export type Status = (typeof STATUSES)[number];
const isStatus = (s: string): s is Status => (STATUSES as readonly string[]).includes(s);

/**
 * A status in the reader's language ("needs_attention" → "needs attention" / "待处理"); an unknown one as stored.
 * @param t the `Admin.status` translator (`useTranslations` or `getTranslations`).
 */
export function statusWord(t: (key: Status) => string, status: string): string {
  return isStatus(status) ? t(status) : status;
}

/** Status colours shared by the admin tables; `data-status` keeps the stored status for programs. */
export function StatusBadge({ status, testId }: { status: string; testId?: string }) {
  const t = useTranslations("Admin.status");
  const tone: Record<string, string> = {
    ticketed: "bg-emerald-400/15 text-emerald-200",
    paid: "bg-emerald-400/15 text-emerald-200",
    captured: "bg-emerald-400/15 text-emerald-200",
    valid: "bg-emerald-400/15 text-emerald-200",
    repaired: "bg-emerald-400/15 text-emerald-200",
    succeeded: "bg-emerald-400/15 text-emerald-200",
    published: "bg-emerald-400/15 text-emerald-200",
    pending_payment: "bg-amber-300/15 text-amber-200",
    pending: "bg-amber-300/15 text-amber-200",
    created: "bg-amber-300/15 text-amber-200",
    open: "bg-amber-300/15 text-amber-200",
    requested: "bg-amber-300/15 text-amber-200",
    draft: "bg-amber-300/15 text-amber-200",
    partially_refunded: "bg-amber-300/15 text-amber-200",
    used: "bg-sky-400/15 text-sky-200",
    refunded: "bg-red-400/15 text-red-200",
    needs_attention: "bg-red-400/15 text-red-200",
    void: "bg-white/10 text-white/60",
  };
  return (
    <span className={`inline-block rounded px-2 py-0.5 text-xs font-medium ${tone[status] ?? "bg-white/10 text-white/70"}`} data-testid={testId} data-status={status}>
      {statusWord(t, status)}
    </span>
  );
}
