/**
 * The simulator's HTTP side: keep-alive connections per lane (undici Clients, per origin,
 * with a connection limit per lane, so concurrency is bounded: the door, the shop, the
 * CDN's edges, the monitor and the outage probes), a cookie jar per fan, and per-endpoint
 * latency and error accounting. Also a tiny CDN model: responses marked
 * `Cache-Control: public, s-maxage=N` are served from an edge cache for N seconds, so
 * fans polling the public queue status cost the origin about one request per second per
 * edge, as behind a real CDN.
 */
import type http from "node:http";
import { Client, util as undiciUtil } from "undici";
import { isDoorPath } from "@/lib/waiting-room/paths";

/** A fan's cookies, name → raw value. */
export type CookieJar = Map<string, string>;

/**
 * The fans' jars, each created on first use: a fan's jar holds the cookies the app set
 * (queue ticket, admission); the session cookies it arrived with come from the FanBook
 * (lib/simulator/sessions.ts) per request, so a million fans do not each keep ~1 kB of them.
 */
export class FanJars {
  private readonly jars: (CookieJar | undefined)[] = [];
  /** Fan `i`'s jar. */
  get(i: number): CookieJar {
    return (this.jars[i] ??= new Map());
  }
}

/**
 * A fan's session cookies, sent when its jar has none of the same name: by name (name → raw
 * value), or already written as a Cookie header's pairs (`"a=1; b=2"`, values without `;`),
 * as the FanBook hands them out (lib/simulator/sessions.ts `FanBook.sessionCookies`) — one
 * string per request instead of an object and a join.
 */
export type SessionCookies = Readonly<Record<string, string>> | string;

/**
 * The `Cookie` header: the jar's cookies (`name=value`, in the jar's order), then each of
 * `fallback`'s that the jar does not have (a cookie the app set wins), joined with `"; "`;
 * undefined when there are none.
 */
export function cookieHeader(jar: CookieJar | undefined, fallback?: SessionCookies): string | undefined {
  let own = "";
  if (jar !== undefined && jar.size > 0) for (const [k, v] of jar) own = own === "" ? `${k}=${v}` : `${own}; ${k}=${v}`;
  if (typeof fallback === "string") {
    if (fallback === "") return own === "" ? undefined : own;
    if (own === "") return fallback;
    // The common case: the app set cookies of other names (queue ticket, admission) than the session's.
    if (!namesShared(jar!, fallback)) return `${own}; ${fallback}`;
    for (const pair of fallback.split("; ")) if (!jar!.has(pair.slice(0, pair.indexOf("=")))) own = `${own}; ${pair}`;
    return own;
  }
  if (fallback !== undefined) for (const k in fallback) if (!jar?.has(k)) own = own === "" ? `${k}=${fallback[k]}` : `${own}; ${k}=${fallback[k]}`;
  return own === "" ? undefined : own;
}

/** Whether `pairs` (`"a=1; b=2"`) has a cookie named like one of `jar`'s, without splitting it. */
function namesShared(jar: CookieJar, pairs: string): boolean {
  for (const name of jar.keys()) {
    for (let at = pairs.indexOf(name); at >= 0; at = pairs.indexOf(name, at + 1)) {
      const starts = at === 0 || (at >= 2 && pairs.charCodeAt(at - 1) === 32 && pairs.charCodeAt(at - 2) === 59); // start, or after "; "
      if (starts && pairs.charCodeAt(at + name.length) === 61) return true; // followed by "="
    }
  }
  return false;
}

/** What one request returned. `status` 0 means the request failed at the network level. */
export interface SimResponse<T = unknown> {
  status: number;
  body: T;
  headers: http.IncomingHttpHeaders;
  ms: number;
  /** Served by the simulated CDN without reaching the origin. */
  cached?: boolean;
}

