import Link from "next/link";

/** The admin sub-pages of one show, with the current one marked. */
export function EventAdminNav({ eventId, name, current }: { eventId: string; name: string; current: "orders" | "discrepancies" | "live" }) {
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
    <nav className="flex flex-wrap items-center gap-2 border-b border-white/10 pb-3" aria-label="Show administration">
      <Link href="/admin" className="text-sm text-white/60 underline">
        Organizer
      </Link>
      <span className="text-white/40">/</span>
      <span className="mr-2 text-sm font-semibold">{name}</span>
      {tab("orders", `/admin/events/${eventId}/orders`, "Orders")}
      {tab("discrepancies", `/admin/events/${eventId}/discrepancies`, "Discrepancies")}
      {tab("live", `/admin/events/${eventId}/live`, "Live")}
      <Link href="/admin/scan" className="rounded px-3 py-1 text-sm text-white/70 hover:bg-white/10">
        Check-in
      </Link>
    </nav>
  );
}

/** Status colours shared by the admin tables. */
export function StatusBadge({ status, testId }: { status: string; testId?: string }) {
  const tone: Record<string, string> = {
    ticketed: "bg-emerald-400/15 text-emerald-200",
    paid: "bg-emerald-400/15 text-emerald-200",
    captured: "bg-emerald-400/15 text-emerald-200",
    valid: "bg-emerald-400/15 text-emerald-200",
    repaired: "bg-emerald-400/15 text-emerald-200",
    pending_payment: "bg-amber-300/15 text-amber-200",
    pending: "bg-amber-300/15 text-amber-200",
    created: "bg-amber-300/15 text-amber-200",
    open: "bg-amber-300/15 text-amber-200",
    used: "bg-sky-400/15 text-sky-200",
    refunded: "bg-red-400/15 text-red-200",
    needs_attention: "bg-red-400/15 text-red-200",
    void: "bg-white/10 text-white/60",
  };
  return (
    <span className={`inline-block rounded px-2 py-0.5 text-xs font-medium ${tone[status] ?? "bg-white/10 text-white/70"}`} data-testid={testId} data-status={status}>
      {status.replaceAll("_", " ")}
    </span>
  );
}
