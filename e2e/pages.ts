/**
 * Every page a person reads — fan, door and organizer — and how to reach each one, for the
 * whole-app walks (e2e/a11y.both.spec.ts: axe; e2e/zh-walk.spec.ts: no English in Chinese).
 *
 * The people and things the pages need are made once per e2e server (a fresh database each
 * run) by {@link walkSetup}, over the app's own HTTP API like the on-sale simulator: a fan with
 * a ticketed order, an order waiting for payment (with its sandbox checkout) and an admitted
 * turn on an arena show; a show whose waiting room opens in half an hour; a door-staff
 * account; the organizer. What it made is kept in a file beside the run's results, so a
 * test that fails (Playwright then starts a new worker) does not make it all again.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect, request, type APIRequestContext, type BrowserContext, type Page } from "@playwright/test";
import postgres from "postgres";
import { createArenaShow, createQueueShow } from "./db";
import { ORGANIZER, signUpOverApi } from "./helpers";

export const BASE_URL = `http://127.0.0.1:${process.env.E2E_PORT ?? 3100}`;
export const LANGUAGES = ["en", "zh-CN"] as const;
export type Language = (typeof LANGUAGES)[number];
/** Who opens a page: nobody signed in, the fan, the organizer's door staff, the organizer. */
export type Role = "signed-out" | "fan" | "door" | "organizer";

type Cookie = Awaited<ReturnType<APIRequestContext["storageState"]>>["cookies"][number];
type Account = { email: string; password: string };

/** What {@link walkSetup} made: the accounts' cookies and the ids the pages' addresses need. */
export interface Walk {
  database: string;
  cookies: Record<Exclude<Role, "signed-out">, Cookie[]>;
  fan: Account;
  door: Account;
  studio: { id: string; slug: string };
  arena: { id: string; slug: string };
  queueSlug: string;
  /** A show on sale whose queue the organizer paused: the fan waits in line. */
  lineSlug: string;
  ticketedOrderId: string;
  pendingOrderId: string;
  checkoutPath: string;
}

/** One page of the walk. `open` goes there (and into the state named) in a context signed in as `role`. */
export interface WalkPage {
  name: string;
  role: Role;
  open: (page: Page, walk: Walk, lang: Language) => Promise<void>;
}

/** The catalogue's text for `key` ("Ns.key") in `lang`: the walks find buttons by what they say. */
export function message(lang: Language, key: string): string {
  let node: unknown = JSON.parse(readFileSync(path.join("lib", "i18n", "messages", `${lang}.json`), "utf8"));
  for (const part of key.split(".")) node = (node as Record<string, unknown>)[part];
  if (typeof node !== "string") throw new Error(`no message ${key} in ${lang}`);
  return node;
}

/** Goes to `url` and waits until it has rendered: a heading, and the network quiet (or 5 s: some pages poll). */
async function visit(page: Page, url: string, status = 200) {
  const res = await page.goto(url);
  expect(res?.status(), `${url} answered ${res?.status()}`).toBe(status);
  await expect(page.locator("h1").first()).toBeVisible();
  await page.waitForLoadState("networkidle", { timeout: 5_000 }).catch(() => undefined);
}

/** A plain page: nothing to do but go there. */
const plain = (name: string, role: Role, url: (w: Walk) => string, status = 200): WalkPage => ({ name, role, open: (page, w) => visit(page, url(w), status) });

