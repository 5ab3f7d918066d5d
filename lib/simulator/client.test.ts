/**
 * The simulator's HTTP client: its parsers against the implementations they replaced (the
 * Server-Timing regex, the jar's Set-Cookie split, the Cookie header join), and a real
 * exchange with a local server — the app's cookies in the jar and in the next request's header,
 * the accounting (fan latency, Server-Timing, time queued in the simulator), errors, the gate.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addServerTiming, cookieHeader, SimClient, updateJar, type CookieJar } from "@/lib/simulator/client";

// ---------- the implementations replaced (as they were), as references ----------

function regexServerTiming(header: string | string[] | undefined) {
  const into = { server: [] as number[], serverParts: {} as Record<string, number[]> };
  for (const [, name, dur] of String(header ?? "").matchAll(/([a-z]+);dur=([\d.]+)/g)) {
    if (name === "total") into.server.push(Number(dur));
    else (into.serverParts[name!] ??= []).push(Number(dur));
  }
  return into;
}

function joinedCookieHeader(jar: CookieJar | undefined, fallback?: Record<string, string>): string | undefined {
  const parts: string[] = [];
  for (const [k, v] of jar ?? []) parts.push(`${k}=${v}`);
  for (const [k, v] of Object.entries(fallback ?? {})) if (!jar?.has(k)) parts.push(`${k}=${v}`);
  return parts.length > 0 ? parts.join("; ") : undefined;
}

function splitUpdateJar(jar: CookieJar, setCookie: string[]): void {
  for (const line of setCookie) {
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

const ours = (header: string | string[]) => {
  const into = { server: [] as number[], serverParts: {} as Record<string, number[]> };
  addServerTiming(typeof header === "string" ? header : header.join(","), into);
  return into;
};

describe("Server-Timing", () => {
  it("reads the parts the app writes", () => {
    expect(ours("total;dur=12.34, session;dur=0.05, redis;dur=3.10")).toEqual({ server: [12.34], serverParts: { session: [0.05], redis: [3.1] } });
    expect(ours("")).toEqual({ server: [], serverParts: {} });
    expect(ours(["total;dur=1", "postgres;dur=2"])).toEqual({ server: [1], serverParts: { postgres: [2] } });
  });

  it("reads exactly what the regex it replaced matched", () => {
    const cases = ["Total;dur=5", "x;dur=;dur=1", "ab;dur=x;dur=1", "total;dur=1.2.3", "a;dur=.", "a;dur=5.", "a;dur=.5", "db;desc=x;dur=4", "cache;dur=1,db;dur=2", ";dur=3", "a1;dur=2", "é;dur=1", "total;dur=1total;dur=2"];
    for (const h of cases) expect(ours(h), h).toEqual(regexServerTiming(h));
    fc.assert(
      fc.property(fc.array(fc.constantFrom("total", "redis", "a", "Z", ";dur=", ";", "=", ".", "1", "0.5", ",", " ", "dur", "é", "9"), { maxLength: 20 }), (parts) => {
        const h = parts.join("");
        expect(ours(h)).toEqual(regexServerTiming(h));
      }),
      { numRuns: 2_000 },
    );
  });
});

describe("cookies", () => {
  const session = { "better-auth.session_token": "tok.sig%3D", "better-auth.session_data": "eyJabc" };
  const asPairs = (r: Record<string, string>) => Object.entries(r).map(([k, v]) => `${k}=${v}`).join("; ");

  it("writes the Cookie header as before, from the session's pairs or by name", () => {
    const jars: (CookieJar | undefined)[] = [undefined, new Map(), new Map([["sa_queue_evt_1", "t1.x"]]), new Map([["sa_queue_evt_1", "t1.x"], ["sa_admission_evt_1", "adm"]])];
    for (const jar of jars) {
      expect(cookieHeader(jar, session)).toBe(joinedCookieHeader(jar, session));
      expect(cookieHeader(jar, asPairs(session))).toBe(joinedCookieHeader(jar, session));
      expect(cookieHeader(jar)).toBe(joinedCookieHeader(jar));
      expect(cookieHeader(jar, "")).toBe(joinedCookieHeader(jar));
    }
    expect(cookieHeader(new Map([["a", "1"]]), asPairs(session))).toBe("a=1; better-auth.session_token=tok.sig%3D; better-auth.session_data=eyJabc");
  });

  it("lets a cookie the app set win over the session's of the same name, in either form", () => {
    const jar: CookieJar = new Map([["better-auth.session_data", "refreshed"], ["sa_queue_evt_1", "t1"]]);
    const expected = "better-auth.session_data=refreshed; sa_queue_evt_1=t1; better-auth.session_token=tok.sig%3D";
    expect(cookieHeader(jar, session)).toBe(expected);
    expect(cookieHeader(jar, asPairs(session))).toBe(expected);
    // A name that only ends like a session cookie's, or is a prefix of one, is another cookie.
    for (const other of ["auth.session_data", "better-auth.session", "better-auth.session_data2"]) {
      const j: CookieJar = new Map([[other, "x"]]);
      expect(cookieHeader(j, asPairs(session))).toBe(joinedCookieHeader(j, session));
    }
    fc.assert(
      fc.property(fc.uniqueArray(fc.constantFrom("a", "b", "better-auth.session_token", "better-auth.session_data", "session_data", "better-auth.session"), { maxLength: 4 }), (names) => {
        const j: CookieJar = new Map(names.map((n, k) => [n, `v${k}`]));
        expect(cookieHeader(j, asPairs(session))).toBe(joinedCookieHeader(j, session));
      }),
    );
  });

  it("applies Set-Cookie to the jar as before (deletions included)", () => {
    const past = new Date(Date.now() - 60_000).toUTCString();
    const future = new Date(Date.now() + 60_000).toUTCString();
    const lines = [
      `sa_queue_evt_1=t1.abc; Path=/; Expires=${future}; HttpOnly; SameSite=Lax`,
      `sa_admission_evt_1=; Path=/; Expires=${past}; HttpOnly`,
      "a=1; Max-Age=0",
      "b=2; max-age=60",
      "c=3; Max-Age=",
      "d = 4 ; Expires=nonsense",
      `e=5; Expires=${past}`,
      "noequals; Path=/",
      "f=x=y; Path=/",
      "g=7;Max-Age=1=2",
      "h=8; Max-Age",
    ];
    fc.assert(
      fc.property(fc.subarray(lines), fc.subarray(["a", "b", "e", "sa_admission_evt_1", "z"]), (set, before) => {
        const mine: CookieJar = new Map(before.map((n) => [n, "old"]));
        const theirs: CookieJar = new Map(mine);
        updateJar(mine, set);
        splitUpdateJar(theirs, set);
        expect([...mine]).toEqual([...theirs]);
      }),
    );
    const jar: CookieJar = new Map();
    updateJar(jar, lines[0]!); // a single header arrives as a string
    expect([...jar]).toEqual([["sa_queue_evt_1", "t1.abc"]]);
  });
});

// ---------- a real exchange ----------

describe("SimClient against a server", () => {
  let server: http.Server;
  let url = "";
  const seen: { path: string; cookie: string | undefined; method: string }[] = [];
  let inFlight = 0;
  let maxInFlight = 0;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      seen.push({ path: req.url!, cookie: req.headers.cookie, method: req.method! });
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const done = (status: number, body: string, headers: Record<string, string | string[]> = {}) => {
        inFlight--;
        res.writeHead(status, { "content-type": "application/json", "server-timing": "total;dur=2.50, redis;dur=1.25", ...headers });
        res.end(body);
      };
      const path = req.url!;
      if (path === "/api/events/evt_1/queue" && req.method === "POST") return done(200, JSON.stringify({ state: "waiting", position: 7 }), { "set-cookie": ["sa_queue_evt_1=t7.sig; Path=/; HttpOnly", "better-auth.session_data=refreshed; Path=/"] });
      if (path === "/leave") return done(200, "{}", { "set-cookie": "sa_queue_evt_1=; Path=/; Max-Age=0" });
      if (path.startsWith("/slow")) return setTimeout(() => done(200, "{}"), 50);
      if (path === "/refused") return done(409, JSON.stringify({ error: "taken", code: "seat_taken" }));
      if (path === "/html") return done(500, "<html>oops</html>", { "content-type": "text/html" });
      if (path === "/big") return done(200, `\ufeff${JSON.stringify({ items: "x".repeat(300_000) })}`);
      if (path === "/hang") return; // never answers
      done(200, JSON.stringify({ ok: true }), { "retry-after": "3" });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it("keeps the app's cookies in the fan's jar and sends them first, over the session's of the same name", async () => {
    const client = new SimClient(url, 4);
    const jar: CookieJar = new Map();
    const session = "better-auth.session_token=tok.sig; better-auth.session_data=eyJ0";
    seen.length = 0;
    const r = await client.request<{ position: number }>("/api/events/evt_1/queue", { method: "POST", jar, session, endpoint: "queue join" });
    expect(r.status).toBe(200);
    expect(r.body.position).toBe(7);
    expect([...jar]).toEqual([["sa_queue_evt_1", "t7.sig"], ["better-auth.session_data", "refreshed"]]);
    await client.request("/x", { jar, session, endpoint: "other" });
    await client.request("/leave", { jar, session, endpoint: "other" });
    await client.request("/x", { jar, session, endpoint: "other" });
    expect(seen.map((s) => s.cookie)).toEqual([
      session,
      // the header follows the jar as the app changes it: its cookies first, the session's own refreshed one instead of the book's
      "sa_queue_evt_1=t7.sig; better-auth.session_data=refreshed; better-auth.session_token=tok.sig",
      "sa_queue_evt_1=t7.sig; better-auth.session_data=refreshed; better-auth.session_token=tok.sig",
      "better-auth.session_data=refreshed; better-auth.session_token=tok.sig",
    ]);
    client.close();
  });

  it("accounts for every answer: fan latency, the server's own times, errors by kind, bodies and headers", async () => {
    const client = new SimClient(url, 4);
    const ok = await client.request<{ ok: boolean }>("/x", { endpoint: "x" });
    expect(ok).toMatchObject({ status: 200, body: { ok: true } });
    expect(ok.headers["retry-after"]).toBe("3");
    expect(ok.ms).toBeGreaterThan(0);
    const refused = await client.request("/refused", { endpoint: "hold", method: "POST", body: { a: 1 } });
    expect(refused.status).toBe(409);
    const html = await client.request("/html", { endpoint: "page" });
    expect(html.body).toBe("<html>oops</html>");
    const big = await client.request<{ items: string }>("/big", { endpoint: "big" });
    expect(big.body.items).toHaveLength(300_000); // many chunks, and the byte-order mark dropped
    expect(client.errors).toEqual(new Map([["hold 409 seat_taken", 1], ["page 500", 1]]));
    const x = client.stats.get("x")!;
    expect(x.count).toBe(1);
    expect(x.server).toEqual([2.5]);
    expect(x.serverParts).toEqual({ redis: [1.25] });
    expect(x.latencies[0]).toBeCloseTo(ok.ms, 6);
    expect(x.queued).toHaveLength(1);
    expect(client.requests).toBe(4);
    // Asked earlier (askedAt): that wait counts as queued in the simulator, and in what the fan saw.
    const askedAt = performance.now() - 40;
    const late = await client.request("/x", { endpoint: "late", askedAt });
    expect(client.stats.get("late")!.queued[0]).toBeGreaterThanOrEqual(40);
    expect(late.ms).toBeGreaterThanOrEqual(40);
    client.setDependencyDown(true);
    await client.request("/x", { endpoint: "x" });
    client.setDependencyDown(false);
    expect(client.stats.get(`x${SimClient.DURING_OUTAGE}`)!.count).toBe(1);
    client.close();
  });

  it("answers status 0 for network failures and timeouts, never throws, and frees the socket", async () => {
    const client = new SimClient(url, 2, 0.5);
    const hung = await client.request("/hang", { endpoint: "hang", timeoutMs: 100 });
    expect(hung.status).toBe(0);
    expect(client.errors.get("hang network:TIMEOUT")).toBe(1);
    // The door lane has 1 socket: it was given back.
    expect((await client.request("/x", { endpoint: "x" })).status).toBe(200);
    const closed = new SimClient("http://127.0.0.1:1", 2);
    const r = await closed.request("/x", { endpoint: "nobody" });
    expect(r.status).toBe(0);
    expect([...closed.errors.keys()]).toEqual(["nobody network:ECONNREFUSED"]);
    expect((await closed.request("/x", { endpoint: "nobody" })).status).toBe(0);
    await expect(client.request("/x", { endpoint: "x", method: "POST", body: { n: 1n } })).rejects.toThrow(/BigInt/);
    expect((await client.request("/x", { endpoint: "x" })).status).toBe(200); // the refused request gave its socket back
    client.close();
    closed.close();
  });

  it("never has more requests in flight than the lane's sockets; the rest wait in the simulator, first come first served", async () => {
    const client = new SimClient(url, 8, 0.25); // door lane: 2 sockets
    inFlight = 0; // (the earlier /hang is never answered)
    maxInFlight = 0;
    seen.length = 0;
    await Promise.all(Array.from({ length: 12 }, (_, k) => client.request(`/slow?k=${k}`, { endpoint: "slow" })));
    expect(maxInFlight).toBe(2);
    const s = client.stats.get("slow")!;
    expect(s.count).toBe(12);
    expect(Math.max(...s.queued)).toBeGreaterThanOrEqual(200); // the last two waited five rounds of ~50 ms
    const arrived = seen.map((r) => Number(r.path.split("=")[1]));
    expect(arrived).toEqual([...arrived].sort((a, b) => a - b));
    client.close();
  });

  it("sends the waiting room's paths to the standalone door, the rest to the app instance of the fan", async () => {
    const other = http.createServer((req, res) => res.end(JSON.stringify({ from: "door", path: req.url })));
    await new Promise<void>((r) => other.listen(0, "127.0.0.1", r));
    const door = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    const client = new SimClient([url, url], 4, 0.5, door, 4);
    expect((await client.request<{ from?: string }>("/api/events/evt_9/queue/me", { endpoint: "me", lane: "shop" })).body.from).toBe("door");
    expect((await client.request<{ from?: string; ok?: boolean }>("/x", { endpoint: "x", instance: 1 })).body.ok).toBe(true);
    client.close();
    other.closeAllConnections();
    await new Promise((r) => other.close(r));
  });
});
