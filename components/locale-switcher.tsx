"use client";
/**
 * The language switcher in the header: English or 简体中文. Choosing one stores it in the
 * `NEXT_LOCALE` cookie (and on the account, for e-mails) through a server action, then
 * re-renders the page in it; the proxy reads the cookie on every request (lib/i18n/config.ts).
 */
import { useLocale, useTranslations } from "next-intl";
import { useRouter } from "next/navigation";
import { useTransition } from "react";
import { setLocaleAction } from "@/app/locale-action";
import { LOCALES, type Locale } from "@/lib/i18n/config";

/** Each language named in itself, as switchers do, short enough for a phone's header (the full name is the option's title). */
const NAMES: Record<Locale, { short: string; full: string }> = { en: { short: "EN", full: "English" }, "zh-CN": { short: "中文", full: "简体中文" } };

export function LocaleSwitcher() {
  const t = useTranslations("Shell");
  const locale = useLocale();
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  return (
    <select
      aria-label={t("language")}
      value={locale}
      disabled={pending}
      data-testid="locale-switcher"
      onChange={(e) => {
        const next = e.target.value;
        startTransition(async () => {
          await setLocaleAction(next);
          router.refresh();
        });
      }}
      className="shrink-0 rounded bg-white/10 px-1 py-1 text-sm"
    >
      {LOCALES.map((l) => (
        <option key={l} value={l} lang={l} title={NAMES[l].full}>
          {NAMES[l].short}
        </option>
      ))}
    </select>
  );
}
