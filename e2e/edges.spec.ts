/**
 * The hardened edges, over HTTP against the production server (scripts/serve.ts): foreign
 * origins, open redirects, forwarded headers, unknown slugs and odd bytes each get a clear
 * 4xx — never a 500, never a change of state.
 */
import { readdirSync, statSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { FAN, ORGANIZER, signIn } from "./helpers";
import { E2E_AUTH_RATE_LIMIT_PER_MINUTE } from "@/scripts/lib/e2e-settings";

const EVIL = "http://evil.example";
const base = () => `http://127.0.0.1:${process.env.E2E_PORT ?? 3100}`;

async function eventIdOf(request: APIRequestContext, slug: string): Promise<string> {
  return /evt_[0-9a-z]+/.exec(await (await request.get(`/events/${slug}`)).text())![0];
}

/** A request from another loopback address (its own per-IP buckets), optionally with X-Forwarded-For. */
function fromAddress(localAddress: string, opts: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<number> {
  const url = new URL(base());
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: opts.path, method: opts.method ?? "GET", headers: opts.headers, localAddress }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end(opts.body);
  });
}

test("state-changing requests from a foreign origin are refused with 403 and change nothing", async ({ page }) => {
  await signIn(page, FAN);
  const eventId = await eventIdOf(page.request, "studio-session");
  const before = await (await page.request.get(`/api/events/${eventId}/queue/me`)).json();
  const attempts = [
    { method: "POST", url: `/api/events/${eventId}/queue`, data: undefined, type: undefined },
    { method: "POST", url: `/api/events/${eventId}/holds`, data: JSON.stringify({ mode: "best", priceLevelId: "pl_x", quantity: 2 }), type: "application/json" },
    { method: "POST", url: `/api/events/${eventId}/holds`, data: JSON.stringify({ mode: "best", priceLevelId: "pl_x", quantity: 2 }), type: "text/plain" },
    { method: "DELETE", url: `/api/events/${eventId}/queue/me`, data: undefined, type: undefined },
    { method: "POST", url: `/api/orders/ord_0000000000000000/checkout`, data: undefined, type: undefined },
  ];
  for (const a of attempts) {
    const res = await page.request.fetch(a.url, { method: a.method, data: a.data, headers: { origin: EVIL, ...(a.type ? { "content-type": a.type } : {}) } });
    expect(res.status(), `${a.method} ${a.url}`).toBe(403);
    expect((await res.json()).code).toBe("cross_origin");
  }
  // Nothing changed: the fan's place is as it was.
  expect(await (await page.request.get(`/api/events/${eventId}/queue/me`)).json()).toEqual(before);
  // Same origin but not JSON: 415, the body is never parsed.
  const plain = await page.request.post(`/api/events/${eventId}/holds`, { data: "{}", headers: { "content-type": "text/plain", origin: base() } });
  expect(plain.status()).toBe(415);
  expect((await plain.json()).code).toBe("json_required");
});

test("the organizer's queue controls and server actions refuse foreign origins with a 4xx", async ({ page }) => {
  await signIn(page, ORGANIZER, "/admin");
  const eventId = await eventIdOf(page.request, "studio-session");
  const res = await page.request.post(`/api/admin/events/${eventId}/queue`, { data: { paused: true }, headers: { origin: EVIL } });
  expect(res.status()).toBe(403);
  const live = await (await page.request.get(`/api/admin/events/${eventId}/live`)).json();
  expect(live.queue?.paused ?? live.paused ?? false).toBe(false);
  // A server action (any id): Next would answer 500; the server answers 403 first.
  const action = await page.request.post(`/events/studio-session`, { data: "[]", headers: { origin: EVIL, "next-action": "7f00000000000000000000000000000000000000", "content-type": "text/plain;charset=UTF-8" } });
  expect(action.status()).toBe(403);
  expect((await action.json()).code).toBe("cross_origin");
});

test("signing in never redirects off-site, whatever ?next= says", async ({ page }) => {
  for (const next of ["/\\evil.example/x", "/\tevil.example/x", "//evil.example/x", "https://evil.example/x"]) {
    await page.context().clearCookies();
    await page.goto(`/sign-in?next=${encodeURIComponent(next)}`);
    await page.getByLabel("Email").fill(FAN.email);
    await page.getByLabel("Password").fill(FAN.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByTestId("signed-in-as")).toHaveText(FAN.email);
    // The header knows the session a moment before the navigation to `next` lands: wait for the page.
    await expect(page, next).toHaveURL(`${base()}/`);
  }
});

