/**
 * Fuzzing every route and server action over HTTP (fast-check): path params, queries and
 * bodies made of NUL and control characters, right-to-left overrides, emoji, 10 kB strings,
 * numbers as strings, floats, negatives and huge values, arrays, malformed JSON and the wrong
 * content types. Whatever arrives, the answer is a 2xx–4xx with a body — never a 5xx.
 * Runs as the organizer (the widest surface), against a show of its own so that a valid
 * request cannot disturb the other tests' shows.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, test, type APIRequestContext } from "@playwright/test";
import fc from "fast-check";
import { createQueueShow } from "./db";
import { ORGANIZER, signIn } from "./helpers";

const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
const base = () => `http://127.0.0.1:${process.env.E2E_PORT ?? 3100}`;

/** Strings that have broken servers before. */
const nastyString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom("\u0000", "a\u0000b", "\u202Eevil\u202C", "👩‍👩‍👧‍👦🎫", "x".repeat(10_000), "%ZZ", "%00", "../../etc/passwd", "' OR 1=1 --", "<script>alert(1)</script>", "", " ", "\r\n", "evt_", "ord_zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"),
);
const nastyNumber = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(-1, 0, 1e309, Number.MAX_SAFE_INTEGER + 2, -0.5, 2 ** 31, "12", "1e3", "NaN", "-0"));
const nastyValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small" }, nastyString, nastyNumber, fc.boolean(), fc.constant(null), fc.array(tie("value"), { maxLength: 4 }), fc.dictionary(nastyString, tie("value"), { maxKeys: 4 })),
})).value;
/** Bodies: JSON of a plausible shape with nasty leaves, any JSON, or bytes that are not JSON at all. */
const body = (shape: Record<string, fc.Arbitrary<unknown>> = {}) =>
  fc.oneof(
    fc.record(Object.fromEntries(Object.entries(shape).map(([k, a]) => [k, fc.oneof(a, nastyValue)])), { requiredKeys: [] }).map((v) => JSON.stringify(v)),
    nastyValue.map((v) => JSON.stringify(v) ?? "null"),
    fc.constantFrom("[[[", "{", "", "\u0000", "{\"a\":", "null", "--xyz\r\n", "a=1&b=2"),
  );
const contentType = fc.constantFrom("application/json", "text/plain;charset=UTF-8", "multipart/form-data; boundary=xyz", "application/x-www-form-urlencoded", undefined);
/** A path segment: a real id, a nasty string percent-encoded, or raw broken escapes. */
const segment = (real: string) => fc.oneof(fc.constant(real), nastyString.map((s) => encodeURIComponent(s)), fc.constantFrom("%ZZ", "%F0", "%E0%A4%A", "a%00b", "..", "x".repeat(500)));

async function send(request: APIRequestContext, method: string, url: string, data: string | undefined, type: string | undefined, extra: Record<string, string> = {}) {
  const res = await request.fetch(url, { method, data, headers: { origin: base(), ...(type ? { "content-type": type } : {}), ...extra }, maxRedirects: 0, timeout: 20_000 });
  const text = await res.text();
  return { status: res.status(), text };
}

function noServerError(r: { status: number; text: string }, what: string) {
  expect(r.status, `${what} → ${r.status}: ${r.text.slice(0, 200)}`).toBeLessThan(500);
  expect(r.status, what).toBeGreaterThan(0);
}

test.describe.configure({ timeout: 600_000 });

