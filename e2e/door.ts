/**
 * Helpers for the door's specs (e2e/scan.spec.ts, e2e/check-in.phone.spec.ts): tickets bought
 * over the app's own HTTP API and read back from the e2e server's database, QR codes for a
 * camera, a show and a door-staff account of the demo organizer made with the app's own lib
 * functions (as e2e/db.ts does).
 */
const base = new URL(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/stararena");
base.pathname = `/${process.env.E2E_DATABASE ?? "stararena_e2e"}`;
process.env.DATABASE_URL = base.toString();

import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect, request, type Page } from "@playwright/test";
import { eq } from "drizzle-orm";
import postgres from "postgres";
import QRCode from "qrcode";
import { user } from "@/db/schema";
import { createDoorStaff } from "@/lib/auth/staff";
import { closeDb, db } from "@/lib/db";
import { createEvent } from "@/lib/events/create";
import { findVenueBySlug } from "@/lib/venues/store";
import { signUpOverApi } from "./helpers";

/** The e2e server's address (playwright.config.ts). */
export const baseURL = `http://127.0.0.1:${process.env.E2E_PORT ?? 3100}`;

/** The e2e server's database (scripts/e2e-server.ts: E2E_DATABASE, default stararena_e2e), in plain SQL. */
function e2eDb() {
  return postgres(base.toString(), { max: 1 });
}

/** A ticket as stored, with its seat's parts and how many times the transition log moved it to `used`. */
export interface StoredTicket {
  id: string;
  code: string;
  shortCode: string;
  status: string;
  checkIns: number;
  section: string;
  row: string;
  number: number;
}

/** An order's tickets as stored in the e2e server's database (seat order). */
export async function ticketsOfOrder(orderId: string): Promise<StoredTicket[]> {
  const sql = e2eDb();
  try {
    const rows = await sql<{ id: string; code: string; short_code: string; status: string; check_ins: number; section: string; row: string; number: number }[]>`
      select t.id, t.code, t.short_code, t.status, sec.code as section, r.label as row, s.number,
             (select count(*)::int from order_transitions o where o.entity = 'ticket' and o.entity_id = t.id and o.to_status = 'used') as check_ins
      from tickets t join seats s on s.id = t.seat_id join sections sec on sec.id = s.section_id join rows r on r.id = s.row_id
      where t.order_id = ${orderId} order by t.seat_id`;
    return rows.map((r) => ({ id: r.id, code: r.code, shortCode: r.short_code, status: r.status, checkIns: r.check_ins, section: r.section, row: r.row, number: r.number }));
  } finally {
    await sql.end();
  }
}

/** A show's id and its first price level (by price, highest first), by slug. */
export async function showBySlug(slug: string): Promise<{ eventId: string; priceLevelId: string }> {
  const sql = e2eDb();
  try {
    const [row] = await sql<{ event_id: string; price_level_id: string }[]>`
      select e.id as event_id, pl.id as price_level_id from events e join price_levels pl on pl.event_id = e.id
      where e.slug = ${slug} order by pl.price_minor desc limit 1`;
    return { eventId: row!.event_id, priceLevelId: row!.price_level_id };
  } finally {
    await sql.end();
  }
}

/**
 * A new fan buys `quantity` (≤ 10) best-available seats of a show over the app's own HTTP API —
 * sign-up (and the mailed link), queue, hold with checkout, approval on the sandbox PSP — as the
 * on-sale simulator does (no fan page involved). The app issues and signs the tickets.
 * @returns the order id once its tickets exist.
 */
export async function buyOverApi(show: { eventId: string; priceLevelId: string }, quantity: number): Promise<string> {
  const api = await request.newContext({ baseURL, extraHTTPHeaders: { origin: baseURL } });
  try {
    await signUpOverApi(api, "Door Fan");
    expect((await api.post(`/api/events/${show.eventId}/queue`)).status()).toBeLessThan(300);
    let token = "";
    await expect(async () => {
      const me = (await (await api.get(`/api/events/${show.eventId}/queue/me`)).json()) as { state?: string; admissionToken?: string | null };
      expect(me.state).toBe("admitted");
      token = me.admissionToken ?? "";
      expect(token).not.toBe("");
    }).toPass({ timeout: 30_000, intervals: [300] });
    const hold = await api.post(`/api/events/${show.eventId}/holds?pay=1`, { data: { kind: "best", priceLevelId: show.priceLevelId, quantity }, headers: { authorization: `Bearer ${token}` } });
    const held = (await hold.json()) as { orderId?: string; checkoutUrl?: string };
    expect(hold.status(), JSON.stringify(held)).toBe(201);
    const checkoutId = /sbx_cs_[0-9a-z]+/.exec(held.checkoutUrl ?? "")![0];
    const approved = await api.post(`/sandbox-psp/api/checkouts/${checkoutId}/approve`);
    expect(approved.status(), await approved.text()).toBe(200);
    await expect(async () => expect(await ticketsOfOrder(held.orderId!)).toHaveLength(quantity)).toPass({ timeout: 60_000, intervals: [500] });
    return held.orderId!;
  } finally {
    await api.dispose();
  }
}

/**
 * A published show of the demo organizer in the 50-seat studio, on sale since a minute ago, a fan
 * may buy 10 seats of (so a door's tickets come from two orders). @returns its id and price level.
 */