/** Latencies (ms) and counts of one endpoint. */
export interface EndpointStats {
  count: number;
  /** What the fan saw: from asking to the last byte of the answer, including any wait for a socket. */
  latencies: number[];
  /** The server's own time (`Server-Timing: total`), for answers that carried it. */
  server: number[];
  /** Time spent inside the simulator before the request had a socket (its own queueing). */
  queued: number[];
  /** The server's parts (`Server-Timing`: redis, postgres, session…), ms, for answers that carried them. */
  serverParts: Record<string, number[]>;
  /** When the first and the latest origin request completed (epoch ms), for per-stage rates. */
  firstAt: number;
  lastAt: number;
}

/** Options of a request. */
export interface RequestOptions {
  method?: "GET" | "POST" | "PUT" | "DELETE";
  /** Sent as JSON. */
  body?: unknown;
  /** Sent exactly as given (e.g. a webhook body whose signature covers its bytes); wins over `body`. */
  rawBody?: string;
  jar?: CookieJar;
  /** Cookies sent when the jar has none of that name (a fan's session cookies from the FanBook). */
  session?: SessionCookies;
  /** Extra headers (e.g. x-forwarded-for, authorization). */
  headers?: Record<string, string>;
  /** Endpoint name for the statistics, e.g. "hold". */
  endpoint: string;
  timeoutMs?: number;
  /** Connection pool: "door" (joins, status) or "shop" (everything after admission), so a flood at the door cannot starve admitted fans on the client side. */
  lane?: "door" | "shop" | "monitor" | "edge" | "probe";
  /** Which app instance (index into the base URLs, modulo their number): a sticky load balancer. Default 0. */
  instance?: number;
  /** When the fan asked (performance.now() ms), if before this call: the wait since counts as queued in the simulator. */
  askedAt?: number;
}

/**
 * A first-come-first-served wait for one of `max` sockets, O(1) per request: node's Agent
 * queues a request that finds every socket busy in an array it `shift()`s, which at a
 * million fans' backlog (100,000+ waiting joins) cost the simulator 23 % of its CPU and
 * stalled its event loop for seconds. Requests pass this gate first, so the connections behind it never queue
 * (and the wait here is the simulator's own queueing, reported apart).
 */
class SocketGate {
  private waiting: ((() => void) | undefined)[] = [];
  private head = 0;
  private busy = 0;
  constructor(private readonly max: number) {}