/** The pages, in the order the walks visit them. The dev mailbox is a developer's tool (served only with DEV_MAILBOX) and is not walked. */
export const PAGES: WalkPage[] = [
  // ── Signed out.
  plain("home", "signed-out", () => "/"),
  {
    name: "show page, signed out",
    role: "signed-out",
    open: async (page, w) => {
      await visit(page, `/events/${w.arena.slug}`);
      await expect(page.getByTestId("buy-panel")).toHaveAttribute("data-turn", "signed-out");
    },
  },
  plain("sign-in", "signed-out", () => "/sign-in"),
  plain("sign-up", "signed-out", () => "/sign-up"),
  plain("forgot password", "signed-out", () => "/forgot-password"),
  plain("reset password (from a link)", "signed-out", () => "/reset-password?token=walk-token"),
  plain("reset password (link not valid)", "signed-out", () => "/reset-password"),
  plain("address confirmed", "signed-out", () => "/verified?next=%2F"),
  plain("page not found", "signed-out", () => "/no-such-page", 404),
  // ── The fan.
  plain("waiting room before the on-sale", "fan", (w) => `/events/${w.queueSlug}/queue`),
  {
    name: "queue, waiting in line",
    role: "fan",
    open: async (page, w) => {
      await visit(page, `/events/${w.lineSlug}/queue`);
      await expect(page.getByRole("progressbar")).toBeVisible();
    },
  },
  {
    name: "show page, admitted, map open",
    role: "fan",
    open: async (page, w, lang) => {
      await ensureAdmitted(page.request, w.arena.id);
      await visit(page, `/events/${w.arena.slug}?admitted=1`);
      await expect(page.getByTestId("buy-panel")).toHaveAttribute("data-turn", "admitted");
      await page.getByRole("button", { name: message(lang, "Buy.map"), exact: true }).click();
      await expect(page.getByTestId("seat-map")).toHaveAttribute("data-available-count", /^\d+$/);
    },
  },
  {
    name: "order waiting for payment",
    role: "fan",
    open: async (page, w) => {
      await visit(page, `/orders/${w.pendingOrderId}`);
      await expect(page.getByTestId("hold-countdown")).toBeVisible();
    },
  },
  {
    name: "sandbox pay page",
    role: "fan",
    open: async (page, w) => {
      await visit(page, w.checkoutPath);
      await expect(page.getByTestId("approve-payment")).toBeVisible();
    },
  },
  {
    name: "order with tickets",
    role: "fan",
    open: async (page, w) => {
      await visit(page, `/orders/${w.ticketedOrderId}`);
      await expect(page.getByTestId("ticket").first().locator("svg")).toBeVisible();
    },
  },
  {
    name: "my tickets",
    role: "fan",
    open: async (page) => {
      await visit(page, "/tickets");
      await expect(page.getByTestId("ticket").first()).toBeVisible();
    },
  },
  // ── The door.
  plain("check-in (door staff)", "door", () => "/admin/scan"),
  plain("organizer page opened by door staff", "door", () => "/admin", 403),
  // ── The organizer.
  plain("organizer: shows", "organizer", () => "/admin"),
  plain("organizer: new show", "organizer", () => "/admin/events/new"),
  plain("organizer: edit show", "organizer", (w) => `/admin/events/${w.studio.id}/edit`),
  {
    name: "organizer: live",
    role: "organizer",
    open: async (page, w) => {
      await visit(page, `/admin/events/${w.studio.id}/live`);
      await expect(page.getByTestId("live-sold")).toBeVisible();
    },
  },
  plain("organizer: discrepancies", "organizer", (w) => `/admin/events/${w.studio.id}/discrepancies`),
  plain("organizer: orders", "organizer", (w) => `/admin/events/${w.studio.id}/orders`),
  plain("organizer: order", "organizer", (w) => `/admin/orders/${w.ticketedOrderId}`),
  plain("organizer: check-in with door staff", "organizer", () => "/admin/scan"),
  plain("organizer: page not found", "organizer", () => "/admin/no-such-page", 404),
];

/** Signs `context` in as `role` (its saved cookies) and chooses `lang` (the NEXT_LOCALE cookie the language switcher writes). */
export async function enter(context: BrowserContext, walk: Walk, role: Role, lang: Language) {
  await context.clearCookies();
  await context.addCookies([...(role === "signed-out" ? [] : walk.cookies[role]), { name: "NEXT_LOCALE", value: lang, url: BASE_URL }]);
}

// ─── Making what the pages need ─────────────────────────────────────────────────

const DATABASE = process.env.E2E_DATABASE ?? "stararena_e2e";
/** Where {@link walkSetup} keeps what it made: the run's results folder, which Playwright empties at the start of every run. */
const SAVED = path.join("test-results", `walk-${DATABASE}.json`);

