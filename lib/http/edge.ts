/**
 * The rules StarArena's HTTP server applies before a request reaches Next (scripts/serve.ts;
 * docs/design.md "Edges"). Each is about the request's shape, needs no database, and
 * answers with the one error model (lib/errors.ts):
 *  - a path whose percent-encoding is malformed (`/events/%ZZ`), that decodes to control
 *    characters (`/events/a%00b`) or that holds a dot segment (`/api/x/../y`) → 400 `bad_path`, and a query holding a NUL or another
 *    control character → 400 `control_character` (Next would answer 500, or pass the NUL to
 *    Postgres, which refuses it with a 500);
 *  - a server action from a foreign origin → 403 `cross_origin` (Next would answer 500);
 *  - in local development, a page opened at another loopback name of the app (127.0.0.1 for
 *    localhost) → a redirect to APP_URL ({@link loopbackRedirect}).
 * The client address is resolved here too (lib/client-ip.ts).
 */
import type { IncomingHttpHeaders } from "node:http";
import { AppError } from "@/lib/errors";
import { hasForbiddenControl } from "@/lib/http/input";
import { isLoopbackHost } from "@/lib/env";
import { crossOriginRefusal } from "@/lib/http/origin";

/** C0 controls and DEL: never part of a name a person chose, and Postgres refuses NUL outright. */
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Longest path accepted, in characters (ids and slugs are far shorter; this only bounds the work). */
export const MAX_PATH_LENGTH = 2_048;

/**
 * Why a request's path is refused, or null.
 * @param rawUrl the request target as received (`/events/x?y=z`)
 * @returns a 400 `bad_path` (or 414 `path_too_long`) AppError, or null
 */
export function pathRefusal(rawUrl: string): AppError | null {
  const q = rawUrl.indexOf("?");
  const path = q < 0 ? rawUrl : rawUrl.slice(0, q);
  if (path.length > MAX_PATH_LENGTH) return new AppError("bad_request", "path_too_long", "This address is too long.");
  for (const segment of path.split("/")) {
    let decoded = segment;
    if (segment.includes("%")) {
      try {
        decoded = decodeURIComponent(segment);
      } catch {
        return badPath();
      }
    }
    // Dot segments: browsers resolve them before sending, so a raw one is a crafted request
    // (and Next would resolve it into another route than the one our checks looked at).
    if (CONTROL.test(decoded) || decoded === "." || decoded === "..") return badPath();
  }
  if (q >= 0) {
    // URLSearchParams never throws on a broken escape (it keeps the text); a decoded NUL is refused.
    for (const [key, value] of new URLSearchParams(rawUrl.slice(q + 1))) {
      if (hasForbiddenControl(key) || hasForbiddenControl(value)) {
        return new AppError("bad_request", "control_character", "This address holds an invisible control character (such as a NUL byte). Check the link and try again.", { field: key.slice(0, 60) });
      }
    }
  }
  return null;
}

function badPath(): AppError {
  return new AppError("bad_request", "bad_path", "This address is malformed (it has a broken %-escape or a control character). Check the link and try again.");
}

/**
 * Why the server refuses this request before Next sees it, or null.
 * @param req method, request target and headers as Node received them
 * @param origins the app's origins (lib/env.ts `appOrigins`)
 */
export function edgeRefusal(req: { method?: string; url?: string; headers: IncomingHttpHeaders }, origins: readonly string[]): AppError | null {
  const path = pathRefusal(req.url ?? "/");
  if (path) return path;
  // A server action is a POST carrying `Next-Action`; Next's own origin check answers 500.
  if (req.method === "POST" && req.headers["next-action"] !== undefined) return crossOriginRefusal(req.headers, origins);
  return null;
}