  /** Resolves when a socket is free for the caller (at once when one is). */
  enter(): Promise<void> | undefined {
    if (this.busy < this.max) {
      this.busy++;
      return undefined;
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** The caller's request is done: its socket goes to the longest waiter. */
  leave(): void {
    if (this.head < this.waiting.length) {
      const next = this.waiting[this.head]!;
      this.waiting[this.head++] = undefined;
      if (this.head > 4096 && this.head * 2 > this.waiting.length) {
        this.waiting = this.waiting.slice(this.head);
        this.head = 0;
      }
      next();
    } else this.busy--;
  }
}

/**
 * A lane's keep-alive connections to one origin, each an undici Client with one request at a
 * time, handed out from a stack of idle ones in O(1). undici's Pool finds a free connection by
 * scanning all of them, twice per request: a lane of thousands of sockets paid for it on every
 * request (`npm run bench:crowd`, 4,096 fans asking at once: 2,048 sockets instead of 64 cost
 * ~45 µs more CPU per request through a Pool, ~10 µs here). The lane's gate lets at most `max`
 * requests through, so a request always finds an idle connection here or room to open one.
 */
class Connections {
  private readonly idle: Client[] = [];
  private readonly all: Client[] = [];
  constructor(
    private readonly origin: string,
    private readonly max: number,
  ) {}

  /** An idle connection (the most recently used: its socket is the likeliest still open), or a new one. */
  take(): Client {
    const idle = this.idle.pop();
    if (idle) return idle;
    if (this.all.length >= this.max) throw new Error(`more than ${this.max} requests at once to ${this.origin}: the lane's gate was bypassed`);
    const client = new Client(this.origin, { pipelining: 1, keepAliveTimeout: 30_000 });
    this.all.push(client);
    return client;
  }

  /** `client`'s request is over: it may take the next. */
  give(client: Client): void {
    this.idle.push(client);
  }

  /** Closes every connection (requests in flight fail). */
  destroy(): void {
    for (const client of this.all) void client.destroy().catch(() => {});
  }
}

/** Keep-alive HTTP client with bounded connections, cookie jars and accounting. */
export class SimClient {
  /**
   * Connections per lane: the door's (joins, status), the shop's (everything after admission),
   * the monitor's own two, the outage probes' (their latency is the server's, never a wait for
   * a connection) and the simulated CDN's connections to the origin. undici rather than
   * node:http's Agent: less of the simulator's CPU per request, and the crowd sends a million and a half of them.
   */
  private readonly lanes: Record<Lane, number>;
  /** Each lane's connections, by origin. */
  private readonly pools = new Map<Lane, Map<string, Connections>>();
  readonly stats = new Map<string, EndpointStats>();
  /** Errors by kind: "<endpoint> <status>" or "<endpoint> network:<code>". */
  readonly errors = new Map<string, number>();
  /** Origin requests completed (for req/s). */
  requests = 0;
  /** Fan-side reads answered by the simulated CDN (or, with {@link SimClient.realCdn}, by the real cache in front). */
  cdnHits = 0;
  /**
   * A real caching proxy is in front of the base URL (`npm run stack`'s nginx): public reads go
   * to it as they are, and a hit is what its `X-Cache-Status` says (HIT, STALE, UPDATING).
   */
  realCdn = false;
  private readonly edge = new Map<string, { until: number; res: SimResponse; pending?: Promise<SimResponse> }>();
  /** The app instances' origins (`URL.origin` computes a new string per read: these are read per request). */
  private readonly bases: string[];
  /** The standalone door's origin, when the run has one: the waiting room's paths go there, as a reverse proxy would route them. */
  private readonly door: string | undefined;
  private readonly gates = new Map<Lane, SocketGate>();
  /** Set by an outage run while a dependency is down (lib/simulator/outage.ts). */
  private dependencyDown = false;

  /** Suffix of an endpoint's name for requests begun or answered while a dependency was down. */
  static readonly DURING_OUTAGE = " (dependency down)";

  /**
   * Marks the time while a dependency is down, until every endpoint answers normally again:
   * requests begun or answered in it are counted under "<endpoint> (dependency down)", so that
   * the door's normal latency bound judges the door, and the outage's own bounds (fast 503s,
   * lib/simulator/outage.ts) judge these.
   */
  setDependencyDown(down: boolean): void {
    this.dependencyDown = down;
    this.onDependencyDown?.(down);
  }

  /** Whether {@link SimClient.setDependencyDown} marks a dependency as down now. */
  get isDependencyDown(): boolean {
    return this.dependencyDown;
  }

  /** Told of every {@link SimClient.setDependencyDown} (the simulator passes it on to its crowd process). */
  onDependencyDown?: (down: boolean) => void;

  /**
   * @param baseUrls one app instance's URL, or several (requests pick one by `instance`).
   * @param connections sockets per instance, split between the door and the shop pools.
   * @param doorShare the door's share of them (0–1): the rest stays free for admitted fans, as a
   *   load balancer in front of the door and the shop keeps capacity for the shop.
   * @param doorUrl the standalone door's URL, if the run has one (the waiting room's paths go there).
   * @param doorConnections sockets to the standalone door (then `connections` are all the shop's).
   */
  constructor(baseUrls: string | string[], connections: number, doorShare = 0.5, doorUrl?: string, doorConnections = 256) {
    this.bases = (Array.isArray(baseUrls) ? baseUrls : [baseUrls]).map((u) => new URL(u).origin);
    this.door = doorUrl ? new URL(doorUrl).origin : undefined;
    // With a door process of its own, the door's lane has its own sockets (enough that the
    // simulator's queueing stays small next to the server's); else it shares the app's.
    const door = doorUrl ? doorConnections : Math.max(1, Math.round(connections * doorShare));
    const shop = doorUrl ? connections : Math.max(1, connections - door);
    this.lanes = { door, shop, monitor: 2, probe: 16, edge: 8 };
  }

  /** Counts an error of `kind`. */
  countError(kind: string): void {
    this.errors.set(kind, (this.errors.get(kind) ?? 0) + 1);
  }

  /**
   * Counts one answered request of `endpoint`: what the fan saw (`ms`), the server's own times
   * from its `Server-Timing` header, and the time it waited in the simulator for a socket (`queuedMs`).
   */
  record(endpoint: string, ms: number, serverTiming: string | string[] | undefined, queuedMs: number): void {
    const at = Date.now();
    let s = this.stats.get(endpoint);
    if (!s) this.stats.set(endpoint, (s = { count: 0, latencies: [], server: [], queued: [], serverParts: {}, firstAt: at, lastAt: at }));
    s.count++;
    s.latencies.push(ms);
    s.queued.push(queuedMs);
    if (serverTiming !== undefined) addServerTiming(typeof serverTiming === "string" ? serverTiming : serverTiming.join(","), s);
    s.lastAt = at;
    this.requests++;
  }

  /** The gate in front of a lane's connections. */
  private gateOf(lane: Lane): SocketGate {
    let gate = this.gates.get(lane);
    if (!gate) this.gates.set(lane, (gate = new SocketGate(this.lanes[lane])));
    return gate;
  }

  /** The lane's connections to one origin (as many as the lane has). */
  private poolOf(lane: Lane, origin: string): Connections {
    let byOrigin = this.pools.get(lane);
    if (!byOrigin) this.pools.set(lane, (byOrigin = new Map()));
    let pool = byOrigin.get(origin);
    if (!pool) byOrigin.set(origin, (pool = new Connections(origin, this.lanes[lane])));
    return pool;
  }

  /**
   * One request to the origin, once one of its lane's connections is free. Never rejects for
   * the network: failures come back as status 0 (it rejects only for a request it cannot write,
   * e.g. a body JSON.stringify refuses).
   */
  request<T = unknown>(path: string, opts: RequestOptions): Promise<SimResponse<T>> {
    const started = opts.askedAt ?? performance.now();
    const lane = opts.lane ?? "door";
    const gate = this.gateOf(lane);
    const wait = gate.enter();
    // Not an async function: a request that finds a socket free costs no extra promise.
    if (wait === undefined) return this.send<T>(path, opts, lane, gate, started);
    return wait.then(() => this.send<T>(path, opts, lane, gate, started));
  }

  /** Sends the request on a connection the gate gave it; the gate is left when the answer is in (or failed). */
  private send<T>(path: string, opts: RequestOptions, lane: Lane, gate: SocketGate, started: number): Promise<SimResponse<T>> {
    let exchange: Exchange;
    let dispatch: { path: string; method: string; headers: Record<string, string>; body: string | undefined; headersTimeout: number; bodyTimeout: number };
    try {
      const payload = opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
      const headers: Record<string, string> = { accept: "application/json", ...opts.headers };
      if (payload !== undefined) headers["content-type"] ??= "application/json";
      const cookie = cookieHeader(opts.jar, opts.session);
      if (cookie) headers.cookie = cookie;
      const origin = this.door !== undefined && isDoorPath(path) ? this.door : this.bases[(opts.instance ?? 0) % this.bases.length]!;
      // The gate let this request through: a connection of the lane is free (or is being opened) now.
      const socketAt = performance.now();
      const timeout = opts.timeoutMs ?? 60_000;
      dispatch = { path, method: opts.method ?? "GET", headers, body: payload, headersTimeout: timeout, bodyTimeout: timeout };
      const pool = this.poolOf(lane, origin);
      exchange = new Exchange(this, opts, gate, pool, pool.take(), started, socketAt);
    } catch (e) {
      gate.leave();
      return Promise.reject(e);
    }
    const answer = new Promise<SimResponse>((resolve) => (exchange.resolve = resolve));
    // undici's lowest-level API: no response stream, async resource or extra promises per
    // request (its `request()` builds all three, a third of the simulator's HTTP cost).
    // Errors, synchronous ones included, come back through the handler's onError.
    exchange.connection.dispatch(dispatch, exchange);
    return answer as Promise<SimResponse<T>>;
  }

  /**
   * A public, cacheable GET through the simulated CDN edge `edge`: a fresh cached copy is
   * returned without a request; concurrent misses share one origin request.
   */
  async cachedGet<T = unknown>(path: string, edge: number, endpoint: string, headers?: Record<string, string>): Promise<SimResponse<T>> {
    if (this.realCdn) {
      const res = await this.request<T>(path, { endpoint: `${endpoint} (through the cache)`, headers, lane: "edge", instance: edge });
      const cached = /^(HIT|STALE|UPDATING|REVALIDATED)$/i.test(String(res.headers["x-cache-status"] ?? ""));
      if (cached) this.cdnHits++;
      return withCached(res, cached);
    }
    const key = `${edge}:${path}`;
    const now = Date.now();
    const hit = this.edge.get(key);
    if (hit && hit.until > now) {
      this.cdnHits++;
      return withCached(hit.res as SimResponse<T>, true);
    }
    if (hit?.pending) {
      this.cdnHits++;
      return withCached((await hit.pending) as SimResponse<T>, true);
    }
    // The edge's own connections to the origin: a CDN's fetches do not queue behind fans' joins.
    const pending = this.request<T>(path, { endpoint, headers, lane: "edge", instance: edge });
    this.edge.set(key, { until: 0, res: hit?.res ?? ({ status: 0, body: null, headers: {}, ms: 0 } as SimResponse), pending: pending as Promise<SimResponse> });
    const res = await pending;
    const maxAge = /s-maxage=(\d+)/.exec(String(res.headers["cache-control"] ?? ""))?.[1];
    this.edge.set(key, { until: res.status === 200 && maxAge ? Date.now() + Number(maxAge) * 1000 : 0, res: res as SimResponse });
    return res;
  }

  /** Closes every connection (requests still in flight fail). */
  close(): void {
    for (const byOrigin of this.pools.values()) for (const pool of byOrigin.values()) pool.destroy();
    this.pools.clear();
  }
}

/** A copy of `res` marked `cached` (its fields read one by one: an {@link Answer}'s headers are a getter, which a spread would drop). */
const withCached = <T>(res: SimResponse<T>, cached: boolean): SimResponse<T> => ({ status: res.status, body: res.body, headers: res.headers, ms: res.ms, cached });

/** A lane of connections (see {@link RequestOptions.lane}). */
type Lane = NonNullable<RequestOptions["lane"]>;

/**
 * One request in flight, as undici's dispatch handler: it keeps the status, the raw headers and
 * the body's chunks, and when the last byte is in, accounts for the answer (latency, Server-Timing,
 * errors), applies Set-Cookie to the fan's jar, leaves the lane's gate and resolves — what
 * `pool.request()` + `body.text()` did, without a stream per response. A class, not closures:
 * five functions per request were allocations of their own.
 */
class Exchange {
  resolve: ((r: SimResponse) => void) | undefined;
  private status = 0;
  private rawHeaders: Buffer[] | null = null;
  private chunks: Buffer[] | null = null;
  private bytes = 0;
  private settled = false;
  /** A dependency was down when the request began (then it counts under "(dependency down)" whatever happens meanwhile). */
  private readonly downAtStart: boolean;

  constructor(
    private readonly client: SimClient,
    private readonly opts: RequestOptions,
    private readonly gate: SocketGate,
    private readonly pool: Connections,
    /** The connection it is sent on (given back to `pool` when the answer is in). */
    readonly connection: Client,
    /** When the fan asked (performance.now() ms). */
    private readonly started: number,
    /** When the gate gave it a connection (performance.now() ms). */
    private readonly socketAt: number,
  ) {
    this.downAtStart = client.isDependencyDown;
  }

  onConnect(): void {}

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    // 1xx informational answers come first, and are not the answer.
    if (statusCode >= 200) {
      this.status = statusCode;
      this.rawHeaders = rawHeaders;
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    (this.chunks ??= []).push(chunk);
    this.bytes += chunk.length;
    return true;
  }

  onComplete(): void {
    if (this.settled) return;
    this.settled = true;
    const ms = performance.now() - this.started;
    const endpoint = this.endpoint();
    const raw = this.rawHeaders ?? [];
    this.client.record(endpoint, ms, rawHeader(raw, "server-timing"), this.socketAt - this.started);
    const setCookie = this.opts.jar ? rawHeader(raw, "set-cookie") : undefined;
    if (setCookie) updateJar(this.opts.jar!, setCookie);
    const text = bodyText(this.chunks, this.bytes);
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // not JSON (an HTML error page): keep the text
    }
    const status = this.status;
    if (status >= 400) {
      // Errors by kind: the status, and the server's stable reason code when it gives one (e.g. "hold 409 seat_taken").
      const code = body !== null && typeof body === "object" && typeof (body as { code?: unknown }).code === "string" ? ` ${(body as { code: string }).code}` : "";
      this.client.countError(`${endpoint} ${status}${code}`);
    }
    this.pool.give(this.connection);
    this.gate.leave();
    this.resolve!(new Answer(status, body, raw, ms));
  }

  onError(e: Error): void {
    if (this.settled) return;
    this.settled = true;
    const err = e as NodeJS.ErrnoException;
    const code = err.code === "UND_ERR_HEADERS_TIMEOUT" || err.code === "UND_ERR_BODY_TIMEOUT" ? "TIMEOUT" : (err.code ?? err.message);
    this.client.countError(`${this.endpoint()} network:${code}`);
    this.pool.give(this.connection);
    this.gate.leave();
    // (`resolve` is set before dispatch(), which may call this at once.)
    this.resolve!({ status: 0, body: null, headers: {}, ms: performance.now() - this.started });
  }

  /** The endpoint's name for the statistics: marked when a dependency was down as it began or as it ended. */
  private endpoint(): string {
    return this.downAtStart || this.client.isDependencyDown ? `${this.opts.endpoint}${SimClient.DURING_OUTAGE}` : this.opts.endpoint;
  }
}

/**
 * A response as {@link SimResponse}: its headers are parsed (as undici's `request()` parses
 * them) when first read. Most of the crowd's answers are never asked for a header — the client
 * itself reads only Server-Timing and Set-Cookie ({@link rawHeader}) — and parsing them all was
 * ~3 % of the simulator's CPU per request.
 */
class Answer<T = unknown> implements SimResponse<T> {
  private parsed: http.IncomingHttpHeaders | undefined;
  constructor(
    readonly status: number,
    readonly body: T,
    private readonly raw: Buffer[],
    readonly ms: number,
  ) {}

