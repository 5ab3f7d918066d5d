"use server";
/**
 * Server actions of the check-in page: one scanned or typed code → one check-in attempt, in
 * words for the door; the upload of check-ins accepted offline; and the organizer's door-staff
 * accounts (docs/adr/0019-door-staff-and-camera-check-in.md).
 */
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { createDoorStaff, doorStaffInputSchema, removeDoorStaff } from "@/lib/auth/staff";
import { checkInOrganizerOf, type SessionUser } from "@/lib/auth/user";
import { db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { action } from "@/lib/http/action";
import { checkIn, type CheckInDoor, type CheckInResult } from "@/lib/tickets/check-in";

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

/** The door the caller stands at: their own shows (an organizer) or their organizer's (door staff). */
function doorOf(user: SessionUser): CheckInDoor {
  const organizerId = checkInOrganizerOf(user);
  if (!organizerId) throw new AppError("forbidden", "check_in_staff_only", "This is for the organizer and their door staff only.");
  return user.role === "door_staff" ? { organizerId, staffId: user.id } : { organizerId };
}

/**
 * Checks the submitted code in (form field `code`: the signed code or a typed short code) for the
 * shows of the signed-in organizer, or of the organizer a door-staff account works for; fans get 403.
 * @param previous the previous outcome (its `n` is counted on), or null.
 * @returns a {@link ScanOutcome}; refusals are outcomes too.
 */
export const scanAction = action(
  {
    who: { checkIn: true, returnTo: "/admin/scan" },
    args: z.tuple([z.unknown(), z.instanceof(FormData)]),
    onError: (failure, args): ScanOutcome => ({ tone: "bad", title: "Not checked in", detail: failure.error, n: nextN(args[0]) }),
  },
  async ({ user }, previous, form): Promise<ScanOutcome> => {
    const n = nextN(previous);
    const parsed = z.string().max(4096).safeParse(form.get("code"));
    if (!parsed.success || parsed.data.trim() === "") return { tone: "bad", title: "Nothing scanned", detail: "Paste or type a ticket code.", n };
    return describe(await checkIn(db(), doorOf(user), parsed.data), n);
  },
);

/** One check-in accepted offline by the page, as it uploads it. */
const offlineItemSchema = z.object({ code: z.string().min(1).max(4096), scannedAt: z.number().int().nonnegative() });

/** What became of one offline check-in once uploaded: `result` is checkIn's, `outcome` the door's words. */
export interface SyncedCheckIn {
  code: string;
  result: CheckInResult["result"];
  outcome: ScanOutcome;
}

/** How far back an offline scan's own time is believed (ms); older or future times read as "now". */
const OFFLINE_CLOCK_WINDOW_MS = 24 * 3_600_000;

/**
 * Uploads check-ins the page accepted offline (signature verified in the browser), oldest
 * first, each through the same checkIn as a live scan, at the time it was scanned (ms since the
 * epoch; believed within the last 24 h, else now). "ok" means synced; anything else is a
 * conflict to show (e.g. already used at another door).
 * @returns one {@link SyncedCheckIn} per item, in the order given (at most 200 per call).
 */
export const syncOfflineCheckInsAction = action(
  { who: { checkIn: true, returnTo: "/admin/scan" }, args: z.tuple([z.array(offlineItemSchema).max(200)]) },
  async ({ user }, items): Promise<SyncedCheckIn[]> => {
    const door = doorOf(user);
    const out: SyncedCheckIn[] = [];
    for (const [i, item] of items.entries()) {
      const now = Date.now();
      const at = item.scannedAt <= now && item.scannedAt > now - OFFLINE_CLOCK_WINDOW_MS ? new Date(item.scannedAt) : new Date(now);
      const r = await checkIn(db(), door, item.code, at);
      out.push({ code: item.code, result: r.result, outcome: describe(r, i + 1) });
    }
    return out;
  },
);

/** The door-staff form's state: null before the first submit. */
export type DoorStaffFormState = { ok: true; email: string } | { ok: false; error: string; field?: string } | null;

/**
 * Makes a door-staff account (form fields `name`, `email`, `password`) for the signed-in organizer's shows.
 * Organizers only (door staff and fans get 403).
 * @returns `{ ok: true, email }`, or `{ ok: false, error, field? }` with the form's words (e.g. the email is taken).
 */
export const createDoorStaffAction = action(
  {
    who: { organizer: true, returnTo: "/admin/scan" },
    args: z.tuple([z.unknown(), z.instanceof(FormData)]),
    onError: (failure): DoorStaffFormState => ({ ok: false, error: failure.error, field: failure.field }),
  },
  async ({ user }, _previous, form): Promise<DoorStaffFormState> => {
    const field = (name: string) => String(form.get(name) ?? "");
    const parsed = doorStaffInputSchema.safeParse({ name: field("name"), email: field("email"), password: field("password") });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return { ok: false, error: issue?.message ?? "Check the form.", field: issue?.path.join(".") };
    }
    await createDoorStaff(db(), user.id, parsed.data);
    revalidatePath("/admin/scan");
    return { ok: true, email: parsed.data.email };
  },
);

/** Removes one of the signed-in organizer's door-staff accounts (its sessions end). Organizers only. */
export const removeDoorStaffAction = action(
  { who: { organizer: true, returnTo: "/admin/scan" }, args: z.tuple([z.string().regex(/^usr_[0-9a-z]{16}$/, "This page is out of date. Reload it and try again.")]) },
  async ({ user }, staffId): Promise<{ ok: true }> => {
    if (!(await removeDoorStaff(db(), user.id, staffId))) throw new AppError("not_found", "no_such_staff", "There is no such door-staff account.");
    revalidatePath("/admin/scan");
    return { ok: true };
  },
);

/** A check-in result in the door's words; `n` numbers the outcome. */
function describe(r: CheckInResult, n: number): ScanOutcome {
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
      return { tone: "bad", title: "Unknown ticket", detail: "No ticket here has this code: check the short code for typos, or the code was replaced by a re-issue.", n };
    case "not_genuine":
      return { tone: "bad", title: "Not a genuine ticket", detail: r.reason === "malformed" ? "This is neither a StarArena ticket code nor a short code (like 7K3QD-M9XW2)." : "The signature does not match: forged or altered.", n };
  }
}
