/** Cache-Control values for route handlers (seconds). */

/** `public, s-maxage=…, stale-while-revalidate=…` so a CDN can absorb polling (seconds). */
export function publicCache(sMaxAge: number, staleWhileRevalidate = sMaxAge): string {
  return `public, max-age=0, s-maxage=${sMaxAge}, stale-while-revalidate=${staleWhileRevalidate}`;
}

/** For answers about one person (their order, their place in the queue): never stored by a shared cache. */
export const PRIVATE_NO_STORE = "private, no-store";
