/**
 * An account's e-mail language comes from its sign-up request, read by the same function as the
 * pages (lib/i18n/config.ts `localeOfRequest`): a browser that asks for Traditional Chinese alone
 * (zh-TW, zh-HK — what Safari sends) gets its e-mail in Chinese, as it gets its pages.
 */
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { user } from "@/db/schema";
import { auth } from "@/lib/auth";
import { closeDb, db } from "@/lib/db";
import { isLocale } from "@/lib/i18n/config";
import { renderEmail } from "@/lib/mail/messages";
import { closeRedis } from "@/lib/redis";

afterAll(async () => {
  await closeDb();
  await closeRedis();
});

async function signedUpWith(acceptLanguage: string): Promise<string | null> {
  const email = `mail-locale-${Date.now()}-${Math.random().toString(36).slice(2)}@stararena.test`;
  await auth().api.signUpEmail({ body: { email, password: "mail-locale-password", name: "Mail Locale" }, headers: new Headers({ "accept-language": acceptLanguage }) });
  const [row] = await db().select({ locale: user.locale }).from(user).where(eq(user.email, email));
  return row?.locale ?? null;
}

describe("the e-mail language of a new account", () => {
  it.each(["zh-TW", "zh-HK", "zh-MO", "zh-Hant-TW"])("Accept-Language %s alone → zh-CN, and its e-mail is in Chinese", async (tag) => {
    const locale = await signedUpWith(tag);
    expect(locale).toBe("zh-CN");
    const mail = await renderEmail(db(), "password_reset", { url: "http://localhost:3000/reset", name: "Mail Locale" }, isLocale(locale) ? locale : undefined);
    expect(mail.subject).toMatch(/[\u4e00-\u9fff]/);
  });

  it("English and other languages stay English", async () => {
    expect(await signedUpWith("en-US,en;q=0.9")).toBe("en");
    expect(await signedUpWith("fr-FR")).toBe("en");
  });
});
