/**
 * StarArena's HTTP server: Next.js behind a thin Node front (docs/adr/0013). Everything that
 * serves the app — `npm start`, `npm run serve`, the e2e server, the on-sale simulator's
 * instances, the benchmarks — runs this, never bare `next start`, because only here is the
 * TCP peer visible and only here can a request be answered before Next turns it into a 500.
 *
 * Per request, before Next:
 *  1. the client address is resolved from the socket and TRUSTED_PROXY_HOPS and written into
 *     `x-stararena-client-ip`, replacing whatever the caller sent (lib/client-ip.ts);
 *  2. the edge rules (lib/http/edge.ts): malformed or control-character paths → 400, server
 *     actions from foreign origins → 403, answered with the one error model; a page opened at
 *     another loopback name of a local APP_URL → 307 to APP_URL (lib/http/edge.ts `loopbackRedirect`); then, with
 *     DOOR_URL set, the waiting room's paths go to the standalone door (scripts/door.ts) as they came;
 *     in production the app's JSON routes are answered by their handlers directly, without Next's
 *     router (the API lane, ./lib/api-lane.ts, docs/adr/0022; `API_LANE=0` leaves them to Next);
 *  3. the request runs inside a RequestScope (lib/request-scope.ts): when Next fails it
 *     with an error we understand (a dependency outage, an undecodable action payload), the
 *     500 Next was about to send becomes that error's status (503 + Retry-After, 400);
 *  4. its answer carries `Server-Timing` (total to the first byte, time on Redis and Postgres);
 *  5. it is bounded in time: 1 s while Postgres or Redis is known to be in trouble (a probe asks
 *     both every second), REQUEST_TIMEOUT_MS otherwise; past that it gets a 503 with a body.
 *
 * Flags: `--dev` (Next's development server), `-p PORT` (PORT, 3000), `-H HOST` (HOST, or
 * 127.0.0.1 for a loopback APP_URL, else 0.0.0.0). It exits when its parent process goes
 * away (an IPC channel closing: scripts/lib/processes.ts), so it is never left orphaned.
 */
import { randomUUID } from "node:crypto";
import { Agent, createServer, IncomingMessage, request as httpRequest, type ServerResponse } from "node:http";
import next from "next";
import { matchLane, preloadLane, serveLane, type LaneMatch } from "./lib/api-lane";
import { serverSettings } from "./lib/server-settings";
import { exitWithParent } from "./lib/processes";
import { CLIENT_IP_HEADER, resolveClientIp } from "@/lib/client-ip";
import { appOrigins } from "@/lib/env";
import { troubledDependency, type Dependency } from "@/lib/dependency-state";
import { AppError, asAppError, OUTAGE_RETRY_AFTER_SECONDS, postgresUnavailable, RedisUnavailableError, toErrorResponse } from "@/lib/errors";
import { checkHealth } from "@/lib/health";
import { localeOfRequest } from "@/lib/i18n/config";
import { actionBodyRefusal, edgeRefusal, isActionRequest, loopbackRedirect, MAX_ACTION_BODY_BYTES, wantsJson } from "@/lib/http/edge";
import { requestScopes, type RequestScope } from "@/lib/request-scope";
import { isDoorPath } from "@/lib/waiting-room/paths";

const { e, argv, port, host } = serverSettings((env) => env.PORT);
const dev = argv.includes("--dev");
const origins = appOrigins(e);
const hops = e.TRUSTED_PROXY_HOPS;
/**
 * How long a request may wait while a dependency is troubled (ms): "a fast 503" — answered within
 * 2 s as the fan sees it (lib/simulator/outage.ts OUTAGE_ANSWER_MS) — not a hang. 1 s leaves the
 * other second to a busy machine: at 1.5 s, on the slowest host (2 × AMD EPYC, 2026-12-07 CI), an
 * answer the server finished in 1.4 s reached the simulator after 2.04 s.
 */
const TROUBLE_DEADLINE_MS = 1_000;

