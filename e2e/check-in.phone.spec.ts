/**
 * The door on a phone (issue 42; 390×844, touch; in Chinese): door staff check 20 tickets in with
 * the camera — a fake camera the test holds each ticket's QR code up to (e2e/door.ts FAKE_CAMERA;
 * the app's video, frame grabs and jsQR run as with a real one) — and after every scan the
 * verdict is wholly on screen, over the camera view, and the page has not scrolled. A typed short code's verdict is on
 * screen too, camera on or off. Offline, after a reload, a ticket this phone let in is refused at
 * once ("已于 … 在本设备检票入场") by its QR code and by its short code. Door staff reach
 * check-in from the header, and an organizer page sends them there. Writes the README's picture
 * of the door, test-results/screenshots/phone-zh-door-scan.png (docs/screenshots/ has a copy).
 */
import { expect, test, type Page } from "@playwright/test";
import { buyOverApi, createDemoDoorStaff, createDoorShow, FAKE_CAMERA, qrBits, signInToScan, ticketsOfOrder, type StoredTicket } from "./door";

test.use({ locale: "zh-CN" });

/** The seat as a Chinese ticket prints it ("MAIN区 B排 4号"), worked out here from the stored parts. */
const seatZh = (t: StoredTicket) => `${t.section}区 ${t.row}排 ${t.number}号`;

/** Holds `t`'s QR code up to the fake camera. */
async function hold(page: Page, t: StoredTicket) {
  const { bits, size } = qrBits(t.code);
  await page.evaluate(([b, n]) => (window as unknown as { __camera: { show(b: string, n: number): void } }).__camera.show(b as string, n as number), [bits, size] as const);
}

/** Asserts the verdict box lies wholly inside the viewport and the page is not scrolled. */
async function expectVerdictOnScreen(page: Page, what: string) {
  const at = (await page.getByTestId("scan-result").evaluate((e) => {
    const r = e.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: window.innerWidth, height: window.innerHeight, scrollY: window.scrollY };
  })) as { top: number; bottom: number; left: number; right: number; width: number; height: number; scrollY: number };
  expect(at.scrollY, `${what}: the page scrolled`).toBe(0);
  expect(at.top, `${what}: the verdict starts above the screen`).toBeGreaterThanOrEqual(0);
  expect(at.left, `${what}: the verdict starts left of the screen`).toBeGreaterThanOrEqual(0);
  expect(at.bottom, `${what}: the verdict (${Math.round(at.top)}–${Math.round(at.bottom)}) ends below the ${at.height}-px screen`).toBeLessThanOrEqual(at.height);
  expect(at.right, `${what}: the verdict ends right of the screen`).toBeLessThanOrEqual(at.width);
}

/** Asserts the verdict is drawn over the running camera's view (inside its box), where the door looks. */
async function expectVerdictOverCamera(page: Page, what: string) {
  const [verdict, view] = await Promise.all([page.getByTestId("scan-result").boundingBox(), page.getByTestId("camera-stage").boundingBox()]);
  expect(verdict && view, `${what}: the verdict or the camera view is not shown`).toBeTruthy();
  const inside = verdict!.y >= view!.y - 0.5 && verdict!.y + verdict!.height <= view!.y + view!.height + 0.5 && verdict!.x >= view!.x - 0.5 && verdict!.x + verdict!.width <= view!.x + view!.width + 0.5;
  expect(inside, `${what}: the verdict (${JSON.stringify(verdict)}) is not over the camera view (${JSON.stringify(view)})`).toBe(true);
}

