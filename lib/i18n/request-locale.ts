/**
 * The locale of the request being served, for server code that has no page segment to ask
 * (server actions, route handlers under /api, the organizer pages): decided from its cookie
 * and Accept-Language exactly as the proxy decided the page's (lib/i18n/config.ts).
 * Server-only (next/headers).
 */
import { headers } from "next/headers";
import { localeOfRequest, type Locale } from "@/lib/i18n/config";

/** The current request's locale (`en` or `zh-CN`); English outside a request. */
export async function requestLocale(): Promise<Locale> {
  try {
    return localeOfRequest(await headers());
  } catch {
    return "en";
  }
}