/** The e2e server's database (scripts/e2e-server.ts: E2E_DATABASE), in plain SQL. */
export function e2eSql() {
  const url = new URL(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/stararena");
  url.pathname = `/${DATABASE}`;
  return postgres(url.toString(), { max: 1, onnotice: () => undefined });
}

/** Joins the show's queue (again, when a turn ended) until the fan in `api` is admitted. */
export async function ensureAdmitted(api: APIRequestContext, eventId: string): Promise<string> {
  let token = "";
  await expect(async () => {
    const me = (await (await api.get(`/api/events/${eventId}/queue/me`)).json()) as { state?: string; admissionToken?: string | null };
    if (me.state !== "admitted") {
      const joined = await api.post(`/api/events/${eventId}/queue${me.state === "waiting" ? "" : "?rejoin=1"}`, { headers: { origin: BASE_URL } });
      expect(joined.status(), await joined.text()).toBeLessThan(300);
    }
    expect(me.state).toBe("admitted");
    token = me.admissionToken ?? "";
    expect(token).not.toBe("");
  }).toPass({ timeout: 30_000, intervals: [300, 500, 1_000] });
  return token;
}

/**
 * Holds the best seat of the show's dearest level, then starts paying as the order page's Pay
 * button does, in Chinese (the PSP shows the description it was given, in the fan's language
 * then: the Chinese walk reads it). @returns the order and the sandbox checkout's path.
 */
async function holdOne(api: APIRequestContext, eventId: string): Promise<{ orderId: string; checkoutPath: string }> {
  const sql = e2eSql();
  const [level] = await sql<{ id: string }[]>`select id from price_levels where event_id = ${eventId} order by price_minor desc limit 1`;
  await sql.end();
  const token = await ensureAdmitted(api, eventId);
  const hold = await api.post(`/api/events/${eventId}/holds`, { data: { kind: "best", priceLevelId: level!.id, quantity: 1 }, headers: { authorization: `Bearer ${token}`, origin: BASE_URL } });
  const held = (await hold.json()) as { orderId?: string };
  expect(hold.status(), JSON.stringify(held)).toBe(201);
  const pay = await api.post(`/api/orders/${held.orderId}/checkout`, { headers: { origin: BASE_URL, "accept-language": "zh-CN" } });
  const checkout = (await pay.json()) as { url?: string };
  expect(pay.status(), JSON.stringify(checkout)).toBe(200);
  return { orderId: held.orderId!, checkoutPath: new URL(checkout.url!, BASE_URL).pathname };
}

async function signedInCookies(account: Account): Promise<Cookie[]> {
  const api = await request.newContext({ baseURL: BASE_URL, extraHTTPHeaders: { origin: BASE_URL } });
  const r = await api.post("/api/auth/sign-in/email", { data: account });
  expect(r.status(), await r.text()).toBe(200);
  const { cookies } = await api.storageState();
  await api.dispose();
  return cookies;
}

/** Whether a saved walk still fits the server's database (a new run recreates it, so its accounts are gone). */
async function stillThere(walk: Walk): Promise<boolean> {
  const sql = e2eSql();
  try {
    const rows = await sql`select 1 from orders where id = ${walk.ticketedOrderId}`;
    return rows.length === 1;
  } catch {
    return false;
  } finally {
    await sql.end();
  }
}

/**
 * What the walked pages need, made once per e2e server run (see the file's comment).
 * Takes about 20 s the first time.
 */
export async function walkSetup(): Promise<Walk> {
  if (existsSync(SAVED)) {
    const saved = JSON.parse(readFileSync(SAVED, "utf8")) as Walk;
    if (await stillThere(saved)) return refreshPending(saved);
  }
  const sql = e2eSql();
  const [studio] = await sql<{ id: string }[]>`select id from events where slug = 'studio-session'`;
  await sql.end();
  const stamp = Date.now().toString(36);
  const arenaSlug = `walk-arena-${stamp}`;
  const arenaId = await createArenaShow(arenaSlug);
  const queueSlug = `walk-queue-${stamp}`;
  await createQueueShow({ slug: queueSlug, inSeconds: 3_600, ratePerMinute: 100, activeCap: 50 });
  const lineSlug = `walk-line-${stamp}`;
  const lineId = await createQueueShow({ slug: lineSlug, inSeconds: -60, ratePerMinute: 100, activeCap: 50 });

  // The fan: a ticketed order and an order waiting for payment on the studio show, a turn on the arena show.
  const api = await request.newContext({ baseURL: BASE_URL, extraHTTPHeaders: { origin: BASE_URL } });
  const fanEmail = await signUpOverApi(api, "Walk Fan");
  const bought = await holdOne(api, studio!.id);
  const approve = /sbx_cs_[0-9a-z]+/.exec(bought.checkoutPath)![0];
  const approved = await api.post(`/sandbox-psp/api/checkouts/${approve}/approve`);
  expect(approved.status(), await approved.text()).toBe(200);
  await expect(async () => {
    const s = e2eSql();
    const tickets = await s`select 1 from tickets where order_id = ${bought.orderId}`;
    await s.end();
    expect(tickets.length).toBe(1);
  }).toPass({ timeout: 60_000, intervals: [500] });
  const pending = await holdOne(api, studio!.id);
  await ensureAdmitted(api, arenaId);

  // The organizer pauses the line's queue, then the fan joins it: they wait.
  const org = await request.newContext({ baseURL: BASE_URL, extraHTTPHeaders: { origin: BASE_URL } });
  const signedIn = await org.post("/api/auth/sign-in/email", { data: ORGANIZER });
  expect(signedIn.status()).toBe(200);
  const paused = await org.post(`/api/admin/events/${lineId}/queue`, { data: { paused: true } });
  expect(paused.status(), await paused.text()).toBe(200);
  const joined = await api.post(`/api/events/${lineId}/queue`);
  expect(joined.status(), await joined.text()).toBeLessThan(300);

  // Door staff of the demo organizer.
  const door = { email: `walk-door-${stamp}@example.test`, password: "door-staff-password" };
  await createDoorStaffAccount(door);
  const organizerCookies = (await org.storageState()).cookies;
  await org.dispose();
  const fanCookies = (await api.storageState()).cookies;
  await api.dispose();

  const walk: Walk = {
    database: DATABASE,
    cookies: { fan: fanCookies, organizer: organizerCookies, door: await signedInCookies(door) },
    fan: { email: fanEmail, password: "a-good-password" },
    door,
    studio: { id: studio!.id, slug: "studio-session" },
    arena: { id: arenaId, slug: arenaSlug },
    queueSlug,
    lineSlug,
    ticketedOrderId: bought.orderId,
    pendingOrderId: pending.orderId,
    checkoutPath: pending.checkoutPath,
  };
  save(walk);
  return walk;
}

function save(walk: Walk) {
  mkdirSync(path.dirname(SAVED), { recursive: true });
  writeFileSync(SAVED, JSON.stringify(walk, null, 2));
}

/** A saved walk whose order waiting for payment has run out (holds last 15 minutes) gets a new one. */
async function refreshPending(walk: Walk): Promise<Walk> {
  const sql = e2eSql();
  const [order] = await sql<{ status: string }[]>`select status from orders where id = ${walk.pendingOrderId}`;
  await sql.end();
  if (order?.status === "pending_payment") return walk;
  const api = await request.newContext({ baseURL: BASE_URL, extraHTTPHeaders: { origin: BASE_URL }, storageState: { cookies: walk.cookies.fan, origins: [] } });
  const pending = await holdOne(api, walk.studio.id);
  await api.dispose();
  const next = { ...walk, pendingOrderId: pending.orderId, checkoutPath: pending.checkoutPath };
  save(next);
  return next;
}

/** A door-staff account of the demo organizer, made as the check-in page's form makes it (lib/auth/staff.ts). */
async function createDoorStaffAccount(account: Account) {
  const { createDoorStaff } = await import("@/lib/auth/staff");
  const { db, closeDb } = await import("@/lib/db");
  const sql = e2eSql();
  const [organizer] = await sql<{ id: string }[]>`select id from "user" where email = ${ORGANIZER.email}`;
  await sql.end();
  await createDoorStaff(db(), organizer!.id, { name: "Walk Door", ...account });
  await closeDb();
}

// ─── The organizer's data, for the Chinese walk ─────────────────────────────────

/**
 * What people entered, which stays as entered in every language (ADR 0029): show names and
 * descriptions, price-level names, venue names and cities, section names, tiers and codes, row
 * labels, people's names; the tickets' short codes; and the PSPs' names as payments record them
 * (sandbox, stripe: brands). Read from the e2e server's database.
 */
export async function enteredData(): Promise<string[]> {
  const sql = e2eSql();
  try {
    const rows = await sql<{ v: string }[]>`
      select name as v from events union select description from events union select name from price_levels
      union select name from venues union select city from venues
      union select name from sections union select code from sections union select tier from sections union select distinct label from rows
      union select name from "user" union select short_code from tickets union select provider from payments`;
    return rows.map((r) => r.v).filter((v) => v && v.trim());
  } finally {
    await sql.end();
  }
}