  get headers(): http.IncomingHttpHeaders {
    return (this.parsed ??= undiciUtil.parseHeaders(this.raw) as http.IncomingHttpHeaders);
  }
}

/**
 * The value of header `name` (lowercase) among undici's raw headers (name, value, name, value…):
 * undefined when absent, a string when once, the values in order when repeated — what
 * undici's parseHeaders gives for it.
 */
function rawHeader(raw: Buffer[], name: "server-timing" | "set-cookie"): string | string[] | undefined {
  let out: string | string[] | undefined;
  for (let k = 0; k < raw.length; k += 2) {
    const key = raw[k]!;
    if (key.length !== name.length || undiciUtil.headerNameToString(key) !== name) continue;
    const value = raw[k + 1]!.toString("latin1");
    out = out === undefined ? value : typeof out === "string" ? [out, value] : [...out, value];
  }
  return out;
}

/** A response body's text (UTF-8, a leading byte-order mark dropped), as undici's `body.text()` reads it. */
function bodyText(chunks: Buffer[] | null, bytes: number): string {
  if (chunks === null || bytes === 0) return "";
  const buffer = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, bytes);
  const start = buffer.length > 2 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf ? 3 : 0;
  return buffer.toString("utf8", start);
}

/**
 * Adds the parts of a `Server-Timing` header to `into`: `total` to `into.server`, every other
 * `name;dur=ms` to `into.serverParts[name]` (ms). Reads exactly what the global regex
 * `/([a-z]+);dur=([\d.]+)/g` matches (a lowercase name right before `;dur=`, digits and dots
 * after it, `Number` of those), scanning for `;dur=` instead: the regex's matchAll was ~3 µs of
 * every request, and the crowd sends millions.
 */