test("every route answers arbitrary input without a 5xx", async ({ page }) => {
  const slug = `fuzz-show-${Date.now()}`;
  const eventId = await createQueueShow({ slug, inSeconds: -60, ratePerMinute: 100, activeCap: 10 });
  await signIn(page, ORGANIZER, "/admin");
  const req = page.request;
  const routes: { name: string; method: string; path: (s: (real: string) => fc.Arbitrary<string>) => fc.Arbitrary<string>; body?: fc.Arbitrary<string> }[] = [
    { name: "queue status", method: "GET", path: (s) => s(eventId).map((e) => `/api/events/${e}/queue`) },
    { name: "queue join", method: "POST", path: (s) => fc.tuple(s(eventId), fc.constantFrom("", "?rejoin=1", "?rejoin=%00", "?rejoin=2")).map(([e, q]) => `/api/events/${e}/queue${q}`) },
    { name: "queue me", method: "GET", path: (s) => s(eventId).map((e) => `/api/events/${e}/queue/me`) },
    { name: "leave queue", method: "DELETE", path: (s) => s(eventId).map((e) => `/api/events/${e}/queue/me`) },
    { name: "availability", method: "GET", path: (s) => s(eventId).map((e) => `/api/events/${e}/availability`) },
    { name: "seat map", method: "GET", path: (s) => s(eventId).map((e) => `/api/events/${e}/seat-map`) },
    {
      name: "hold",
      method: "POST",
      path: (s) => s(eventId).map((e) => `/api/events/${e}/holds`),
      body: body({ mode: fc.constantFrom("best", "seats"), priceLevelId: nastyString, quantity: nastyNumber, seats: fc.array(nastyNumber, { maxLength: 5 }) }),
    },
    { name: "order", method: "GET", path: (s) => s("ord_0000000000000000").map((o) => `/api/orders/${o}`) },
    { name: "give back", method: "DELETE", path: (s) => s("ord_0000000000000000").map((o) => `/api/orders/${o}`) },
    { name: "checkout", method: "POST", path: (s) => s("ord_0000000000000000").map((o) => `/api/orders/${o}/checkout`) },
    { name: "live", method: "GET", path: (s) => s(eventId).map((e) => `/api/admin/events/${e}/live`) },
    { name: "queue controls", method: "POST", path: (s) => s(eventId).map((e) => `/api/admin/events/${e}/queue`), body: body({ ratePerMinute: nastyNumber, activeCap: nastyNumber, paused: fc.constant(false) }) },
    { name: "webhook", method: "POST", path: (s) => s("sandbox").map((p) => `/api/payments/webhooks/${p}`), body: body({ id: nastyString, type: nastyString, data: nastyValue }) },
    { name: "psp faults", method: "PUT", path: () => nastyString.map((c) => `/sandbox-psp/api/faults?checkout=${encodeURIComponent(c)}`), body: body({ webhookDelayMs: nastyNumber, duplicate: nastyNumber }) },
    { name: "psp approve", method: "POST", path: (s) => fc.tuple(s("sbx_cs_0000000000000000"), fc.constantFrom("approve", "decline", "%00", "x")).map(([c, a]) => `/sandbox-psp/api/checkouts/${c}/${a}`) },
    { name: "sign-up", method: "POST", path: () => fc.constant("/api/auth/sign-up/email"), body: body({ email: nastyString, password: nastyString, name: nastyString }) },
    // (The reset request and reset POSTs are left out: the auth library's per-address rate limit
    // would then refuse e2e/mail.spec.ts's real request, as it should.)
    { name: "reset link", method: "GET", path: () => fc.tuple(nastyString, nastyString).map(([t, c]) => `/api/auth/reset-password/${encodeURIComponent(t)}?callbackURL=${encodeURIComponent(c)}`) },
    { name: "reset page", method: "GET", path: () => nastyString.map((t) => `/reset-password?token=${encodeURIComponent(t)}`) },
    { name: "mailbox page", method: "GET", path: () => nastyString.map((t) => `/dev/mailbox?to=${encodeURIComponent(t)}`) },
    { name: "show page", method: "GET", path: (s) => s(slug).map((x) => `/events/${x}`) },
    { name: "queue page", method: "GET", path: (s) => s(slug).map((x) => `/events/${x}/queue`) },
    { name: "order page", method: "GET", path: (s) => fc.tuple(s("ord_0000000000000000"), fc.constantFrom("", "?checkout=%00", "?checkout=x")).map(([o, q]) => `/orders/${o}${q}`) },
    { name: "organizer orders", method: "GET", path: (s) => fc.tuple(s(eventId), nastyString).map(([e, q]) => `/admin/events/${e}/orders?q=${encodeURIComponent(q)}`) },
    { name: "pay page", method: "GET", path: (s) => s("sbx_cs_0000000000000000").map((c) => `/sandbox-psp/checkout/${c}`) },
  ];
  for (const r of routes) {
    await fc.assert(
      fc.asyncProperty(r.path(segment), r.body ?? fc.constant(undefined), contentType, async (url, data, type) => {
        noServerError(await send(req, r.method, url, data, data === undefined ? undefined : type), `${r.name}: ${r.method} ${url.slice(0, 120)} ${type} ${String(data).slice(0, 80)}`);
      }),
      { numRuns: RUNS },
    );
  }
});

test("every server action answers arbitrary payloads without a 5xx", async ({ page }) => {
  await signIn(page, ORGANIZER, "/admin");
  const manifest = JSON.parse(readFileSync(path.join(process.env.NEXT_DIST_DIR ?? ".next-test", "server", "server-reference-manifest.json"), "utf8")) as { node: Record<string, { workers: Record<string, unknown> }> };
  const pagePath = (worker: string) =>
    "/" +
    worker
      .replace(/^app\//, "")
      .replace(/\/page$/, "")
      .replace("[slug]", "studio-session")
      .replace("[eventId]", "evt_0000000000000000")
      .replace("[orderId]", "ord_0000000000000000")
      .replace("[id]", "sbx_cs_0000000000000000");
  const actions = Object.entries(manifest.node).map(([id, a]) => ({ id, url: pagePath(Object.keys(a.workers)[0]!) }));
  expect(actions.length).toBeGreaterThan(5);
  const payload = fc.oneof(
    fc.array(nastyValue, { maxLength: 4 }).map((args) => ({ data: JSON.stringify(args), type: "text/plain;charset=UTF-8" })),
    fc.constantFrom("[[[", "{}", "", "\u0000", "[\"\u0000\"]", "null").map((data) => ({ data, type: "text/plain;charset=UTF-8" })),
    fc.constantFrom("--xyz\r\nContent-Disposition: form-data; name=\"0\"\r\n\r\n[[[\r\n--xyz--\r\n", "garbage").map((data) => ({ data, type: "multipart/form-data; boundary=xyz" })),
  );
  for (const a of actions) {
    await fc.assert(
      fc.asyncProperty(payload, async (p) => {
        noServerError(await send(page.request, "POST", a.url, p.data, p.type, { "next-action": a.id, accept: "text/x-component" }), `action ${a.url} ${p.data.slice(0, 80)}`);
      }),
      { numRuns: Math.max(5, Math.round(RUNS / 2)) },
    );
  }
});
