/**
 * The door: the waiting room's HTTP surface — join, public status, the fan's own status and
 * leaving — as one Web-standard handler, `Request → Response` (docs/adr/0014). It imports no
 * Next.js and no Node API (the layering check enforces it: .dependency-cruiser.cjs,
 * "door-is-portable"), so the same code runs
 *  - inside the Next app, as the route handlers of /api/events/:id/queue and /queue/me
 *    (lib/door/app.ts; the default deployment);
 *  - as its own small Node process for high rates (scripts/door.ts, `npm run door`);
 *  - at an edge runtime with Upstash REST.
 *
 * Per request it does what the route wrapper (lib/http/route.ts) does for other routes —
 * the same-origin rule for writes, the signed-in fan, the one error model — and no more:
 *  - the session from better-auth's signed cookie cache (lib/auth/cookie-cache.ts), with a
 *    fallback the deployment provides (the app asks better-auth, i.e. Postgres);
 *  - a join is one Redis call, the per-address limit inside it (lib/waiting-room/lua.ts JOIN);
 *  - a retried join or own-status read from a fan whose queue ticket (lib/waiting-room/ticket.ts)
 *    proves it is still waiting is answered from the ticket and the public status: no Redis write;
 *  - a ticket of another generation (Redis lost the queue), or of a place Redis lost, goes with the
 *    fan's join or status read to Redis, which re-seats the fan by it in the same call; every call
 *    also names the generation this process last saw for the event, so the script that makes a
 *    new one after a loss knows it and holds the serving counter while old fans come back
 *    (docs/adr/0028);
 *  - the public status is computed at most once per {@link STATUS_MEMO_MS} per event in this
 *    process (it is cacheable for a second by any CDN anyway), limited per address in memory;
 *  - `Server-Timing` on every answer: total, session, redis (ms);
 *  - public status reads that reach it are counted per event and second (./origin-reads.ts).
 */
import type { SessionUser } from "@/lib/auth/user";
import { cookieValue, userFromCookieCache } from "@/lib/auth/cookie-cache";
import { clientIp } from "@/lib/client-ip";
import { AppError, asAppError, RateLimitedError, RedisUnavailableError, toErrorResponse } from "@/lib/errors";
import { localeOfRequest } from "@/lib/i18n/config";
import { PRIVATE_NO_STORE, publicCache } from "@/lib/http/cache";
import { crossOriginRefusal } from "@/lib/http/origin";
import { OriginReadCounter } from "@/lib/door/origin-reads";
import { WindowCounter } from "@/lib/door/window-counter";
import { eventIdSchema } from "@/lib/ids";
import { DOOR_PATH } from "@/lib/waiting-room/paths";
import { fanRoomStatus, joinRoom, publicRoomStatus, setRoomSlot, type FanQueueStatus, type PublicQueueStatus, type ReseatProof, type RoomStore, type SeenGeneration } from "@/lib/waiting-room/room";
import { issueQueueTicket, QUEUE_TICKET_TTL_MS, queueTicketCookieName, readQueueTicket, reseatProof, statusFromTicket, type QueueTicket } from "@/lib/waiting-room/ticket";
import { admissionCookieName, issueAdmissionToken } from "@/lib/waiting-room/token";

/** How long one process reuses an event's public status (ms); the answer says `s-maxage=1` to caches anyway. */
export const STATUS_MEMO_MS = 250;

/** The public status's Cache-Control: a CDN serves it for a second, stale for two more while it asks again. */
const PUBLIC_STATUS_CACHE = publicCache(1, 2);

/** The per-address limits of the door (docs/design.md "Waiting room"). */
export const DOOR_LIMITS = {
  /** 10 joins per 10 s per address and event, counted in Redis (shared by every instance): a join is idempotent; more is a script. */
  join: { max: 10, windowMs: 10_000 },
  /** 60 public status reads per 10 s per address, counted per process: the page polls every ~2–3 s, many fans may share an address. */
  status: { max: 60, windowMs: 10_000 },
} as const;

