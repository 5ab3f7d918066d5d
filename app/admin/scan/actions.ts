"use server";
/**
 * Server actions of the check-in page: one scanned or typed code → one check-in attempt, as
 * the door's verdict (lib/tickets/verdict.ts; the page words it); the upload of check-ins accepted offline; and the organizer's door-staff
 * accounts (docs/adr/0019-door-staff-and-camera-check-in.md).
 */
import { revalidatePath } from "next/cache";
import { getTranslations } from "next-intl/server";
import { z } from "zod";
import { createDoorStaff, doorStaffInputSchema, removeDoorStaff } from "@/lib/auth/staff";
import { checkInOrganizerOf, type SessionUser } from "@/lib/auth/user";
import { db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { action } from "@/lib/http/action";
import { checkIn, type CheckInDoor, type CheckInResult } from "@/lib/tickets/check-in";
import { verdictOf, type DoorVerdict } from "@/lib/tickets/verdict";

/** The door the caller stands at: their own shows (an organizer) or their organizer's (door staff). */
function doorOf(user: SessionUser): CheckInDoor {
  const organizerId = checkInOrganizerOf(user);
  if (!organizerId) throw new AppError("forbidden", "check_in_staff_only", "This is for the organizer and their door staff only.");
  return user.role === "door_staff" ? { organizerId, staffId: user.id } : { organizerId };
}

/**
 * Checks a scanned or typed code in (the signed code or a short code) for the shows of the
 * signed-in organizer, or of the organizer a door-staff account works for; fans get 403.
 * @returns the {@link DoorVerdict} (refusals are verdicts too; a refusal of the call itself is
 *   `failed` with the reason in the caller's language).
 */
export const scanAction = action(
  {
    who: { checkIn: true, returnTo: "/admin/scan" },
    args: z.tuple([z.string().max(4096)]),
    onError: (failure): DoorVerdict => ({ kind: "failed", message: failure.error }),
  },
  async ({ user }, code): Promise<DoorVerdict> => {
    if (code.trim() === "") return { kind: "empty" };
    return verdictOf(await checkIn(db(), doorOf(user), code));
  },
);

/** One check-in accepted offline by the page, as it uploads it. */
const offlineItemSchema = z.object({ code: z.string().min(1).max(4096), scannedAt: z.number().int().nonnegative() });

/** What became of one offline check-in once uploaded: `result` is checkIn's, `verdict` the door's. */
export interface SyncedCheckIn {
  code: string;
  result: CheckInResult["result"];
  verdict: DoorVerdict;
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
    for (const item of items) {
      const now = Date.now();
      const at = item.scannedAt <= now && item.scannedAt > now - OFFLINE_CLOCK_WINDOW_MS ? new Date(item.scannedAt) : new Date(now);
      const r = await checkIn(db(), door, item.code, at);
      out.push({ code: item.code, result: r.result, verdict: verdictOf(r) });
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
      // The schema's own messages are English: the form says it in the organizer's language, per field.
      const bad = parsed.error.issues[0]?.path.join(".");
      const t = await getTranslations("Scan");
      const error = bad === "name" ? t("staffNameInvalid") : bad === "email" ? t("staffEmailInvalid") : bad === "password" ? t("staffPasswordInvalid") : t("staffFormInvalid");
      return { ok: false, error, field: bad };
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
