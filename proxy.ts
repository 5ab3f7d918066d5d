/**
 * Next's proxy, for the one rule that needs the app's data before a cached page renders:
 * /events/<slug> for a slug no published show has is answered with the static not-found page
 * (404) instead of rendering "not found" into the ISR cache (lib/events/slugs.ts). When the
 * database cannot tell, the request goes through, so cached show pages keep serving.
 * The network rules (client address, malformed paths, foreign-origin actions) live in the
 * HTTP server (scripts/serve.ts), in front of this.
 */
import { NextResponse, type NextRequest } from "next/server";
import { db } from "@/lib/db";
import { isPublishedSlug } from "@/lib/events/slugs";

export async function proxy(req: NextRequest) {
  const segment = req.nextUrl.pathname.split("/")[2] ?? "";
  let slug: string;
  try {
    slug = decodeURIComponent(segment);
  } catch {
    slug = "";
  }
  if ((await isPublishedSlug(db(), slug)) === false) {
    // A path no route matches: Next answers it with app/not-found.tsx, prerendered at build.
    return NextResponse.rewrite(new URL("/_stararena/unknown-show", req.url));
  }
  return NextResponse.next();
}

export const config = { matcher: "/events/:slug" };
