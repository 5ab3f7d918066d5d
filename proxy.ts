/**
 * Next's proxy, for the two rules that must run before a cached page renders:
 *
 * - **Language.** Every fan page lives under `app/[locale]/`; the proxy rewrites `/events/x`
 *   to `/zh-CN/events/x` or `/en/events/x` from the `NEXT_LOCALE` cookie, else the browser's
 *   Accept-Language (lib/i18n/config.ts), so the address a fan sees never changes and each
 *   page is still rendered once per language (ISR), not once per visitor (docs/adr/0018).
 * - **Unknown shows.** /events/<slug> for a slug no published show has is answered with the
 *   prerendered not-found page (404) instead of rendering "not found" into the ISR cache
 *   (lib/events/slugs.ts). When the database cannot tell, the request goes through, so
 *   cached show pages keep serving.
 *
 * The network rules (client address, malformed paths, foreign-origin actions) live in the
 * HTTP server (scripts/serve.ts), in front of this.
 */
import { NextResponse, type NextRequest } from "next/server";
import { db } from "@/lib/db";
import { isPublishedSlug } from "@/lib/events/slugs";
import { localeOfRequest } from "@/lib/i18n/config";

/** `/events/<slug>` exactly (not its queue page). */
const SHOW_PAGE = /^\/events\/([^/]+)\/?$/;

export async function proxy(req: NextRequest) {
  const locale = localeOfRequest(req.headers);
  const { pathname } = req.nextUrl;
  // On the request's own origin (req.url), so Next rewrites internally: nextUrl's host may read
  // "localhost" where the request came to 127.0.0.1, which would make this an external proxy.
  const url = new URL(req.url);
  url.pathname = `/${locale}${pathname === "/" ? "" : pathname}`;
  const show = SHOW_PAGE.exec(pathname);
  if (show) {
    let slug: string;
    try {
      slug = decodeURIComponent(show[1]!);
    } catch {
      slug = "";
    }
    // A path no page matches: the catch-all answers it with the not-found page, prerendered at build.
    if ((await isPublishedSlug(db(), slug)) === false) url.pathname = `/${locale}/_stararena/unknown-show`;
  }
  const res = NextResponse.rewrite(url);
  // The same address answers in two languages: scripts/serve.ts adds `Vary: Accept-Language, Cookie`
  // to answers carrying this (Next rewrites Vary itself), so a shared cache keys on them (ADR 0018).
  res.headers.set("Content-Language", locale);
  return res;
}

/** Fan pages only: not the APIs, Next's own files, static files, the organizer's /admin or the /dev tools. */
export const config = { matcher: ["/((?!api/|_next/|admin(?:/|$)|dev(?:/|$)|sandbox-psp/api/|.*\\.).*)"] };
