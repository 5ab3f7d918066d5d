/**
 * The door (docs/adr/0019-door-staff-and-camera-check-in.md): a fan buys three tickets (over the
 * app's HTTP API, so no fan page is involved); the
 * organizer's phone-sized check-in page reads the first one's QR code from a camera — Chromium's
 * fake capture device playing a Y4M video of the real code — and checks it in exactly once; the
 * short code typed by hand then reads "Already used". The organizer adds a door-staff account,
 * which checks the second ticket in by its short code and gets 403 on the rest of /admin, with a
 * page that leads back to check-in. The
 * third ticket is accepted offline by the organizer's page, meanwhile checked in at another door,
 * and the upload reports the conflict.
 */
import { chromium, expect, test, type Browser, type Page } from "@playwright/test";
import { baseURL, buyOverApi, qrVideo, showBySlug, signInToScan as openScan, ticketsOfOrder } from "./door";
import { ORGANIZER } from "./helpers";

/** Signs in and opens /admin/scan, in English. */
async function signInToScan(page: Page, account: { email: string; password: string }) {
  await openScan(page, account);
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

let camera: Browser | undefined;
test.afterAll(async () => {
  await camera?.close();
});

test("the door: camera scan checks a ticket in once, the short code by hand, door staff, offline with a conflict", async ({ browser }, testInfo) => {
  test.setTimeout(240_000);
  // ── A fan buys three tickets through the sandbox PSP (the app issues and signs them).
  const orderId = await buyOverApi(await showBySlug("studio-session"), 3);
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
  for (const p of ["/admin", "/admin/events/new", `/admin/orders/${orderId}`]) {
    expect((await door.goto(p))?.status(), p).toBe(403);
    // Not "a fan account": the 403 page says the page is for organizers and leads back to check-in.
    await expect(door.getByRole("heading", { level: 1 }), p).toHaveText("This page is for organizers");
    await expect(door.getByRole("link", { name: "You can check tickets in here →" })).toHaveAttribute("href", "/admin/scan");
  }
  await expect(door.getByTestId("nav-check-in")).toHaveAttribute("href", "/admin/scan");
  const { eventId } = await showBySlug("studio-session");
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
