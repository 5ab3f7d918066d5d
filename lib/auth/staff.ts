/**
 * Door-staff accounts: check-in-only accounts an organizer makes for the people at the door.
 * A door-staff user (role `door_staff`, `user.staff_of` = the organizer) signs in like anyone
 * and may check in tickets of that organizer's shows at /admin/scan; every other page and
 * API of /admin refuses them (lib/auth/session.ts `requireOrganizer`, lib/http). See
 * docs/adr/0019-door-staff-and-camera-check-in.md.
 */
import { hashPassword } from "better-auth/crypto";
import { and, asc, eq } from "drizzle-orm";
import { z } from "zod";
import { account, user } from "@/db/schema";
import type { Db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";

/** What an organizer types to make a door-staff account; messages are what the form shows. */
export const doorStaffInputSchema = z.object({
  name: z.string().trim().min(1, "Give the person's name.").max(100, "The name is too long (100 characters at most)."),
  email: z.string().trim().toLowerCase().max(254, "The email is too long.").pipe(z.email("Give a valid email address.")),
  password: z.string().min(8, "The password needs at least 8 characters.").max(128, "The password is too long (128 characters at most)."),
});

/** A door-staff account as the organizer's list shows it. */
export interface DoorStaffMember {
  id: string;
  name: string;
  email: string;
  createdAt: Date;
}

/**
 * Makes a door-staff account for `organizerId`, with an email + password credential stored
 * as better-auth stores it (so it signs in at /sign-in like any account).
 * @param input name, email (lower-cased) and password (8–128 characters), as {@link doorStaffInputSchema} parses them.
 * @returns the new user's id (`usr_…`).
 * @throws {AppError} 409 `email_taken` when any account already has that email; 403 `organizers_only` when `organizerId` is not an organizer.
 */
export async function createDoorStaff(db: Db, organizerId: string, input: z.input<typeof doorStaffInputSchema>): Promise<string> {
  const { name, email, password } = doorStaffInputSchema.parse(input);
  const owner = await db.query.user.findFirst({ where: eq(user.id, organizerId), columns: { role: true } });
  if (owner?.role !== "organizer") throw new AppError("forbidden", "organizers_only", "Only an organizer can add door staff.");
  const id = newId("usr");
  const hash = await hashPassword(password);
  const created = await db.transaction(async (tx) => {
    const rows = await tx
      .insert(user)
      .values({ id, email, name, role: "door_staff", staffOf: organizerId, emailVerified: true })
      .onConflictDoNothing({ target: user.email })
      .returning({ id: user.id });
    if (rows.length === 0) return false;
    await tx.insert(account).values({ id: newId("usr"), accountId: id, providerId: "credential", userId: id, password: hash });
    return true;
  });
  if (!created) throw new AppError("conflict", "email_taken", "An account with this email exists already.", { field: "email" });
  return id;
}

/** The organizer's door-staff accounts, oldest first. */
export async function listDoorStaff(db: Db, organizerId: string): Promise<DoorStaffMember[]> {
  return db
    .select({ id: user.id, name: user.name, email: user.email, createdAt: user.createdAt })
    .from(user)
    .where(and(eq(user.staffOf, organizerId), eq(user.role, "door_staff")))
    .orderBy(asc(user.createdAt), asc(user.id));
}

/**
 * Removes one of the organizer's door-staff accounts: the user row goes, and with it (cascade)
 * its sessions and credential, so it cannot sign in again. A session cookie cache already handed
 * out stays trusted for at most its 5 minutes (ADR 0007).
 * @returns true when an account was removed, false when `staffId` is not this organizer's door staff.
 */
export async function removeDoorStaff(db: Db, organizerId: string, staffId: string): Promise<boolean> {
  const rows = await db
    .delete(user)
    .where(and(eq(user.id, staffId), eq(user.staffOf, organizerId), eq(user.role, "door_staff")))
    .returning({ id: user.id });
  return rows.length > 0;
}