/**
 * Where to send a browser that opened a page of a local app under another loopback name, or
 * null. The browser keeps cookies per host name, and the app sends fans to APP_URL (the PSP's
 * pay page, its return, sign-in links): a fan signed in at http://127.0.0.1:3000 arrived at
 * http://localhost:3000 signed out, mid-payment (a new user's walkthrough, 2026-12-07). Only a
 * page navigation (`Sec-Fetch-Mode: navigate`, GET or HEAD) on the same port of a loopback
 * APP_URL moves; API calls and assets are served where they came. The target is APP_URL's
 * origin followed by the request's own path, never a host the client wrote.
 * @param req method, request target and headers as Node received them
 * @param appUrl the app's APP_URL
 * @returns the absolute URL to redirect to (307), or null to serve the request as it is.
 */
export function loopbackRedirect(req: { method?: string; url?: string; headers: IncomingHttpHeaders }, appUrl: string): string | null {
  if (req.method !== "GET" && req.method !== "HEAD") return null;
  if (req.headers["sec-fetch-mode"] !== "navigate") return null;
  const app = new URL(appUrl);
  if (!isLoopbackHost(app.hostname)) return null;
  const path = req.url ?? "/";
  if (!path.startsWith("/") || path.startsWith("/api/") || path.startsWith("/_next/")) return null;
  let asked: URL;
  try {
    asked = new URL(`${app.protocol}//${req.headers.host ?? ""}`);
  } catch {
    return null;
  }
  if (!isLoopbackHost(asked.hostname) || asked.hostname === app.hostname || asked.port !== app.port) return null;
  return `${app.origin}${path}`;
}

/** True when the caller wants JSON rather than a page: API paths, server actions, `Accept: application/json`. */
export function wantsJson(req: { url?: string; headers: IncomingHttpHeaders }): boolean {
  const url = req.url ?? "/";
  if (url.startsWith("/api/") || url.startsWith("/sandbox-psp/api/") || req.headers["next-action"] !== undefined) return true;
  const accept = String(req.headers.accept ?? "");
  return accept.includes("application/json") && !accept.includes("text/html");
}

/**
 * True when the server must read and check this request's body before Next does: a server
 * action (`Next-Action`), or any multipart POST — Next decodes one sent to a page as a form
 * action submitted without JavaScript, and one sent to a path with no route handler (even
 * under /api/) as a form action on the not-found page. No route of ours takes multipart: the
 * route wrapper answers those 415 after this check.
 */
export function isActionRequest(req: { method?: string; url?: string; headers: IncomingHttpHeaders }): boolean {
  if (req.method !== "POST") return false;
  if (req.headers["next-action"] !== undefined) return true;
  return /^multipart\/form-data/i.test(String(req.headers["content-type"] ?? ""));
}

/** Largest server-action body the server reads (bytes): Next's default `serverActions.bodySizeLimit` (1 MB). */
export const MAX_ACTION_BODY_BYTES = 1024 * 1024;

/**
 * Why a server action's body is refused before Next decodes it, or null. Next encodes an
 * action's arguments as JSON (`text/plain`) or, when they hold a FormData, as
 * `multipart/form-data`; a body that is neither well-formed JSON nor a complete multipart
 * message is not something our pages sent (Next would answer it with a 500 or an error row).
 * @param contentType the request's Content-Type header
 * @param body the whole body
 */
export function actionBodyRefusal(contentType: string | undefined, body: Buffer): AppError | null {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  const refuse = () => new AppError("bad_request", "invalid_action_payload", "This page sent something we could not read. Reload it and try again.");
  if (body.length > MAX_ACTION_BODY_BYTES) return new AppError("payload_too_large", "body_too_large", "This request is larger than 1 MB.");
  if (type === "text/plain") {
    try {
      JSON.parse(body.toString("utf8"));
      return null;
    } catch {
      return refuse();
    }
  }
  if (type === "multipart/form-data") {
    const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? "");
    const b = boundary?.[1] ?? boundary?.[2];
    if (!b || !body.includes(`--${b}--`)) return refuse();
    return null;
  }
  // (An empty body with no type: Next answers such a request itself with a 4xx.)
  return body.length === 0 ? null : refuse();
}