export async function createDoorShow(slug: string): Promise<{ eventId: string; priceLevelId: string }> {
  const venue = (await findVenueBySlug(db(), "the-studio"))!;
  const organizer = (await db().query.user.findFirst({ where: eq(user.email, "organizer@stararena.test") }))!;
  const now = Date.now();
  const { eventId } = await createEvent(db(), {
    venueId: venue.id,
    organizerId: organizer.id,
    name: "Door Rehearsal",
    slug,
    status: "published",
    startsAt: new Date(now + 3 * 86_400_000),
    onSaleAt: new Date(now - 60_000),
    timeZone: venue.timeZone,
    admissionRatePerMinute: 600,
    activeCap: 100,
    perFanLimit: 10,
    priceLevels: [{ name: "Standard", priceMinor: 3_000, currency: "EUR", color: "#0d9488", seats: [{}] }],
  });
  await closeDb();
  return showBySlug(slug).then((s) => ({ ...s, eventId }));
}

/** A new door-staff account of the demo organizer (lib/auth/staff.ts, as the organizer's form makes it). */
export async function createDemoDoorStaff(name: string): Promise<{ email: string; password: string }> {
  const organizer = (await db().query.user.findFirst({ where: eq(user.email, "organizer@stararena.test") }))!;
  const account = { email: `door-${Date.now()}@example.test`, password: "door-staff-password" };
  await createDoorStaff(db(), organizer.id, { name, ...account });
  await closeDb();
  return account;
}

/** Signs `page`'s context in through better-auth's API (cookies land in the context), then opens /admin/scan. */
export async function signInToScan(page: Page, account: { email: string; password: string }) {
  const r = await page.request.post("/api/auth/sign-in/email", { data: account, headers: { origin: baseURL } });
  expect(r.status(), await r.text()).toBe(200);
  await page.goto("/admin/scan");
  await expect(page.getByTestId("scan-page")).toBeVisible();
}

// ─── QR codes for a camera ───────────────────────────────────────────────────

const W = 640;
const H = 480;

/** The QR module matrix of `text` as the fan's ticket draws it (lib/tickets/qr.ts: error correction M). */
const qrOf = (text: string) => QRCode.create(text, { errorCorrectionLevel: "M" });

/** `text`'s QR code as a string of '0'/'1' modules, row by row, with its side: what {@link FAKE_CAMERA} draws. */
export function qrBits(text: string): { bits: string; size: number } {
  const qr = qrOf(text);
  const size = qr.modules.size;
  let bits = "";
  for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) bits += qr.modules.get(y, x) ? "1" : "0";
  return { bits, size };
}

/** The luma plane (640×480, 0 black … 255 white) of `text`'s QR code, centred, as large as fits with a 4-module white quiet zone. */
function qrLuma(text: string): Buffer {
  const qr = qrOf(text);
  const size = qr.modules.size;
  const scale = Math.floor(H / (size + 8));
  const side = size * scale;
  const x0 = Math.floor((W - side) / 2);
  const y0 = Math.floor((H - side) / 2);
  const luma = Buffer.alloc(W * H, 255);
  for (let my = 0; my < size; my++) {
    for (let mx = 0; mx < size; mx++) {
      if (!qr.modules.get(my, mx)) continue;
      for (let y = 0; y < scale; y++) luma.fill(0, (y0 + my * scale + y) * W + x0 + mx * scale, (y0 + my * scale + y) * W + x0 + (mx + 1) * scale);
    }
  }
  return luma;
}

/**
 * Writes a YUV4MPEG2 video (640×480, 4:2:0 JPEG-range chroma, 10 identical frames) of `text`'s QR
 * code — what Chromium's `--use-file-for-fake-video-capture` plays, in a loop, as the camera.
 * @returns the file's path.
 */
export function qrVideo(text: string, file: string): string {
  const luma = qrLuma(text);
  const chroma = Buffer.alloc((W / 2) * (H / 2) * 2, 128);
  const frame = Buffer.concat([Buffer.from("FRAME\n"), luma, chroma]);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, Buffer.concat([Buffer.from(`YUV4MPEG2 W${W} H${H} F10:1 Ip A1:1 C420jpeg\n`), ...Array.from({ length: 10 }, () => frame)]));
  return file;
}

/**
 * An init script that gives the page a camera the test holds tickets up to: `getUserMedia`
 * answers a 640×480 canvas stream that draws whatever `window.__camera.show(bits, size)` was given
 * ({@link qrBits}; `blank()` shows white), redrawn ten times a second. The app's whole camera path
 * — video element, frame grabs, jsQR — runs as with a real camera. It also records the door's
 * vibrations and beeps (`window.__feedback`: vibrate patterns, oscillator frequencies).
 */
export const FAKE_CAMERA = `(() => {
  const W = ${W}, H = ${H};
  const canvas = document.createElement("canvas");
  canvas.width = W; canvas.height = H;
  const g = canvas.getContext("2d");
  let bits = null, size = 0;
  const draw = () => {
    g.fillStyle = "#fff"; g.fillRect(0, 0, W, H);
    if (!bits) return;
    const scale = Math.floor(H / (size + 8)), side = size * scale, x0 = (W - side) >> 1, y0 = (H - side) >> 1;
    g.fillStyle = "#000";
    for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) if (bits[y * size + x] === "1") g.fillRect(x0 + x * scale, y0 + y * scale, scale, scale);
  };
  draw();
  setInterval(draw, 100);
  window.__camera = { show(b, n) { bits = b; size = n; draw(); }, blank() { bits = null; draw(); } };
  const getUserMedia = async () => canvas.captureStream(15);
  if (navigator.mediaDevices) navigator.mediaDevices.getUserMedia = getUserMedia;
  else Object.defineProperty(navigator, "mediaDevices", { value: { getUserMedia }, configurable: true });
  window.__feedback = { vibrations: [], notes: [] };
  navigator.vibrate = (pattern) => { window.__feedback.vibrations.push(pattern); return true; };
  const start = OscillatorNode.prototype.start;
  OscillatorNode.prototype.start = function (...args) { window.__feedback.notes.push(this.frequency.value); return start.apply(this, args); };
})();`;