/** What a deployment gives the door. */
export interface DoorOptions {
  store: RoomStore;
  /** The app secret (BETTER_AUTH_SECRET): session cookies, admission tokens and queue tickets are signed with it. */
  secret: string;
  /** Origins whose pages may send writes (lib/env.ts `appOrigins`). */
  origins: readonly string[];
  /** The user when the cookie cache cannot say (absent or stale): the app asks better-auth. Absent → signed out. */
  fallbackUser?: (headers: Headers) => Promise<SessionUser | null>;
  /** Set cookies with `Secure` (the app is served over https). */
  secureCookies: boolean;
  /**
   * This process's clock (ms), for tests: session cookies, the per-address status limit, queue
   * tickets' age. It decides no admission: the queue's scripts use Redis's clock (docs/adr/0024).
   */
  now?: () => number;
  /** A test's simulated Redis clock for the queue's scripts (ms); absent in production, where Redis's TIME decides. */
  queueNow?: () => number;
}

/** A door request handler: the answer, or null when the path is not the door's. */
export type Door = (req: Request) => Promise<Response | null>;


/**
 * A JSON answer with `headers` as name/value pairs (a Set-Cookie may repeat). Pairs rather than
 * `Response.json` with a `Headers` object: under srvx (scripts/door.ts) a `Headers` is built,
 * merged with the content type and read back into Node's header list — ~10 µs of CPU per answer,
 * where pairs are copied straight through. Same bytes on the wire either way.
 */
function json(body: unknown, headers: [string, string][]): Response {
  return jsonText(JSON.stringify(body), headers);
}

/** A JSON answer whose body is already serialized (see {@link json}). */
function jsonText(body: string, headers: [string, string][]): Response {
  headers.push(["Content-Type", "application/json"]);
  return new Response(body, { headers });
}

/** Time spent per part of one request (ms), for `Server-Timing`. */
class Timing {
  readonly start = performance.now();
  session = 0;
  redis = 0;
  async redisCall<T>(f: () => Promise<T>): Promise<T> {
    const t = performance.now();
    try {
      return await f();
    } catch (error) {
      // A REST call that failed at the network (or anything else unexplained) is an outage, not a bug.
      throw asAppError(error) ?? new RedisUnavailableError(error instanceof Error ? error.message : String(error));
    } finally {
      this.redis += performance.now() - t;
    }
  }
  header(): string {
    const total = performance.now() - this.start;
    return `total;dur=${total.toFixed(2)}, session;dur=${this.session.toFixed(2)}, redis;dur=${this.redis.toFixed(2)}`;
  }
}

/**
 * Builds the door.
 * @returns a handler answering GET/POST /api/events/:id/queue and GET/DELETE …/queue/me, null for any other path.
 */
