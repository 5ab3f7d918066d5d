/** next-intl's type registration: keys passed to `useTranslations`/`getTranslations` are checked against the English catalogue. */
import type { Locale } from "@/lib/i18n/config";
import type en from "@/lib/i18n/messages/en.json";

declare module "next-intl" {
  interface AppConfig {
    Locale: Locale;
    Messages: typeof en;
  }
}