test("per-IP limits key on the network address: rotating X-Forwarded-For is still limited", async ({ request }) => {
  const eventId = await eventIdOf(request, "studio-session");
  // 130 status reads from 127.0.0.2 at once, each claiming another address: the limit (60 per
  // fixed 10-s window, lib/door/window-counter.ts) still applies. Sent together they span at most
  // two windows, so at least 130 − 2 × 60 = 10 are refused. (Sent one after another, 70 reads
  // once outlasted a window on a loaded machine, and fewer than 10 were refused.)
  const statuses = await Promise.all(Array.from({ length: 130 }, (_, i) => fromAddress("127.0.0.2", { path: `/api/events/${eventId}/queue`, headers: { "x-forwarded-for": `10.9.${i}.1` } })));
  expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(10);
  expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
  // Sign-in attempts from 127.0.0.3 with a rotated header, and a spoofed "1.1.1.1, <real>" chain:
  // better-auth's per-minute limit applies. Its limiter counts a request before reading the body,
  // so all but the last attempts leave the password out (a fast 400, no password hashing): 204
  // real sign-ins one after another outlasted the minute on a loaded machine. They go one at a
  // time because better-auth's in-memory counter is not atomic.
  const signIns: number[] = [];
  for (let i = 0; i < E2E_AUTH_RATE_LIMIT_PER_MINUTE + 4; i++) {
    const real = i >= E2E_AUTH_RATE_LIMIT_PER_MINUTE - 2;
    signIns.push(
      await fromAddress("127.0.0.3", {
        method: "POST",
        path: "/api/auth/sign-in/email",
        headers: { "content-type": "application/json", origin: base(), "x-forwarded-for": i % 2 ? `10.8.${i}.1` : "1.1.1.1, 127.0.0.3" },
        body: JSON.stringify(real ? { email: "nobody@example.test", password: "wrong-password" } : { email: "nobody@example.test" }),
      }),
    );
  }
  expect(signIns.slice(0, E2E_AUTH_RATE_LIMIT_PER_MINUTE - 2).every((s) => s === 400)).toBe(true);
  expect(signIns.slice(E2E_AUTH_RATE_LIMIT_PER_MINUTE - 2, E2E_AUTH_RATE_LIMIT_PER_MINUTE)).toEqual([401, 401]);
  expect(signIns.slice(E2E_AUTH_RATE_LIMIT_PER_MINUTE)).toEqual([429, 429, 429, 429]);
});

test("unknown show addresses answer 404 without writing to the page cache", async ({ request }) => {
  const cacheDir = path.join(process.env.NEXT_DIST_DIR ?? ".next-test", "server");
  const countFiles = (dir: string): number => {
    let n = 0;
    for (const entry of readdirSync(dir)) {
      const p = path.join(dir, entry);
      n += statSync(p).isDirectory() ? countFiles(p) : 1;
    }
    return n;
  };
  expect((await request.get("/events/warm-up-unknown-show")).status()).toBe(404);
  const before = countFiles(cacheDir);
  const answers = await Promise.all(Array.from({ length: 500 }, (_, i) => request.get(`/events/made-up-${i}-${Math.random().toString(36).slice(2)}`).then((r) => r.status())));
  expect(new Set(answers)).toEqual(new Set([404]));
  expect(countFiles(cacheDir)).toBe(before);
  // A real show still renders (and is the only kind of page the cache holds).
  expect((await request.get("/events/studio-session")).status()).toBe(200);
});

test("addresses that only look like pages, and broken language cookies, get a 404 or the page — never a 500", async ({ request }) => {
  // Paths the proxy leaves alone that a catch-all would otherwise render under a made-up "locale".
  for (const p of ["/admin/events/nova-lights-world-tour", "/admin.x/events/x", "/adminx/events/x", "/admin/sign-in", "/en/en", "/zh-CN/events/studio-session"]) {
    expect((await request.get(p)).status(), p).toBe(404);
  }
  // The dev mailbox's attachment links: no such message, no such attachment, not a number.
  for (const p of ["/dev/mailbox/999999999/0", "/dev/mailbox/1/999", "/dev/mailbox/x/0", "/dev/mailbox/1/-1"]) {
    expect((await request.get(p)).status(), p).toBe(404);
  }
  // A NEXT_LOCALE cookie with a broken %-escape names no language: the browser's languages decide.
  for (const cookie of ["NEXT_LOCALE=%", "NEXT_LOCALE=%E0%A4%A", "NEXT_LOCALE=../..", `NEXT_LOCALE=${"x".repeat(4000)}`]) {
    const r = await request.get("/events/studio-session", { headers: { cookie, "accept-language": "zh-CN" } });
    expect(r.status(), cookie.slice(0, 40)).toBe(200);
    expect(r.headers()["content-language"]).toBe("zh-CN");
  }
});

test("odd bytes get 400 with a message, never a 500", async ({ page }) => {
  for (const p of ["/events/a%00b", "/events/%ZZ", "/orders/%ZZ", "/api/orders/%ZZ", "/sandbox-psp/checkout/%F0", "/admin/events/%ZZ/live", "/admin/events/evt_x/orders?q=a%00b"]) {
    const res = await page.request.get(p);
    expect(res.status(), p).toBe(400);
    expect((await res.text()).length, p).toBeGreaterThan(20);
  }
  await signIn(page, FAN);
  const eventId = await eventIdOf(page.request, "studio-session");
  const nul = await page.request.post(`/api/events/${eventId}/holds`, { data: { mode: "best", priceLevelId: "pl_a\u0000b", quantity: 1 }, headers: { origin: base() } });
  expect(nul.status()).toBe(400);
  expect((await nul.json()).code).toBe("control_character");
  const broken = await page.request.post(`/events/studio-session`, { data: "[[[", headers: { origin: base(), "next-action": "7f00000000000000000000000000000000000000", "content-type": "text/plain;charset=UTF-8" } });
  expect(broken.status()).toBe(400);
  const signUp = await page.request.post("/api/auth/sign-up/email", { data: { email: `nul-${Date.now()}@example.test`, password: "a-good-password", name: "a\u0000b" }, headers: { origin: base() } });
  expect(signUp.status()).toBe(400);
  expect((await signUp.json()).field).toBe("name");
});

test("an organizer's show name with a NUL byte is refused in words, and nothing is created", async ({ page }) => {
  await signIn(page, ORGANIZER, "/admin/events/new");
  await page.goto("/admin/events/new");
  await page.getByLabel("Venue").selectOption({ label: "The Studio (Berlin, 50 seats)" });
  await page.getByLabel("Name", { exact: true }).fill("Bad\u0007Name");
  await page.getByRole("button", { name: "Create show" }).click();
  await expect(page.getByTestId("error-name")).toHaveText(/invisible control character/);
  await expect(page).toHaveURL(/\/admin\/events\/new/);
});
