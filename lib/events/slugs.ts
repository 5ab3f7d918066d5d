/**
 * Which /events/<slug> addresses name a published show, answered from memory (docs/design.md
 * "Edges"). The event page is rendered once and cached (ISR); without this check every
 * made-up slug would be rendered as "not found" and that render written to the cache, so
 * anyone could fill the disk. proxy.ts asks {@link isPublishedSlug} before the page renders
 * and answers unknown slugs with the static not-found page instead.
 *
 * The set of published slugs is read in one query and kept for {@link SLUG_SET_TTL_MS}; a
 * slug missing from a set older than {@link SLUG_MISS_REFRESH_MS} triggers one re-read, so a
 * show published a moment ago is found within a second, and a flood of random slugs costs at
 * most one query per second per process. A slug the set holds is answered at once even when
 * the set is older than its TTL (the re-read then runs in the background): a known show's page
 * never waits on Postgres, so it keeps serving from the cache while the pool is busy or down
 * (the outage simulation saw the event page pass its 2-s bound waiting for this query).
 */
import { eq } from "drizzle-orm";
import { events } from "@/db/schema";
import type { Db } from "@/lib/db";
import { SLUG_MAX_LENGTH, SLUG_PATTERN } from "@/lib/ids";

/** How long the set of published slugs is trusted (ms). */
export const SLUG_SET_TTL_MS = 5_000;
/** How old the set must be before a miss re-reads it (ms). */
export const SLUG_MISS_REFRESH_MS = 1_000;

type SlugSet = { slugs: Set<string>; at: number };
const KEY = Symbol.for("stararena.publishedSlugs");
type Holder = { [KEY]?: { set?: SlugSet; loading?: Promise<SlugSet> } };

function cache() {
  const g = globalThis as Holder;
  g[KEY] ??= {};
  return g[KEY];
}

async function load(db: Db): Promise<SlugSet> {
  const c = cache();
  c.loading ??= db
    .select({ slug: events.slug })
    .from(events)
    .where(eq(events.status, "published"))
    .then((rows) => {
      c.set = { slugs: new Set(rows.map((r) => r.slug)), at: Date.now() };
      return c.set;
    })
    .finally(() => {
      c.loading = undefined;
    });
  return c.loading;
}

/**
 * Whether `slug` is a published show's.
 * @returns true / false; null when it cannot be told (the database is unreachable and nothing
 *   is cached) — callers then let the request through, so cached pages still serve.
 */
export async function isPublishedSlug(db: Db, slug: string, now = Date.now()): Promise<boolean | null> {
  if (slug.length > SLUG_MAX_LENGTH || !SLUG_PATTERN.test(slug)) return false;
  const c = cache();
  try {
    let set = c.set;
    if (!set) set = await load(db);
    else if (now - set.at > SLUG_SET_TTL_MS) {
      if (set.slugs.has(slug)) {
        // Stale but holding the slug: answer now, refresh behind (an unpublished show's page is
        // refused from the next answer on, within the TTL plus one query).
        load(db).catch(() => {});
        return true;
      }
      set = await load(db);
    }
    if (set.slugs.has(slug)) return true;
    if (now - set.at > SLUG_MISS_REFRESH_MS) set = await load(db);
    return set.slugs.has(slug);
  } catch {
    return c.set ? c.set.slugs.has(slug) : null;
  }
}

/** Forgets the cached set (tests; a publish in this process calls it so the show is found at once). */
export function forgetPublishedSlugs(): void {
  cache().set = undefined;
}
