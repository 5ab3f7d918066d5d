/**
 * Same-origin writes (docs/design.md "Edges"; OWASP CSRF Prevention Cheat Sheet, "Verifying
 * origin with standard headers" and "Fetch Metadata headers"). A state-changing request
 * carrying a fan's cookies is honoured only when it comes from one of the app's own
 * origins: `APP_URL`'s and those listed in `APP_ORIGINS` (lib/env.ts `appOrigins`).
 *
 * The rule, in order:
 *  - `Sec-Fetch-Site: same-origin` (or `none`: typed by the user) → allowed;
 *  - an `Origin` header → allowed only when it is one of the app's origins (`null` never is);
 *  - `Sec-Fetch-Site: same-site | cross-site` without a listed `Origin` → refused;
 *  - neither header → allowed: every browser sends `Origin` on a cross-origin POST, PUT,
 *    PATCH or DELETE, so a request without both is not a browser's forged request (curl, a
 *    server, the on-sale simulator).
 * Used by the route wrapper (lib/http/route.ts) for every unsafe method and by the HTTP
 * server (scripts/serve.ts) for server actions, which Next would otherwise refuse with a 500.
 * Webhooks and PSP callbacks are exempt where they are declared (`origin: "signed"`): they
 * prove themselves with a signature instead.
 */
import { AppError } from "@/lib/errors";

/** Methods that never change state; the origin rule does not apply to them. */
export const SAFE_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS"]);

/** A header getter over either a Fetch `Headers` or Node's `IncomingHttpHeaders`. */
type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(h: HeaderSource, name: string): string | undefined {
  const v = h instanceof Headers ? h.get(name) : h[name];
  return Array.isArray(v) ? v[0] : (v ?? undefined);
}

/**
 * Why this state-changing request must be refused, or null when it may proceed.
 * @param headers the request's headers
 * @param allowed the app's origins (`scheme://host[:port]`, as `new URL(…).origin` writes them)
 * @returns a 403 `cross_origin` AppError naming the origin, or null
 */
export function crossOriginRefusal(headers: HeaderSource, allowed: readonly string[]): AppError | null {
  const site = header(headers, "sec-fetch-site")?.toLowerCase();
  if (site === "same-origin" || site === "none") return null;
  const origin = header(headers, "origin");
  if (origin !== undefined) {
    if (origin !== "null" && allowed.includes(origin.toLowerCase())) return null;
    return new AppError("forbidden", "cross_origin", `Requests from ${origin.slice(0, 100)} may not change anything here: StarArena only accepts them from its own pages.`);
  }
  if (site === "same-site" || site === "cross-site") {
    return new AppError("forbidden", "cross_origin", "Requests from another site may not change anything here: StarArena only accepts them from its own pages.");
  }
  return null;
}
