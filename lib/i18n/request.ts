/**
 * next-intl's request configuration (wired in next.config.ts): the locale and catalogue of
 * each server render. Fan pages live under `app/[locale]/`, where the proxy (proxy.ts) has
 * already put the request's locale into the path, so static and ISR pages render once per
 * locale; pages outside it (the organizer's /admin, /dev) read the same cookie and
 * Accept-Language the proxy reads (lib/i18n/config.ts). Times are formatted with explicit
 * venue zones (lib/format.ts), so the default zone here only silences next-intl's fallback.
 */
import { getRequestConfig } from "next-intl/server";
import { DEFAULT_LOCALE, isLocale } from "@/lib/i18n/config";
import { requestLocale as localeFromHeaders } from "@/lib/i18n/request-locale";
import { messagesFor } from "@/lib/i18n/translate";

export default getRequestConfig(async ({ locale: explicit, requestLocale }) => {
  // An explicit locale (getTranslations({ locale })) needs no look-up, so static pages stay static.
  const fromPath = isLocale(explicit) ? explicit : await requestLocale;
  // Outside app/[locale]/ (no segment) the request's headers decide; a segment naming no locale
  // (a path the proxy does not rewrite, e.g. /admin.x/…) is answered 404 by the layout, in English.
  const locale = isLocale(fromPath) ? fromPath : fromPath === undefined ? await localeFromHeaders() : DEFAULT_LOCALE;
  return { locale, messages: messagesFor(locale), timeZone: "UTC" };
});