export function addServerTiming(header: string, into: { server: number[]; serverParts: Record<string, number[]> }): void {
  for (let at = header.indexOf(";dur="); at >= 0; at = header.indexOf(";dur=", at + 1)) {
    let from = at;
    while (from > 0 && isLowerLetter(header.charCodeAt(from - 1))) from--;
    if (from === at) continue;
    let to = at + 5;
    while (to < header.length && isDigitOrDot(header.charCodeAt(to))) to++;
    if (to === at + 5) continue;
    const name = header.slice(from, at);
    const ms = Number(header.slice(at + 5, to));
    if (name === "total") into.server.push(ms);
    else (into.serverParts[name] ??= []).push(ms);
    at = to - 1;
  }
}

const isLowerLetter = (c: number) => c >= 97 && c <= 122;
const isDigitOrDot = (c: number) => (c >= 48 && c <= 57) || c === 46;

/**
 * Applies Set-Cookie headers to a jar (deletions included): a cookie whose value is empty, whose
 * `Max-Age` is ≤ 0 or whose `Expires` has passed is removed; any other is set (name → value,
 * both trimmed). Attributes are read as `name=value` up to the next `=` (so `Max-Age=` reads as 0).
 */
export function updateJar(jar: CookieJar, setCookie: string | string[]): void {
  if (typeof setCookie === "string") applySetCookie(jar, setCookie);
  else for (const line of setCookie) applySetCookie(jar, line);
}