/** A page a person reads when the server refuses a request before the app (no layout: the app never ran). */
function refusalPage(error: AppError): string {
  const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>StarArena</title></head><body style="font-family:system-ui,sans-serif;background:#0b0b14;color:#fff;padding:2rem;max-width:40rem;margin:auto"><h1>${error.status === 503 ? "We're having trouble" : "We can't open this address"}</h1><p>${esc(error.message)}</p><p><a style="color:#a5b4fc" href="/">Back to StarArena</a></p></body></html>`;
}

/** Answers `error` in JSON (API callers, server actions) or as a small page. */
async function refuse(req: IncomingMessage, res: ServerResponse, error: AppError): Promise<void> {
  const requestId = randomUUID();
  if (wantsJson(req)) {
    const r = toErrorResponse(error, requestId, localeOfRequest({ get: (name) => [req.headers[name] ?? null].flat()[0] ?? null }));
    res.writeHead(r.status, Object.fromEntries(r.headers));
    res.end(await r.text());
    return;
  }
  res.writeHead(error.status, { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", "X-Request-Id": requestId, ...(error.retryAfter ? { "Retry-After": String(error.retryAfter) } : {}) });
  res.end(refusalPage(error));
}

/**
 * Makes the status Next writes follow what failed the request: a 500 (or an action's 200
 * carrying an error) whose cause `scope` recorded becomes that cause's status.
 */
function followFailures(req: IncomingMessage, res: ServerResponse, scope: RequestScope): void {
  const isAction = req.headers["next-action"] !== undefined;
  const started = performance.now();
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = ((status: number, ...rest: unknown[]) => {
    // The server's own time for this answer, to its first byte, and its waits on Redis and Postgres
    // (lib/request-scope.ts); the door's handler writes its own.
    if (!res.headersSent && !res.hasHeader("server-timing")) {
      const t = scope.timings;
      const hold = t?.hold === undefined ? "" : `, hold;dur=${t.hold.toFixed(2)}`;
      res.setHeader("Server-Timing", `total;dur=${(performance.now() - started).toFixed(2)}, redis;dur=${(t?.redis ?? 0).toFixed(2)}, postgres;dur=${(t?.postgres ?? 0).toFixed(2)}${hold}`);
    }
    // A fan page answers in the language proxy.ts chose from the cookie or Accept-Language (it
    // says which in Content-Language): a shared cache must key on them. Next writes its own Vary
    // over the proxy's, so it is added here (docs/adr/0018).
    if (!res.headersSent && res.hasHeader("content-language")) {
      const vary = String(res.getHeader("vary") ?? "");
      if (!/accept-language/i.test(vary)) res.setHeader("Vary", vary ? `${vary}, Accept-Language, Cookie` : "Accept-Language, Cookie");
    }
    const failure = scope.failure;
    if (failure && (status >= 500 || (isAction && status === 200))) {
      status = failure.status;
      if (failure.retryAfter !== undefined && !res.headersSent) res.setHeader("Retry-After", String(Math.max(1, Math.ceil(failure.retryAfter))));
      res.setHeader("Cache-Control", "no-store");
    }
    return writeHead(status, ...rest);
  }) as typeof res.writeHead;
}

/** Reads a request's whole body, up to `limit` bytes (+1, so an oversized body is seen as such). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit + 1) chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** The same request with its body already read: what Next reads instead of the consumed original. */
function withBody(req: IncomingMessage, body: Buffer): IncomingMessage {
  const copy = new IncomingMessage(req.socket);
  Object.assign(copy, { method: req.method, url: req.url, headers: req.headers, rawHeaders: req.rawHeaders, httpVersion: req.httpVersion, httpVersionMajor: req.httpVersionMajor, httpVersionMinor: req.httpVersionMinor });
  // `complete` as the HTTP parser would set it: otherwise Node takes the copy's end for an
  // aborted upload and destroys the socket under the response.
  copy.complete = true;
  copy.push(body);
  copy.push(null);
  return copy;
}

/**
 * What a request stuck past its deadline is told. The trouble is already known, so it is not
 * renewed: a request slow only because the cores are saturated must not keep a healthy dependency
 * called down (the feedback lib/db.ts `noteTimeout` describes).
 */
function stuck(dependency: Dependency | null): AppError {
  if (dependency === "redis") return new RedisUnavailableError("a request waited on it past the outage deadline", { knownTrouble: true });
  if (dependency === "postgres") return postgresUnavailable("a request waited on it past the outage deadline", { knownTrouble: true });
  return new AppError("unavailable", "timeout", "This is taking too long on our side. Nothing was lost: please try again in a few seconds.", { retryAfter: OUTAGE_RETRY_AFTER_SECONDS });
}

/**
 * Bounds how long a request may wait without an answer: {@link TROUBLE_DEADLINE_MS} while a
 * dependency is troubled (lib/dependency-state.ts), REQUEST_TIMEOUT_MS otherwise. Past it the
 * server answers 503 itself and Next's late answer is dropped; the work already under way
 * finishes or fails in its own transaction (holds are idempotent by key), so nothing is half-written.
 */
function bound(req: IncomingMessage, res: ServerResponse): void {
  const started = Date.now();
  let timer: NodeJS.Timeout;
  const check = () => {
    if (res.headersSent || res.writableEnded) return;
    const elapsed = Date.now() - started;
    const dependency = troubledDependency();
    if ((dependency && elapsed >= TROUBLE_DEADLINE_MS) || elapsed >= e.REQUEST_TIMEOUT_MS) {
      const error = stuck(dependency);
      void refuse(req, res, error).then(() => {
        // Next still holds `res`: whatever it writes later goes nowhere.
        const ignore = (() => res) as never;
        Object.assign(res, { writeHead: ignore, setHeader: ignore, removeHeader: ignore, write: () => true, end: ignore, flushHeaders: ignore });
      });
      return;
    }
    // Looked at again soon: a request that began as the dependency died learns of it only when
    // the probe (or another request) notes the failure, and its 503 must still come within 2 s.
    timer = setTimeout(check, 100);
  };
  timer = setTimeout(check, TROUBLE_DEADLINE_MS);
  res.on("close", () => clearTimeout(timer));
}

/**
 * Runs one request inside its RequestScope: Server-Timing and failures mapped to their status
 * (followFailures), the deadline (bound), and a last-resort answer with a body.
 * @param serve Next's handler, or a lane handler (./lib/api-lane.ts).
 */
function scoped(req: IncomingMessage, res: ServerResponse, serve: () => Promise<unknown>): void {
  const scope: RequestScope = { startedAt: performance.now() };
  followFailures(req, res, scope);
  bound(req, res);
  requestScopes().run(scope, () => {
    serve().catch((error: unknown) => {
      // Next and the route wrapper handle their own errors; this is the last resort, still with a body.
      console.error("[serve] request failed", error);
      if (!res.headersSent) void refuse(req, res, asAppError(error) ?? new AppError("internal", "internal", "Something went wrong on our side. Please try again in a moment."));
      else res.end();
    });
  });
}

/** Hands one request to Next inside its RequestScope. */
function toNext(req: IncomingMessage, res: ServerResponse): void {
  scoped(req, res, () => handle(req, res));
}

/** Answers one request with its lane handler inside its RequestScope. */
function toLane(req: IncomingMessage, res: ServerResponse, match: LaneMatch): void {
  scoped(req, res, () => serveLane(req, res, match));
}

/**
 * The API lane is on in production unless `API_LANE=0` (the benchmarks' Next-served reference);
 * in development Next serves everything, so edits reload.
 */
const lane = !dev && process.env.API_LANE !== "0";

// `hostname` is only the origin Next resolves the proxy's rewrites against, not where we listen:
// Next's request URL always names a loopback host "localhost" (NextURL), so with "127.0.0.1" or
// "0.0.0.0" here every rewrite of proxy.ts (the locale, unknown shows) reads as a different origin
// and is proxied as an external URL ("Failed to proxy … socket hang up"). The server binds `host`.
const app = next({ dev, hostname: "localhost", port, dir: process.cwd(), turbopack: dev ? true : undefined });
const handle = app.getRequestHandler();
await app.prepare();
// The lane's route modules are loaded before the server listens (./lib/api-lane.ts `preloadLane`).
if (lane) await preloadLane();

/** The standalone door (scripts/door.ts) this server forwards the waiting room's paths to, when DOOR_URL is set. */
const door = e.DOOR_URL ? new URL(e.DOOR_URL) : undefined;
const doorAgent = new Agent({ keepAlive: true, maxSockets: 256 });

/**
 * Hands a waiting-room request to the door as it came, with the client address this server
 * resolved as the one X-Forwarded-For entry (the door trusts exactly one hop: scripts/start.ts).
 * A door that does not answer is a 503 with a body, like any dependency.
 */
function toDoor(req: IncomingMessage, res: ServerResponse, target: URL): void {
  const headers: Record<string, string | string[] | undefined> = { ...req.headers, "x-forwarded-for": String(req.headers[CLIENT_IP_HEADER]) };
  delete headers[CLIENT_IP_HEADER];
  const upstream = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent: doorAgent, timeout: e.REQUEST_TIMEOUT_MS }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  const unavailable = () => {
    if (res.headersSent) return void res.destroy();
    void refuse(req, res, new AppError("unavailable", "door_unavailable", "The waiting room is not answering right now. Your place is kept: please try again in a few seconds.", { retryAfter: OUTAGE_RETRY_AFTER_SECONDS }));
  };
  upstream.on("timeout", () => upstream.destroy(new Error("door timeout")));
  upstream.on("error", unavailable);
  req.pipe(upstream);
}

const server = createServer((req, res) => {
  req.headers[CLIENT_IP_HEADER] = resolveClientIp(req.socket.remoteAddress, req.headers["x-forwarded-for"], hops);
  const refusal = edgeRefusal(req, origins);
  if (refusal) {
    void refuse(req, res, refusal);
    return;
  }
  // Local development: a page opened at 127.0.0.1 moves to APP_URL's loopback name, where the fan's sign-in lives (lib/http/edge.ts).
  const canonical = loopbackRedirect(req, e.APP_URL);
  if (canonical) {
    res.writeHead(307, { location: canonical, "cache-control": "no-store" }).end();
    return;
  }
  if (door && isDoorPath(req.url ?? "")) {
    toDoor(req, res, door);
    return;
  }
  // A server action's arguments are checked before Next decodes them (lib/http/edge.ts).
  if (isActionRequest(req)) {
    readBody(req, MAX_ACTION_BODY_BYTES).then(
      (body) => {
        const bad = actionBodyRefusal(req.headers["content-type"], body);
        if (bad) return void refuse(req, res, bad);
        toNext(withBody(req, body), res);
      },
      () => res.destroy(),
    );
    return;
  }
  if (!lane) return toNext(req, res);
  matchLane(req.method ?? "GET", req.url ?? "/").then(
    (match) => (match ? toLane(req, res, match) : toNext(req, res)),
    (error: unknown) => {
      console.error("[serve] loading an API route failed", error);
      void refuse(req, res, new AppError("internal", "internal", "Something went wrong on our side. Please try again in a moment."));
    },
  );
});

server.on("error", (error: NodeJS.ErrnoException) => {
  console.error(error.code === "EADDRINUSE" ? `\n✗ port ${port} on ${host} is in use: is another StarArena (or something else) running there?\n` : error);
  process.exit(1);
});
server.listen(port, host, () => console.log(`▶ StarArena ${dev ? "(development) " : ""}listening on http://${host}:${port}`));

// Once a second, both dependencies are asked (bounded: lib/health.ts), so a dead or stalled one
// is known here within about a second even before any request fails on it.
const probe = setInterval(() => void checkHealth().catch(() => {}), 1_000);
probe.unref();

let closing = false;
async function shutdown(code: number) {
  if (closing) return;
  closing = true;
  server.close();
  server.closeIdleConnections();
  setTimeout(() => process.exit(code), 5_000).unref();
  await app.close().catch(() => {});
  process.exit(code);
}
process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));
exitWithParent(() => void shutdown(0));
