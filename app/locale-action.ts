"use server";
/** The language switcher's server action: the choice goes into the `NEXT_LOCALE` cookie and, for a signed-in person, onto the account (e-mails follow it). */
import { cookies } from "next/headers";
import { z } from "zod";
import { getSessionUser } from "@/lib/auth/session";
import { setUserLocale } from "@/lib/auth/users";
import { db } from "@/lib/db";
import { action } from "@/lib/http/action";
import { LOCALE_COOKIE, LOCALE_COOKIE_MAX_AGE_SECONDS, LOCALES } from "@/lib/i18n/config";

/** Sets the caller's language (`en` or `zh-CN`; anything else is refused with 400). */
export const setLocaleAction = action({ who: "anyone", args: z.tuple([z.enum(LOCALES)]) }, async (_call, locale) => {
  (await cookies()).set(LOCALE_COOKIE, locale, { path: "/", maxAge: LOCALE_COOKIE_MAX_AGE_SECONDS, sameSite: "lax" });
  const user = await getSessionUser();
  if (user) await setUserLocale(db(), user.id, locale);
  return { ok: true as const };
});
