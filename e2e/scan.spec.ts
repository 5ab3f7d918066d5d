/**
 * The door (docs/adr/0019-door-staff-and-camera-check-in.md): a fan buys three tickets (over the
 * app's HTTP API, so no fan page is involved); the
 * organizer's phone-sized check-in page reads the first one's QR code from a camera — Chromium's
 * fake capture device playing a Y4M video of the real code — and checks it in exactly once; the
 * short code typed by hand then reads "Already used". The organizer adds a door-staff account,
 * which checks the second ticket in by its short code and gets 403 on the rest of /admin. The
 * third ticket is accepted offline by the organizer's page, meanwhile checked in at another door,
 * and the upload reports the conflict.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { chromium, expect, request, test, type Browser, type Page } from "@playwright/test";
import postgres from "postgres";
import QRCode from "qrcode";
import { ORGANIZER, signUpOverApi } from "./helpers";

/** The e2e server's database (scripts/e2e-server.ts: E2E_DATABASE, default stararena_e2e). */
function e2eDb() {
  const url = new URL(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/stararena");
  url.pathname = `/${process.env.E2E_DATABASE ?? "stararena_e2e"}`;
  return postgres(url.toString(), { max: 1 });
}

/**
 * An order's tickets as stored in the e2e server's database (seat order), each with how many
 * times the transition log moved it to `used`. Plain SQL, so this spec loads none of the app's modules.
 */
async function ticketsOfOrder(orderId: string): Promise<{ id: string; code: string; shortCode: string; status: string; checkIns: number }[]> {
  const sql = e2eDb();
  try {
    const rows = await sql<{ id: string; code: string; short_code: string; status: string; check_ins: number }[]>`
      select t.id, t.code, t.short_code, t.status,
             (select count(*)::int from order_transitions o where o.entity = 'ticket' and o.entity_id = t.id and o.to_status = 'used') as check_ins
      from tickets t where t.order_id = ${orderId} order by t.seat_id`;
    return rows.map((r) => ({ id: r.id, code: r.code, shortCode: r.short_code, status: r.status, checkIns: r.check_ins }));
  } finally {
    await sql.end();
  }
}

const W = 640;
const H = 480;

/** The QR module matrix of `text` as the fan's ticket draws it (lib/tickets/qr.ts: error correction M). */
const qrOf = (text: string) => QRCode.create(text, { errorCorrectionLevel: "M" });

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
 * code ({@link qrLuma}) — what
 * Chromium's `--use-file-for-fake-video-capture` plays, in a loop, as the camera.
 * @returns the file's path.
 */
function qrVideo(text: string, file: string): string {
  const luma = qrLuma(text);
  const chroma = Buffer.alloc((W / 2) * (H / 2) * 2, 128);
  const frame = Buffer.concat([Buffer.from("FRAME\n"), luma, chroma]);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, Buffer.concat([Buffer.from(`YUV4MPEG2 W${W} H${H} F10:1 Ip A1:1 C420jpeg\n`), ...Array.from({ length: 10 }, () => frame)]));
  return file;
}

/** The demo studio show's id and its first price level (by price, highest first). */
async function studioShow(): Promise<{ eventId: string; priceLevelId: string }> {
  const sql = e2eDb();
  try {
    const [row] = await sql<{ event_id: string; price_level_id: string }[]>`
      select e.id as event_id, pl.id as price_level_id from events e join price_levels pl on pl.event_id = e.id
      where e.slug = 'studio-session' order by pl.price_minor desc limit 1`;
    return { eventId: row!.event_id, priceLevelId: row!.price_level_id };
  } finally {
    await sql.end();
  }
}

/**
 * A new fan buys `quantity` best-available seats of the studio show over the app's own HTTP API —
 * sign-up (and the mailed link), queue, hold with checkout, approval on the sandbox PSP — as the on-sale simulator does
 * (no fan page involved). The app issues and signs the tickets (webhook → issuance).
 * @returns the order id once its tickets exist.
 */
