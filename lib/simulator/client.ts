/**
 * The simulator's HTTP side: keep-alive connection pools per lane (undici Pools, one per
 * origin, with a connection limit per lane, so concurrency is bounded: the door, the shop, the
 * CDN's edges, the monitor and the outage probes), a cookie jar per fan, and per-endpoint
 * latency and error accounting. Also a tiny CDN model: responses marked
 * `Cache-Control: public, s-maxage=N` are served from an edge cache for N seconds, so
 * fans polling the public queue status cost the origin about one request per second per
 * edge, as behind a real CDN.
 */
import type http from "node:http";
import { Pool } from "undici";
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

/** The `Cookie` header: the jar's cookies, then each of `fallback`'s that the jar does not have (a cookie the app set wins). */
export function cookieHeader(jar: CookieJar | undefined, fallback?: Record<string, string>): string | undefined {
  const parts: string[] = [];
  for (const [k, v] of jar ?? []) parts.push(`${k}=${v}`);
  for (const [k, v] of Object.entries(fallback ?? {})) if (!jar?.has(k)) parts.push(`${k}=${v}`);
  return parts.length > 0 ? parts.join("; ") : undefined;
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
  session?: Record<string, string>;
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
 * stalled its event loop for seconds. Requests pass this gate first, so the pool behind it never queues
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

/** Keep-alive HTTP client with bounded connections, cookie jars and accounting. */
export class SimClient {
  /**
   * Connections per lane: the door's (joins, status), the shop's (everything after admission),
   * the monitor's own two, the outage probes' (their latency is the server's, never a wait for
   * a connection) and the simulated CDN's connections to the origin. undici rather than
   * node:http's Agent: less of the simulator's CPU per request, and the crowd sends a million and a half of them.
   */
  private readonly lanes: Record<NonNullable<RequestOptions["lane"]>, number>;
  private readonly pools = new Map<string, Pool>();
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
  private readonly bases: URL[];
  /** The standalone door, when the run has one: the waiting room's paths go there, as a reverse proxy would route them. */
  private readonly door: URL | undefined;
  private readonly gates = new Map<string, SocketGate>();
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
    this.bases = (Array.isArray(baseUrls) ? baseUrls : [baseUrls]).map((u) => new URL(u));
    this.door = doorUrl ? new URL(doorUrl) : undefined;
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

  private record(endpoint: string, ms: number, serverTiming: string | string[] | undefined, queuedMs: number): void {
    const at = Date.now();
    let s = this.stats.get(endpoint);
    if (!s) this.stats.set(endpoint, (s = { count: 0, latencies: [], server: [], queued: [], serverParts: {}, firstAt: at, lastAt: at }));
    s.count++;
    s.latencies.push(ms);
    s.queued.push(queuedMs);
    for (const [, name, dur] of String(serverTiming ?? "").matchAll(/([a-z]+);dur=([\d.]+)/g)) {
      if (name === "total") s.server.push(Number(dur));
      else (s.serverParts[name!] ??= []).push(Number(dur));
    }
    s.lastAt = at;
    this.requests++;
  }

  /** The gate in front of a lane's connections. */
  private gateOf(lane: keyof SimClient["lanes"]): SocketGate {
    let gate = this.gates.get(lane);
    if (!gate) this.gates.set(lane, (gate = new SocketGate(this.lanes[lane])));
    return gate;
  }

  /** The lane's pool to one origin (as many connections as the lane has). */
  private poolOf(lane: keyof SimClient["lanes"], origin: string): Pool {
    const key = `${lane} ${origin}`;
    let pool = this.pools.get(key);
    if (!pool) this.pools.set(key, (pool = new Pool(origin, { connections: this.lanes[lane], pipelining: 1, keepAliveTimeout: 30_000 })));
    return pool;
  }

  /** One request to the origin, once one of its lane's connections is free. Never throws: network failures come back as status 0. */
  async request<T = unknown>(path: string, opts: RequestOptions): Promise<SimResponse<T>> {
    const started = opts.askedAt ?? performance.now();
    const lane = opts.lane ?? "door";
    const gate = this.gateOf(lane);
    await gate.enter();
    try {
      return await this.send<T>(path, opts, lane, started);
    } finally {
      gate.leave();
    }
  }

  private async send<T>(path: string, opts: RequestOptions, lane: keyof SimClient["lanes"], started: number): Promise<SimResponse<T>> {
    const downAtStart = this.dependencyDown;
    const endpointNow = () => (downAtStart || this.dependencyDown ? `${opts.endpoint}${SimClient.DURING_OUTAGE}` : opts.endpoint);
    const payload = opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
    const headers: Record<string, string> = { accept: "application/json", ...opts.headers };
    if (payload !== undefined) headers["content-type"] ??= "application/json";
    const cookie = cookieHeader(opts.jar, opts.session);
    if (cookie) headers.cookie = cookie;
    const base = this.door && isDoorPath(path) ? this.door : this.bases[(opts.instance ?? 0) % this.bases.length]!;
    // The gate let this request through: a connection of the lane is free (or is being opened) now.
    const socketAt = performance.now();
    const timeout = opts.timeoutMs ?? 60_000;
    try {
      const res = await this.poolOf(lane, base.origin).request({ path, method: opts.method ?? "GET", headers, body: payload, headersTimeout: timeout, bodyTimeout: timeout });
      const text = await res.body.text();
      const ms = performance.now() - started;
      const endpoint = endpointNow();
      const resHeaders = res.headers as http.IncomingHttpHeaders;
      this.record(endpoint, ms, resHeaders["server-timing"], socketAt - started);
      const setCookie = resHeaders["set-cookie"];
      if (opts.jar && setCookie) updateJar(opts.jar, Array.isArray(setCookie) ? setCookie : [setCookie]);
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        // not JSON (an HTML error page): keep the text
      }
      const status = res.statusCode;
      // Errors by kind: the status, and the server's stable reason code when it gives one (e.g. "hold 409 seat_taken").
      const code = status >= 400 && body !== null && typeof body === "object" && typeof (body as { code?: unknown }).code === "string" ? ` ${(body as { code: string }).code}` : "";
      if (status >= 400) this.countError(`${endpoint} ${status}${code}`);
      return { status, body: body as T, headers: resHeaders, ms };
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      const code = err.code === "UND_ERR_HEADERS_TIMEOUT" || err.code === "UND_ERR_BODY_TIMEOUT" ? "TIMEOUT" : (err.code ?? err.message);
      this.countError(`${endpointNow()} network:${code}`);
      return { status: 0, body: null as T, headers: {}, ms: performance.now() - started };
    }
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
      return { ...res, cached };
    }
    const key = `${edge}:${path}`;
    const now = Date.now();
    const hit = this.edge.get(key);
    if (hit && hit.until > now) {
      this.cdnHits++;
      return { ...(hit.res as SimResponse<T>), cached: true };
    }
    if (hit?.pending) {
      this.cdnHits++;
      return { ...((await hit.pending) as SimResponse<T>), cached: true };
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
    for (const pool of this.pools.values()) void pool.destroy().catch(() => {});
    this.pools.clear();
  }
}

/** Applies Set-Cookie headers to a jar (deletions included). */
function updateJar(jar: CookieJar, setCookie: string[] | undefined): void {
  for (const line of setCookie ?? []) {
    const [pair, ...attrs] = line.split(";");
    const eq = pair!.indexOf("=");
    if (eq < 0) continue;
    const name = pair!.slice(0, eq).trim();
    const value = pair!.slice(eq + 1).trim();
    const expired = attrs.some((a) => {
      const [k, v] = a.split("=").map((s) => s.trim());
      if (k?.toLowerCase() === "max-age") return Number(v) <= 0;
      if (k?.toLowerCase() === "expires") return Date.parse(v ?? "") <= Date.now();
      return false;
    });
    if (expired || value === "") jar.delete(name);
    else jar.set(name, value);
  }
}
