/**
 * The API lane (docs/adr/0022): the app's JSON route handlers served by the HTTP server itself
 * (scripts/serve.ts), not through Next's router. Each of them is a Web-standard
 * `(Request, { params }) → Response` built by lib/http/route.ts, so the same module runs in both
 * deployments, as the door does (docs/adr/0014): Next serves them in development (hot reload) and
 * when `API_LANE=0`; in production this lane answers the paths below and Next the rest (pages,
 * server actions, better-auth, Inngest, the minimal `/api/ping` the benchmarks compare with).
 *
 * Why: in an on-sale every shop request (hold, checkout, the PSP's callbacks, webhooks, order
 * reads) paid Next's request handling — routing, a second Web Request, response streams,
 * its AsyncLocalStorage — 1.5–2 ms of a core per request on this machine (BENCHMARKS.md, "The
 * shop step by step"), on top of the handler's own work.
 *
 * What stays the same: the route wrapper does all input parsing, sessions, the origin rule and
 * the error model; the server still resolves the client address, applies the edge rules, runs
 * the request in its RequestScope (Server-Timing, the outage deadline, failures mapped to status).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { NodeRequest } from "srvx/node";

/** A route module's exports, as Next would call them. */
type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
type RouteModule = Partial<Record<"GET" | "POST" | "PUT" | "DELETE" | "PATCH", Handler>>;

/** One route of the lane: its path pattern (each `:name` one decoded segment) and its module's file. */
interface LaneRoute {
  pattern: string;
  /** The route module, relative to the project root (the file Next serves at the same path). */
  file: string;
}

/**
 * The routes this lane serves. Listed, not discovered: a route joins only once it is known to
 * use nothing of Next's (no `next/headers`, no `NextResponse`); ./api-lane.test.ts checks each
 * listed module for imports from `next/` and that its path is the one Next gives the file.
 */
export const LANE_ROUTES: readonly LaneRoute[] = [
  { pattern: "/api/events/:eventId/holds", file: "app/api/events/[eventId]/holds/route.ts" },
  { pattern: "/api/events/:eventId/availability", file: "app/api/events/[eventId]/availability/route.ts" },
  { pattern: "/api/events/:eventId/seat-map", file: "app/api/events/[eventId]/seat-map/route.ts" },
  { pattern: "/api/orders/:orderId", file: "app/api/orders/[orderId]/route.ts" },
  { pattern: "/api/orders/:orderId/checkout", file: "app/api/orders/[orderId]/checkout/route.ts" },
  { pattern: "/api/payments/webhooks/:provider", file: "app/api/payments/webhooks/[provider]/route.ts" },
  { pattern: "/api/admin/events/:eventId/live", file: "app/api/admin/events/[eventId]/live/route.ts" },
  { pattern: "/api/admin/events/:eventId/queue", file: "app/api/admin/events/[eventId]/queue/route.ts" },
  { pattern: "/sandbox-psp/api/checkouts/:id/:action", file: "app/sandbox-psp/api/checkouts/[id]/[action]/route.ts" },
  { pattern: "/sandbox-psp/api/faults", file: "app/sandbox-psp/api/faults/route.ts" },
];

/** A compiled route: its regex and parameter names. */
interface Compiled {
  regex: RegExp;
  names: string[];
  route: LaneRoute;
  module?: Promise<RouteModule>;
}

const compiled: Compiled[] = LANE_ROUTES.map((route) => {
  const names: string[] = [];
  const source = route.pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:([a-zA-Z]+)/g, (_, name: string) => {
    names.push(name);
    return "([^/]+)";
  });
  return { regex: new RegExp(`^${source}$`), names, route };
});

/**
 * Loads every lane route's module now, so the first requests do not. Loaded on first use, a
 * route's module graph (the hold path: orders, inventory, drizzle…) was compiled while the
 * on-sale's first fans waited: the first 5-s window of a 1,000,000-fan run had hold p99s of
 * 580–690 ms against 20–100 ms in the windows after it (BENCHMARKS.md, 2026-12-06, late).
 * @throws when a route's module cannot load (a bug: better at start than at the first fan).
 */
export async function preloadLane(): Promise<void> {
  await Promise.all(compiled.map((c) => (c.module ??= import(/* @vite-ignore */ `@/${c.route.file}`) as Promise<RouteModule>)));
}

/** A request the lane will answer: the handler and the decoded path parameters. */
export interface LaneMatch {
  handler: Handler;
  params: Record<string, string>;
}

/**
 * Finds the lane's handler for a request, loading its module on first use.
 * @param method the HTTP method; HEAD and methods the module does not export are left to Next
 *   (it answers HEAD from GET and 405 with an `Allow` header).
 * @param url the request target (path and query, as Node gives it).
 * @returns the match, or null when Next answers this request.
 */
export async function matchLane(method: string, url: string): Promise<LaneMatch | null> {
  const q = url.indexOf("?");
  const path = q < 0 ? url : url.slice(0, q);
  for (const c of compiled) {
    const m = c.regex.exec(path);
    if (!m) continue;
    const params: Record<string, string> = {};
    try {
      c.names.forEach((name, k) => (params[name] = decodeURIComponent(m[k + 1]!)));
    } catch {
      return null; // a malformed escape: Next's own answer (the edge rules refuse most before this)
    }
    c.module ??= import(/* @vite-ignore */ `@/${c.route.file}`) as Promise<RouteModule>;
    const handler = (await c.module)[method as keyof RouteModule];
    return handler ? { handler, params } : null;
  }
  return null;
}

/**
 * Answers one request through its lane handler: a Web Request over the Node request (srvx's,
 * which reads headers and body lazily), the handler's Response written back as it is.
 * @throws whatever writing the answer throws (the caller answers 500 with a body).
 */
export async function serveLane(req: IncomingMessage, res: ServerResponse, match: LaneMatch): Promise<void> {
  const request = new NodeRequest({ req, res }) as unknown as Request;
  const answer = await match.handler(request, { params: Promise.resolve(match.params) });
  const body = answer.body ? Buffer.from(await answer.arrayBuffer()) : undefined;
  const headers: Record<string, string | string[]> = {};
  answer.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value;
  });
  const cookies = answer.headers.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  if (body) headers["content-length"] = String(body.length);
  res.writeHead(answer.status, headers);
  res.end(body);
}