/** `Date.parse`, remembering the last date: the door's cookies of one second share their `Expires`, and parsing one costs more than the rest of the line. */
function parseDate(text: string): number {
  if (text !== lastDate.text) lastDate = { text, ms: Date.parse(text) };
  return lastDate.ms;
}
let lastDate = { text: "", ms: Date.parse("") };

function applySetCookie(jar: CookieJar, line: string): void {
  const semi = line.indexOf(";");
  const pair = semi < 0 ? line : line.slice(0, semi);
  const eq = pair.indexOf("=");
  if (eq < 0) return;
  const name = pair.slice(0, eq).trim();
  const value = pair.slice(eq + 1).trim();
  let expired = false;
  for (let from = semi + 1; semi >= 0 && !expired; ) {
    const end = line.indexOf(";", from);
    const attr = end < 0 ? line.slice(from) : line.slice(from, end);
    const aeq = attr.indexOf("=");
    if (aeq >= 0) {
      const k = attr.slice(0, aeq).trim().toLowerCase();
      if (k === "max-age" || k === "expires") {
        const next = attr.indexOf("=", aeq + 1);
        const v = (next < 0 ? attr.slice(aeq + 1) : attr.slice(aeq + 1, next)).trim();
        expired = k === "max-age" ? Number(v) <= 0 : parseDate(v) <= Date.now();
      }
    }
    if (end < 0) break;
    from = end + 1;
  }
  if (expired || value === "") jar.delete(name);
  else jar.set(name, value);
}