export function createDoor(opts: DoorOptions): Door {
  const now = opts.now ?? Date.now;
  const queueNow = opts.queueNow ?? (() => undefined);
  const statusLimit = new WindowCounter(DOOR_LIMITS.status.max, DOOR_LIMITS.status.windowMs, now);
  const memo = new Map<string, { at: number; status: Promise<PublicQueueStatus> }>();
  /** Each memoized public status as JSON, written once: every status read in its 250 ms answers the same body. */
  const statusJson = new WeakMap<PublicQueueStatus, string>();
  const originReads = new OriginReadCounter(opts.store.redis, now);
  /** The queue's generation last seen per event (kept through an outage, unlike the memo): sent with every queue script. */
  const seen = new Map<string, SeenGeneration>();
  function saw(eventId: string, generation: string, onSaleAt: number): void {
    const known = seen.get(eventId);
    if (known?.generation === generation && known.onSaleAt === onSaleAt) return;
    seen.delete(eventId);
    seen.set(eventId, { generation, onSaleAt });
    if (seen.size > 10_000) seen.delete(seen.keys().next().value!);
  }

  /** The event's public status, computed at most once per STATUS_MEMO_MS (concurrent callers share the call). */
  function publicStatus(eventId: string, t: Timing): Promise<PublicQueueStatus> {
    const at = now();
    const hit = memo.get(eventId);
    if (hit && at - hit.at < STATUS_MEMO_MS) return hit.status;
    const status = t.redisCall(() => publicRoomStatus(opts.store, eventId, queueNow(), seen.get(eventId)));
    memo.set(eventId, { at, status });
    status.then((s) => saw(eventId, s.generation, s.onSaleAt), () => memo.delete(eventId));
    if (memo.size > 1_000) memo.delete(memo.keys().next().value!);
    return status;
  }

  function cookie(name: string, value: string, expiresAt: number): string {
    return `${name}=${value}; Path=/; Expires=${new Date(expiresAt).toUTCString()}; HttpOnly; SameSite=Lax${opts.secureCookies ? "; Secure" : ""}`;
  }

  /** The signed-in fan; `cookies` is the request's Cookie header. @throws 401 `sign_in_required` with `signIn` as the message. */
  async function user(req: Request, cookies: string | null, t: Timing, signIn: string): Promise<SessionUser> {
    const started = performance.now();
    try {
      const u = userFromCookieCache(cookies, opts.secret, now()) ?? (opts.fallbackUser ? await opts.fallbackUser(req.headers) : null);
      if (!u) throw new AppError("unauthorized", "sign_in_required", signIn);
      return u;
    } finally {
      t.session += performance.now() - started;
    }
  }

  /**
   * The fan's answer with its cookies: a queue ticket whenever the place or its generation
   * changed (a re-seated place keeps the order it was re-seated by), and the admission token
   * (with its cookie for the hold path) when admitted.
   */
  async function fanAnswer(eventId: string, fan: SessionUser, status: FanQueueStatus, hadTicket: QueueTicket | null, t: Timing): Promise<Response> {
    const headers: [string, string][] = [["Cache-Control", PRIVATE_NO_STORE]];
    saw(eventId, status.generation, status.onSaleAt);
    let admissionToken: string | null = null;
    if (status.state === "admitted" && status.admittedUntil) {
      admissionToken = await issueAdmissionToken({ fanId: fan.id, eventId, position: status.position, generation: status.generation, expiresAt: status.admittedUntil, now: now() });
      headers.push(["Set-Cookie", cookie(admissionCookieName(eventId), admissionToken, status.admittedUntil)]);
    }
    if (status.state !== "none" && (hadTicket?.position !== status.position || hadTicket?.draw !== status.draw || hadTicket?.generation !== status.generation)) {
      const at = now();
      const order = status.position < 0 ? (hadTicket?.generation === status.generation ? hadTicket.order : hadTicket ? reseatProof(hadTicket)?.order : undefined) : undefined;
      const ticket = issueQueueTicket(
        { eventId, fanId: fan.id, position: status.position, draw: status.draw, issuedAt: at, onSaleAt: status.onSaleAt, generation: status.generation, ...(order === undefined ? {} : { order }) },
        opts.secret,
      );
      headers.push(["Set-Cookie", cookie(queueTicketCookieName(eventId), ticket, at + QUEUE_TICKET_TTL_MS)]);
    }
    headers.push(["Server-Timing", t.header()]);
    // Written out rather than `{ ...status, admissionToken }`: adding a field to a spread copy
    // takes V8's slow path (measured ~3 µs of CPU per answer).
    return json(
      {
        state: status.state,
        position: status.position,
        servingCounter: status.servingCounter,
        queueLength: status.queueLength,
        ratePerMinute: status.ratePerMinute,
        paused: status.paused,
        onSaleAt: status.onSaleAt,
        admittedUntil: status.admittedUntil,
        ahead: status.ahead,
        etaSeconds: status.etaSeconds,
        draw: status.draw,
        preQueueSize: status.preQueueSize,
        generation: status.generation,
        admissionToken,
      } satisfies FanQueueStatus & { admissionToken: string | null },
      headers,
    );
  }

  /** The fan's queue ticket for `eventId` in `cookies` (the Cookie header): signed, the fan's own, not too old; else null. */
  const ticketOf = (cookies: string | null, eventId: string, fan: SessionUser) =>
    readQueueTicket(cookieValue(cookies ?? "", queueTicketCookieName(eventId)), opts.secret, { eventId, fanId: fan.id, now: now() });

  /**
   * The fan's status: from the ticket in `cookies` (the Cookie header) when that is certain,
   * else from Redis (`ask`, given the ticket's proof: Redis re-seats a fan whose place was lost with it).
   */
  async function fanStatus(cookies: string | null, eventId: string, fan: SessionUser, t: Timing, ask: (reseat: ReseatProof | undefined) => Promise<FanQueueStatus>): Promise<Response> {
    const ticket = ticketOf(cookies, eventId, fan);
    if (ticket) {
      const known = statusFromTicket(ticket, await publicStatus(eventId, t));
      if (known) return fanAnswer(eventId, fan, known, ticket, t);
    }
    const reseat = (ticket && reseatProof(ticket)) ?? undefined;
    return fanAnswer(eventId, fan, await t.redisCall(() => ask(reseat)), ticket, t);
  }

  async function handle(req: Request, url: URL, eventId: string, me: boolean, t: Timing): Promise<Response> {
    const method = req.method;
    if (method !== "GET" && method !== "HEAD") {
      const refusal = crossOriginRefusal(req.headers, opts.origins);
      if (refusal) throw refusal;
    }
    const ip = clientIp(req.headers);
    if (!me) {
      if (method === "GET" || method === "HEAD") {
        const wait = statusLimit.hit(ip);
        if (wait > 0) throw new RateLimitedError(Math.max(1, Math.ceil(wait / 1000)));
        const status = await publicStatus(eventId, t);
        originReads.note(eventId);
        let body = statusJson.get(status);
        if (body === undefined) statusJson.set(status, (body = JSON.stringify(status)));
        return jsonText(body, [["Cache-Control", PUBLIC_STATUS_CACHE], ["Server-Timing", t.header()]]);
      }
      if (method === "POST") {
        const cookies = req.headers.get("cookie");
        const fan = await user(req, cookies, t, "Sign in to join the queue.");
        // Most joins carry no query: no URLSearchParams to build for them.
        const rejoin = url.search === "" ? null : url.searchParams.get("rejoin");
        if (rejoin !== null && rejoin !== "1") throw new AppError("bad_request", "invalid_input", "rejoin must be 1 when given.", { field: "rejoin" });
        const limit = { address: ip, ...DOOR_LIMITS.join };
        // Inline closures, not a named one: run through tsx (`npm run door`), every named function
        // created per request costs an Object.defineProperty of its name (esbuild's keepNames).
        if (rejoin === "1") {
          const ticket = ticketOf(cookies, eventId, fan);
          const reseat = (ticket && reseatProof(ticket)) ?? undefined;
          return fanAnswer(eventId, fan, await t.redisCall(() => joinRoom(opts.store, eventId, fan.id, { now: queueNow(), rejoin: true, limit, reseat, seen: seen.get(eventId) })), ticket, t);
        }
        return fanStatus(cookies, eventId, fan, t, (reseat) => joinRoom(opts.store, eventId, fan.id, { now: queueNow(), rejoin: false, limit, reseat, seen: seen.get(eventId) }));
      }
      throw new AppError("method_not_allowed", "method_not_allowed", "Use GET to read the queue or POST to join it.");
    }
    if (method === "GET" || method === "HEAD") {
      const cookies = req.headers.get("cookie");
      const fan = await user(req, cookies, t, "Sign in to see your place in the queue.");
      return fanStatus(cookies, eventId, fan, t, (reseat) => fanRoomStatus(opts.store, eventId, fan.id, { now: queueNow(), reseat, seen: seen.get(eventId) }));
    }
    if (method === "DELETE") {
      const fan = await user(req, req.headers.get("cookie"), t, "Sign in to see your place in the queue.");
      const { freed } = await t.redisCall(() => setRoomSlot(opts.store, eventId, fan.id, 0, queueNow()));
      return json({ left: true, freedSlot: freed }, [
        ["Cache-Control", PRIVATE_NO_STORE],
        ["Set-Cookie", cookie(admissionCookieName(eventId), "", 0)],
        ["Server-Timing", t.header()],
      ]);
    }
    throw new AppError("method_not_allowed", "method_not_allowed", "Use GET to read your place or DELETE to leave.");
  }

  return async (req) => {
    const url = new URL(req.url);
    const path = DOOR_PATH.exec(url.pathname);
    if (!path) return null;
    const t = new Timing();
    try {
      let eventId: string;
      try {
        eventId = decodeURIComponent(path[1]!);
      } catch {
        eventId = "";
      }
      const valid = eventIdSchema.safeParse(eventId);
      if (!valid.success) throw new AppError("bad_request", "invalid_input", valid.error.issues[0]!.message, { field: "eventId" });
      return await handle(req, url, eventId, path[2] !== undefined, t);
    } catch (error) {
      const res = toErrorResponse(error, crypto.randomUUID(), localeOfRequest(req.headers));
      res.headers.set("Server-Timing", t.header());
      return res;
    }
  };
}
