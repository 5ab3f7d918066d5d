/**
 * Translation outside React: the catalogues (./messages/*.json, ICU message syntax) and
 * translators for code that has no component tree — error answers (lib/errors.ts), e-mails
 * (lib/mail/messages.ts). Pages and components use next-intl's `useTranslations` /
 * `getTranslations` over the same catalogues (lib/i18n/request.ts).
 *
 * English error messages are written where the error is raised (the AppError's message, with
 * its context); other locales translate by the error's stable `code`, with the error's
 * `params` as ICU arguments (catalogue namespace `errors`). A code without a translation
 * keeps the English message (lib/i18n/catalogue.test.ts fails the build's tests on that).
 */
import { createTranslator } from "use-intl/core";
import { DEFAULT_LOCALE, type Locale } from "@/lib/i18n/config";
import en from "@/lib/i18n/messages/en.json" with { type: "json" };
import zhCN from "@/lib/i18n/messages/zh-CN.json" with { type: "json" };

/** The catalogue of each locale. English has no `errors` namespace: its error messages are the AppErrors' own. */
export const CATALOGUES: Readonly<Record<Locale, Record<string, unknown>>> = { en, "zh-CN": zhCN };

/** The messages of one locale (the whole catalogue), for NextIntlClientProvider and getRequestConfig. */
export function messagesFor(locale: Locale): typeof en {
  return CATALOGUES[locale] as typeof en;
}

/**
 * A translator for one namespace of a locale's catalogue, e.g. `translator("zh-CN", "Email")("resetSubject")`.
 * A missing key or a broken ICU message falls back to the English one, never throws.
 */
export function translator(locale: Locale, namespace: keyof typeof en) {
  const fallback = createTranslator({ locale: DEFAULT_LOCALE, messages: en, namespace });
  return createTranslator({
    locale,
    messages: messagesFor(locale),
    namespace,
    onError: () => undefined,
    getMessageFallback: ({ key, namespace: ns }) => (ns === namespace ? fallback(key as never) : key),
  });
}

/** The translation of an error code in a locale, or null when the catalogue has none (or the locale is English). */
export function translateErrorCode(locale: Locale, code: string, params: Record<string, string | number> = {}): string | null {
  if (locale === DEFAULT_LOCALE) return null;
  const errors = (CATALOGUES[locale] as { errors?: Record<string, string> }).errors;
  if (!errors || typeof errors[code] !== "string") return null;
  let failed = false;
  const t = createTranslator({ locale, messages: { errors }, namespace: "errors", onError: () => (failed = true) });
  const text = t(code as never, params as never);
  return failed ? null : text;
}
