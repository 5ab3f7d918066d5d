/**
 * Accounts made without the sign-up form (the demo seed, tests, the simulator): a user
 * with an email + password credential stored the way better-auth stores it (its own
 * password hash), so the account signs in like any other.
 */
import { hashPassword } from "better-auth/crypto";
import { eq } from "drizzle-orm";
import { account, user } from "@/db/schema";
import type { Db } from "@/lib/db";
import { newId } from "@/lib/ids";

/** Creates a user with an email + password credential unless the email exists; returns the user id. */
export async function ensureUser(
  db: Db,
  a: { email: string; password: string; name: string; role: "fan" | "organizer" },
): Promise<string> {
  const existing = await db.query.user.findFirst({ where: eq(user.email, a.email) });
  if (existing) return existing.id;
  const id = newId("usr");
  await db.transaction(async (tx) => {
    await tx.insert(user).values({ id, email: a.email, name: a.name, role: a.role, emailVerified: true });
    await tx.insert(account).values({
      id: newId("usr"),
      accountId: id,
      providerId: "credential",
      userId: id,
      password: await hashPassword(a.password),
    });
  });
  return id;
}


/** Records the language a person chose (lib/i18n/config.ts), so the e-mails they get are written in it. */
export async function setUserLocale(db: Db, userId: string, locale: string): Promise<void> {
  await db.update(user).set({ locale }).where(eq(user.id, userId));
}