async function buyOverApi(quantity: number): Promise<string> {
  const { eventId, priceLevelId } = await studioShow();
  const api = await request.newContext({ baseURL, extraHTTPHeaders: { origin: baseURL } });
  try {
    await signUpOverApi(api, "Door Fan");
    expect((await api.post(`/api/events/${eventId}/queue`)).status()).toBeLessThan(300);
    let token = "";
    await expect(async () => {
      const me = (await (await api.get(`/api/events/${eventId}/queue/me`)).json()) as { state?: string; admissionToken?: string | null };
      expect(me.state).toBe("admitted");
      token = me.admissionToken ?? "";
      expect(token).not.toBe("");
    }).toPass({ timeout: 30_000, intervals: [300] });
    const hold = await api.post(`/api/events/${eventId}/holds?pay=1`, { data: { kind: "best", priceLevelId, quantity }, headers: { authorization: `Bearer ${token}` } });
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

/** Signs `page`'s context in through better-auth's API (cookies land in the context), then opens /admin/scan. */
async function signInToScan(page: Page, account: { email: string; password: string }) {
  const r = await page.request.post("/api/auth/sign-in/email", { data: account, headers: { origin: baseURL } });
  expect(r.status(), await r.text()).toBe(200);
  await page.goto("/admin/scan");
  await expect(page.getByRole("heading", { name: "Check-in" })).toBeVisible();
}

/**
 * Asserts nothing on the check-in page reaches past the viewport's right edge (no sideways scroll
 * from it). The site header is the layout's, checked by e2e/mobile.spec.ts at its own width.
 */
async function expectScanPageFits(page: Page) {
  const { right, width } = (await page.evaluate(
    `(() => { const root = document.querySelector('[data-testid="scan-page"]'); let right = 0;
      for (const e of [root, ...root.querySelectorAll("*")]) { const r = e.getBoundingClientRect(); if (r.width > 0) right = Math.max(right, r.right + window.scrollX); }
      return { right: Math.ceil(right), width: window.innerWidth }; })()`,
  )) as { right: number; width: number };
  expect(right, `the check-in page reaches ${right} px in a ${width}-px viewport`).toBeLessThanOrEqual(width);
}

/** Types a code into the check-in box and presses Check in. */
async function typeCode(page: Page, code: string) {
  await page.getByLabel("Ticket code").fill(code);
  await page.getByRole("button", { name: "Check in", exact: true }).click();
}

const baseURL = `http://127.0.0.1:${process.env.E2E_PORT ?? 3100}`;
let camera: Browser | undefined;
test.afterAll(async () => {
  await camera?.close();
});

test("the door: camera scan checks a ticket in once, the short code by hand, door staff, offline with a conflict", async ({ browser }, testInfo) => {
  test.setTimeout(240_000);
  // ── A fan buys three tickets through the sandbox PSP (the app issues and signs them).
  const orderId = await buyOverApi(3);
  const all = await ticketsOfOrder(orderId);
  const [first, second, third] = [all[0]!, all[1]!, all[2]!];
  const at = (t: { id: string }) => all.findIndex((x) => x.id === t.id);
  expect(first.status).toBe("valid");

  // ── The organizer's phone at the door, its camera a video of the first ticket's QR code.
  const video = qrVideo(first.code, testInfo.outputPath("ticket-qr.y4m"));
  camera = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream", `--use-file-for-fake-video-capture=${video}`],
  });
  const phone = await camera.newContext({ baseURL, viewport: { width: 360, height: 740 }, permissions: ["camera"] });
  const org = await phone.newPage();
  await signInToScan(org, ORGANIZER);
  await expectScanPageFits(org);
  await org.getByRole("button", { name: "Scan with camera" }).click();
  await expect(org.getByTestId("camera")).toHaveAttribute("data-state", "on");
  await expect(org.getByTestId("scan-title")).toHaveText(/^Valid — Sec MAIN · Row \w · Seat \d+, checked in now$/, { timeout: 20_000 });
  await expect(org.getByTestId("scan-result")).toHaveAttribute("data-tone", "ok");
  await expectScanPageFits(org);
  await org.screenshot({ path: testInfo.outputPath("camera-scan.png"), fullPage: true });
  // The code stays in front of the camera: it is not sent again.
  await org.waitForTimeout(6_000);
  await expect(org.getByTestId("scan-log-entry")).toHaveCount(1);
  await expect(org.getByTestId("scan-log-entry").filter({ hasText: "Valid —" })).toHaveCount(1);
  expect((await ticketsOfOrder(orderId))[at(first)]).toMatchObject({ status: "used", checkIns: 1 });
  await org.getByRole("button", { name: "Stop camera" }).click();
  await expect(org.getByTestId("camera")).toHaveAttribute("data-state", "off");

  // ── The short code by hand, lower case with the dash: that ticket is used now.
  const formatted = `${first.shortCode.slice(0, 5)}-${first.shortCode.slice(5)}`.toLowerCase();
  await typeCode(org, formatted);
  await expect(org.getByTestId("scan-title")).toHaveText(/^Already used at \d\d:\d\d:\d\d$/);
  await expect(org.getByTestId("scan-result")).toHaveAttribute("data-tone", "bad");
  expect((await ticketsOfOrder(orderId))[at(first)]).toMatchObject({ status: "used", checkIns: 1 });

  // ── The organizer adds a door-staff account.
  const staff = { email: `door-${Date.now()}@example.test`, password: "door-staff-password" };
  await org.getByLabel("Name").fill("Dana Door");
  await org.getByLabel("Email").fill(staff.email);
  await org.getByLabel("Password").fill(staff.password);
  await org.getByRole("button", { name: "Add door staff" }).click();
  await expect(org.getByTestId("door-staff-outcome")).toHaveText(`Added ${staff.email}. They can sign in now.`);
  await expect(org.getByTestId("door-staff-member").filter({ hasText: staff.email })).toBeVisible();
  await expectScanPageFits(org);

  // ── Door staff sign in, check the second ticket in by its short code, and reach nothing else.
  const door = await (await browser.newContext()).newPage();
  await signInToScan(door, staff);
  await expect(door.getByTestId("door-staff")).toHaveCount(0);
  await typeCode(door, second!.shortCode);
  await expect(door.getByTestId("scan-title")).toHaveText(/^Valid — .*, checked in now$/);
  expect((await ticketsOfOrder(orderId))[at(second!)]).toMatchObject({ status: "used", checkIns: 1 });
  for (const p of ["/admin", "/admin/events/new", `/admin/orders/${orderId}`]) expect((await door.goto(p))?.status(), p).toBe(403);
  const { eventId } = await studioShow();
  expect((await door.request.get(`/api/admin/events/${eventId}/live`)).status()).toBe(403);
  await door.goto("/admin/scan");

  // ── Offline: the organizer's page verifies the third ticket's signature itself and queues it …
  await phone.setOffline(true);
  await typeCode(org, third!.code);
  await expect(org.getByTestId("scan-title")).toHaveText(/^Accepted offline \(will sync\) — Sec MAIN/);
  await expect(org.getByTestId("offline-waiting")).toHaveText("1 check-in accepted offline, waiting to sync.");
  // … while the same ticket is checked in at another door.
  await typeCode(door, third!.shortCode);
  await expect(door.getByTestId("scan-title")).toHaveText(/^Valid — /);
  // Back online: the upload reports the conflict, and the ticket was let in once.
  await phone.setOffline(false);
  await expect(org.getByTestId("offline-conflict")).toContainText(/Already used at \d\d:\d\d:\d\d/, { timeout: 20_000 });
  await expect(org.getByTestId("offline-waiting")).toHaveCount(0);
  expect((await ticketsOfOrder(orderId))[at(third!)]).toMatchObject({ status: "used", checkIns: 1 });
  await org.screenshot({ path: testInfo.outputPath("offline-conflict.png"), fullPage: true });
});