test("door staff check 20 tickets in on a phone without scrolling; offline a second scan is refused at once", async ({ page, context }) => {
  test.setTimeout(300_000);
  // ── 20 tickets of a show of the demo organizer, bought by two fans over the app's API.
  const show = await createDoorShow(`door-${Date.now().toString(36)}`);
  const orders = [await buyOverApi(show, 10), await buyOverApi(show, 10)];
  const tickets = [...(await ticketsOfOrder(orders[0]!)), ...(await ticketsOfOrder(orders[1]!))];
  expect(tickets).toHaveLength(20);
  const staff = await createDemoDoorStaff("门口 小李");

  // ── Door staff sign in on the phone: the header leads to check-in, an organizer page too.
  await page.addInitScript(FAKE_CAMERA);
  await signInToScan(page, staff);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("检票");
  await expect(page.getByTestId("nav-check-in")).toHaveText("检票");
  expect((await page.goto("/admin"))?.status()).toBe(403);
  await expect(page.getByTestId("forbidden")).toHaveAttribute("data-role", "door_staff");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("此页面仅供主办方使用");
  await page.getByRole("link", { name: "在这里检票 →" }).click();
  await expect(page).toHaveURL(/\/admin\/scan$/);

  // ── The camera on; each ticket held up to it in turn is let in, the verdict on screen.
  await page.getByRole("button", { name: "用摄像头扫码" }).click();
  await expect(page.getByTestId("camera")).toHaveAttribute("data-state", "on");
  for (const [i, t] of tickets.entries()) {
    await hold(page, t);
    await expect(page.getByTestId("scan-title")).toHaveText(`有效 — ${seatZh(t)}，已检票入场`);
    await expect(page.getByTestId("scan-result")).toHaveAttribute("data-tone", "ok");
    await expectVerdictOnScreen(page, `ticket ${i + 1}`);
    await expectVerdictOverCamera(page, `ticket ${i + 1}`);
    // The README's picture of the door (copied by hand into docs/screenshots/, as e2e/screenshots.spec.ts's are).
    if (i === tickets.length - 1) await page.screenshot({ path: "test-results/screenshots/phone-zh-door-scan.png" });
  }
  expect((await Promise.all(orders.map(ticketsOfOrder))).flat().map((t) => [t.status, t.checkIns])).toEqual(tickets.map(() => ["used", 1]));
  // Each admission buzzed once and chirped (two rising notes); nothing was refused.
  const felt = (await page.evaluate(() => (window as unknown as { __feedback: { vibrations: unknown[]; notes: number[] } }).__feedback)) as { vibrations: unknown[]; notes: number[] };
  expect(felt.vibrations).toEqual(tickets.map(() => 120));
  expect(felt.notes).toEqual(tickets.flatMap(() => [880, 1320]));

  // The first ticket again: refused with the time it got in, on screen, with the refusal's buzz.
  await hold(page, tickets[0]!);
  await expect(page.getByTestId("scan-title")).toHaveText(/^已于 \d\d:\d\d:\d\d 检票入场$/);
  await expect(page.getByTestId("scan-result")).toHaveAttribute("data-tone", "bad");
  await expectVerdictOnScreen(page, "ticket 1 again");
  expect(await page.evaluate(() => (window as unknown as { __feedback: { vibrations: unknown[] } }).__feedback.vibrations.at(-1))).toEqual([250, 100, 250]);

  // A short code typed while the camera runs: its verdict is on the camera view.
  await page.getByLabel("票码", { exact: true }).fill(tickets[1]!.shortCode.toLowerCase());
  await page.getByRole("button", { name: "检票", exact: true }).click();
  await expect(page.getByTestId("scan-title")).toHaveText(/^已于 \d\d:\d\d:\d\d 检票入场$/);
  await expect(page.getByTestId("scan-detail")).toContainText(seatZh(tickets[1]!));
  await expectVerdictOnScreen(page, "typed short code, camera on");
  await expectVerdictOverCamera(page, "typed short code, camera on");

  // ── Offline after a reload (what the phone remembers is stored, not held in the page).
  await page.reload();
  await page.getByRole("button", { name: "用摄像头扫码" }).click();
  await expect(page.getByTestId("camera")).toHaveAttribute("data-state", "on");
  await context.setOffline(true);
  const t5 = tickets[4]!;
  const shown = Date.now();
  await hold(page, t5);
  await expect(page.getByTestId("scan-title")).toHaveText(/^已于 \d\d:\d\d:\d\d 在本设备检票入场$/, { timeout: 1_500 });
  const took = Date.now() - shown;
  await expect(page.getByTestId("scan-result")).toHaveAttribute("data-tone", "bad");
  await expect(page.getByTestId("scan-detail")).toContainText(seatZh(t5));
  await expectVerdictOnScreen(page, "offline, ticket 5 again");
  await expectVerdictOverCamera(page, "offline, ticket 5 again");
  expect(took, "offline refusal time (ms)").toBeLessThan(1_500);

  // Typed by its short code, camera off: refused at once too, in the panel above the code box.
  await page.getByRole("button", { name: "关闭摄像头" }).click();
  await expect(page.getByTestId("camera")).toHaveAttribute("data-state", "off");
  await page.getByLabel("票码", { exact: true }).fill(tickets[7]!.shortCode);
  await page.getByRole("button", { name: "检票", exact: true }).click();
  await expect(page.getByTestId("scan-title")).toHaveText(/^已于 \d\d:\d\d:\d\d 在本设备检票入场$/, { timeout: 1_000 });
  await expect(page.getByTestId("scan-detail")).toContainText(seatZh(tickets[7]!));
  await expectVerdictOnScreen(page, "offline, typed short code, camera off");
  // Nothing was queued for upload: the phone refused, it did not accept again.
  await expect(page.getByTestId("offline-waiting")).toHaveCount(0);
  await context.setOffline(false);
  expect((await Promise.all(orders.map(ticketsOfOrder))).flat().map((t) => t.checkIns)).toEqual(tickets.map(() => 1));
});
