"use server";
/** Server action of the check-in page: one scanned code → one check-in attempt, in words for the door. */
import { z } from "zod";
import { db } from "@/lib/db";
import { action } from "@/lib/http/action";
import { checkIn } from "@/lib/tickets/check-in";

/** What the door sees after a scan. `tone` drives the colour: green lets in, everything else does not. */
export interface ScanOutcome {
  tone: "ok" | "warn" | "bad";
  /** The headline, e.g. "Valid — Sec MAIN · Row B · Seat 4, checked in now". */
  title: string;
  /** The show, or why. */
  detail: string;
  /** Increments on every scan, so the page can tell two identical outcomes apart. */
  n: number;
}

const time = (d: Date, timeZone: string) => new Intl.DateTimeFormat("en-GB", { hour: "2-digit", minute: "2-digit", second: "2-digit", timeZone }).format(d);
const nextN = (previous: unknown) => ((previous as ScanOutcome | null)?.n ?? 0) + 1;

/** Checks the submitted code in (form field `code`) for the signed-in organizer's shows; fans get 403. */
export const scanAction = action(
  {
    who: { organizer: true, returnTo: "/admin/scan" },
    args: z.tuple([z.unknown(), z.instanceof(FormData)]),
    onError: (failure, args): ScanOutcome => ({ tone: "bad", title: "Not checked in", detail: failure.error, n: nextN(args[0]) }),
  },
  async ({ user }, previous, form): Promise<ScanOutcome> => {
    const n = nextN(previous);
    const parsed = z.string().max(4096).safeParse(form.get("code"));
    if (!parsed.success || parsed.data.trim() === "") return { tone: "bad", title: "Nothing scanned", detail: "Paste or type a ticket code.", n };
    const r = await checkIn(db(), user.id, parsed.data);
    switch (r.result) {
      case "ok":
        return { tone: "ok", title: `Valid — ${r.ticket.seatLabel}, checked in now`, detail: `${r.ticket.eventName} · ${time(r.checkedInAt, r.ticket.timeZone)}`, n };
      case "already_used":
        return { tone: "bad", title: `Already used at ${time(r.firstCheckedInAt, r.ticket.timeZone)}`, detail: `${r.ticket.seatLabel} · ${r.ticket.eventName}`, n };
      case "refunded":
        return { tone: "bad", title: "Refunded ticket", detail: `${r.ticket.seatLabel} · the order was refunded, so this ticket is void.`, n };
      case "void":
        return { tone: "bad", title: "Void ticket", detail: `${r.ticket.seatLabel} · this ticket was cancelled.`, n };
      case "replaced":
        return { tone: "warn", title: "Replaced ticket", detail: `${r.ticket.seatLabel} · this code was re-issued; ask the fan for their current ticket.`, n };
      case "other_show":
        return { tone: "bad", title: "Not for your shows", detail: "A genuine ticket, but for a show another organizer runs.", n };
      case "unknown_ticket":
        return { tone: "bad", title: "Unknown ticket", detail: "Genuine signature, but no such ticket here.", n };
      case "not_genuine":
        return { tone: "bad", title: "Not a genuine ticket", detail: r.reason === "malformed" ? "This is not a StarArena ticket code." : "The signature does not match: forged or altered.", n };
    }
  },
);
