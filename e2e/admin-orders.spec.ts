import { readFile } from "node:fs/promises";
import { expect, test, type Page } from "@playwright/test";
import { createQueueShow } from "./db";
import { clickSeat, enterThroughQueue, ORGANIZER, signIn, signUp } from "./helpers";

const FAN3 = { email: "fan3@stararena.test", password: "fan-demo-3" };
/** Row E · Seat 8 of "studio-session": far from the seats the other specs buy there. */
const ORDINAL = 47;
const SEAT = "Sec MAIN · Row E · Seat 8";

/** Picks `ordinal` on the map (the map must show it free). */
async function pickSeat(page: Page, eventId: string) {
  await page.getByRole("button", { name: "Pick on the map" }).click();
  await expect(page.getByTestId("seat-map")).toHaveAttribute("data-seat-count", "50");
  await clickSeat(page, eventId, ORDINAL);
  await expect(page.getByTestId("picked-seats")).toHaveText(SEAT);
}

async function scan(page: Page, code: string) {
  await page.getByLabel("Ticket code").fill(code);
  await page.getByRole("button", { name: "Check in" }).click();
}

test("the organizer finds a fan's order by email, checks a ticket in once, refunds the order; the seat goes back on sale", async ({ browser }, testInfo) => {
  test.setTimeout(180_000);
  // ── A fan buys one seat through the sandbox PSP.
  const fan = await (await browser.newContext()).newPage();
  await signIn(fan, FAN3, "/events/studio-session");
  await enterThroughQueue(fan, "studio-session");
  const eventId = await fan.request
    .get("/events/studio-session")
    .then((r) => r.text())
    .then((html) => /evt_[0-9a-z]+/.exec(html)![0]);
  await pickSeat(fan, eventId);
  await fan.getByRole("button", { name: /^Hold 1 seat · €29\.00/ }).click();
  await expect(fan).toHaveURL(/\/orders\/ord_/);
  const orderId = /ord_[0-9a-z]+/.exec(fan.url())![0];
  await fan.getByRole("button", { name: "Pay €29.00" }).click();
  await fan.getByRole("button", { name: "Approve payment" }).click();
  await expect(fan.getByTestId("order-status")).toHaveText("Your tickets are ready");

  // ── A fan cannot open the admin pages.
  for (const path of [`/admin/events/${eventId}/orders`, `/admin/orders/${orderId}`, `/admin/events/${eventId}/discrepancies`, "/admin/scan"]) {
    const res = await fan.goto(path);
    expect(res?.status(), path).toBe(403);
  }

  // ── The organizer searches by part of the fan's email, in capitals.
  const org = await (await browser.newContext()).newPage();
  await signIn(org, ORGANIZER, "/admin");
  await org.goto(`/admin/events/${eventId}/orders`);
  await org.getByLabel("Search orders").fill("FAN3@STARARENA");
  await org.getByRole("button", { name: "Search" }).click();
  await expect(org).toHaveURL(/\?q=FAN3%40STARARENA/);
  const row = org.getByTestId("order-result").filter({ hasText: orderId });
  await expect(row).toContainText(SEAT);
  await expect(row).toContainText("fan3@stararena.test");
  // The seat finds it too.
  await org.getByLabel("Search orders").fill("Row E · Seat 8");
  await org.getByRole("button", { name: "Search" }).click();
  await expect(org.getByTestId("order-result").filter({ hasText: orderId })).toBeVisible();
  await org.getByRole("link", { name: orderId }).click();

  await expect(org).toHaveURL(new RegExp(`/admin/orders/${orderId}$`));
  await expect(org.getByTestId("admin-order-status")).toHaveAttribute("data-status", "ticketed");
  await expect(org.getByTestId("admin-payment-status")).toHaveAttribute("data-status", "captured");
  await expect(org.getByTestId("transition").last()).toContainText("ticketed");
  // The log's columns keep space between them: the time does not run into the next column ("17:34 CETorder").
  const gap = await org
    .getByTestId("transition")
    .first()
    .evaluate((tr) => {
      const [when, what] = [...tr.children] as HTMLElement[];
      const text = document.createRange();
      text.selectNodeContents(what!);
      return text.getBoundingClientRect().left - when!.querySelector("time")!.getBoundingClientRect().right;
    });
  expect(gap).toBeGreaterThanOrEqual(8);
  await expect(org.getByTestId("admin-payment-money")).toHaveText("€29.00 captured");
  const code = (await org.getByTestId("ticket-code").first().textContent())!.trim();
  expect(code).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  await org.screenshot({ path: testInfo.outputPath("admin-order.png"), fullPage: true });

  // ── Check-in: once, then refused with the first scan's time; a forged code is refused.
  await org.goto("/admin/scan");
  await scan(org, code);
  await expect(org.getByTestId("scan-title")).toHaveText(`Valid — ${SEAT}, checked in now`);
  await expect(org.getByTestId("scan-result")).toHaveAttribute("data-tone", "ok");
  await scan(org, code);
  await expect(org.getByTestId("scan-title")).toHaveText(/^Already used at \d\d:\d\d:\d\d$/);
  await expect(org.getByTestId("scan-result")).toHaveAttribute("data-tone", "bad");
  const [h, p, s] = code.split(".");
  await scan(org, [h, p, (s![0] === "A" ? "B" : "A") + s!.slice(1)].join("."));
  await expect(org.getByTestId("scan-title")).toHaveText("Not a genuine ticket");
  await org.screenshot({ path: testInfo.outputPath("admin-scan.png"), fullPage: true });

  // ── Refund, behind a confirmation step.
  await org.goto(`/admin/orders/${orderId}`);
  await org.getByRole("button", { name: "Refund", exact: true }).click();
  await expect(org.getByTestId("confirm-action")).toContainText("€29.00 back");
  await org.getByRole("button", { name: "Yes, refund €29.00" }).click();
  await expect(org.getByTestId("action-outcome")).toHaveText(`Refunded €29.00. 1 ticket voided. ${SEAT} is back on sale.`);
  await expect(org.getByTestId("admin-order-status")).toHaveAttribute("data-status", "refunded");
  await expect(org.getByTestId("admin-payment-status")).toHaveAttribute("data-status", "refunded");
  await expect(org.getByTestId("admin-payment-money")).toHaveText("€29.00 captured · €29.00 refunded");
  await expect(org.getByTestId("admin-ticket-status")).toHaveAttribute("data-status", "void");
  await expect(org.getByRole("button", { name: "Refund", exact: true })).toBeDisabled();
  await org.screenshot({ path: testInfo.outputPath("admin-order-refunded.png"), fullPage: true });

  // The refunded ticket no longer gets in.
  await org.goto("/admin/scan");
  await scan(org, code);
  await expect(org.getByTestId("scan-title")).toHaveText("Refunded ticket");

  // ── The fan sees the refund.
  await fan.goto(`/orders/${orderId}`);
  await expect(fan.getByTestId("order-status")).toHaveText("Refunded");
  await expect(fan.getByText("This order was refunded in full.")).toBeVisible();

  // ── The seat is on sale again: another fan (a new account) holds exactly it, then gives it back.
  const other = await (await browser.newContext()).newPage();
  await signUp(other, "Second Fan", "/events/studio-session");
  await enterThroughQueue(other, "studio-session");
  await pickSeat(other, eventId);
  await other.getByRole("button", { name: /^Hold 1 seat/ }).click();
  await expect(other).toHaveURL(/\/orders\/ord_/);
  await expect(other.getByRole("cell", { name: SEAT })).toBeVisible();
  await other.getByRole("button", { name: "Give the seats back" }).click();
  // It asks once more; "Keep them" would keep the hold.
  await other.getByRole("button", { name: "Yes, give them back" }).click();
  await expect(other.getByTestId("order-status")).toHaveText("Seats given back");
  await expect(other.getByTestId("pick-again")).toHaveAttribute("href", /^\/events\//);
});

test("the discrepancies page lists findings and runs reconciliation on demand", async ({ page }, testInfo) => {
  await signIn(page, ORGANIZER, "/admin");
  const eventId = await page.request
    .get("/events/studio-session")
    .then((r) => r.text())
    .then((html) => /evt_[0-9a-z]+/.exec(html)![0]);
  await page.goto(`/admin/events/${eventId}/discrepancies`);
  await expect(page.getByRole("heading", { name: "Discrepancies" })).toBeVisible();
  await page.getByRole("button", { name: "Run reconciliation now" }).click();
  await expect(page.getByTestId("reconcile-result")).toContainText("Reconciled: every invariant holds.");
  await page.screenshot({ path: testInfo.outputPath("admin-discrepancies.png"), fullPage: true });
});

test("the organizer filters a show's orders by status, pages stay filtered, and the CSV download holds exactly the filtered orders", async ({ browser }, testInfo) => {
  test.setTimeout(180_000);
  const slug = `orders-list-${Date.now()}`;
  const eventId = await createQueueShow({ slug, inSeconds: -5, ratePerMinute: 600, activeCap: 100 });
  // ── Three orders: one ticketed, one given back (cancelled), one waiting for payment.
  const buyer = await (await browser.newContext()).newPage();
  // A fan of its own: the seeded fans' ticket counts belong to other specs (buy.spec.ts counts fan1's).
  const buyerEmail = await signUp(buyer, "CSV Buyer");
  await enterThroughQueue(buyer, slug);
  await buyer.locator("#buy-quantity").selectOption("1");
  await buyer.getByRole("button", { name: "Hold the best seat" }).click();
  await buyer.getByRole("button", { name: /^Pay/ }).click();
  await buyer.getByRole("button", { name: "Approve payment" }).click();
  await expect(buyer.getByTestId("order-status")).toHaveText("Your tickets are ready");
  const ticketedId = /ord_[0-9a-z]+/.exec(buyer.url())![0];
  const leaver = await (await browser.newContext()).newPage();
  await signIn(leaver, { email: "fan2@stararena.test", password: "fan-demo-2" });
  await enterThroughQueue(leaver, slug);
  await leaver.locator("#buy-quantity").selectOption("1");
  await leaver.getByRole("button", { name: "Hold the best seat" }).click();
  await leaver.getByRole("button", { name: "Give the seats back" }).click();
  await leaver.getByRole("button", { name: "Yes, give them back" }).click();
  await expect(leaver.getByTestId("order-status")).toHaveText("Seats given back");
  const waiter = await (await browser.newContext()).newPage();
  await signIn(waiter, FAN3);
  await enterThroughQueue(waiter, slug);
  await waiter.locator("#buy-quantity").selectOption("1");
  await waiter.getByRole("button", { name: "Hold the best seat" }).click();
  await expect(waiter).toHaveURL(/\/orders\/ord_/);

  // ── The organizer's list: all three, with a count per status.
  const org = await (await browser.newContext()).newPage();
  await signIn(org, ORGANIZER, "/admin");
  await org.goto(`/admin/events/${eventId}/orders`);
  await expect(org.getByTestId("order-list-summary")).toHaveText("3 orders · page 1 of 1");
  await expect(org.getByTestId("order-row")).toHaveCount(3);
  await expect(org.locator('[data-testid="order-filter"][data-status="ticketed"]')).toHaveText("ticketed 1");
  await expect(org.locator('[data-testid="order-filter"][data-status="cancelled"]')).toHaveText("cancelled 1");

  // ── Filter: ticketed. The CSV link carries the filter; its download is that one order.
  await org.getByRole("link", { name: "ticketed 1" }).click();
  await expect(org).toHaveURL(new RegExp(`/admin/events/${eventId}/orders\\?status=ticketed$`));
  await expect(org.getByTestId("order-list-summary")).toHaveText("1 order · ticketed · page 1 of 1");
  await expect(org.getByTestId("order-row")).toHaveCount(1);
  await expect(org.getByTestId("order-row")).toHaveAttribute("data-status", "ticketed");
  await expect(org.getByTestId("order-row")).toContainText(ticketedId);
  await org.screenshot({ path: testInfo.outputPath("admin-orders-ticketed.png"), fullPage: true });
  const csvOf = async () => {
    const [download] = await Promise.all([org.waitForEvent("download"), org.getByRole("link", { name: "Download CSV" }).click()]);
    return { name: download.suggestedFilename(), text: await readFile(await download.path(), "utf8") };
  };
  const ticketed = await csvOf();
  expect(ticketed.name).toBe(`${slug}-orders-ticketed.csv`);
  const lines = ticketed.text.split("\r\n");
  expect(lines[0]).toBe("order id,status,fan email,fan name,seats,total,currency,created at (UTC),created at (Europe/Berlin),paid at (UTC),refunded");
  expect(lines.at(-1)).toBe("");
  const rows = lines.slice(1, -1).map((l) => l.split(","));
  expect(rows.map((r) => [r[0], r[1], r[2], r[4], r[5], r[6]])).toEqual([[ticketedId, "ticketed", buyerEmail, "1", "30.00", "EUR"]]);
  expect(rows[0]![9]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

  // ── Another filter: waiting for payment; its CSV too has only such orders.
  await org.getByRole("link", { name: /^pending payment/ }).click();
  await expect(org).toHaveURL(/\?status=pending_payment$/);
  await expect(org.getByTestId("order-row")).toHaveCount(1);
  const pending = await csvOf();
  expect(pending.name).toBe(`${slug}-orders-pending_payment.csv`);
  const pendingRows = pending.text.split("\r\n").slice(1, -1);
  expect(pendingRows).toHaveLength(1);
  for (const r of pendingRows) expect(r.split(",")[1]).toBe("pending_payment");
  // An unknown status is explained; a page past the last shows the last.
  await org.goto(`/admin/events/${eventId}/orders?status=shipped`);
  await expect(org.getByTestId("order-list-error")).toContainText('"shipped" is not an order status.');
  await org.goto(`/admin/events/${eventId}/orders?status=cancelled&page=7`);
  await expect(org.getByTestId("order-list-summary")).toHaveText("1 order · cancelled · page 1 of 1");

  // ── A phone-wide screen: the page is no wider than the screen; each order is a card (the table's rows stacked).
  await org.setViewportSize({ width: 360, height: 800 });
  await org.goto(`/admin/events/${eventId}/orders`);
  await expect(org.getByTestId("order-row")).toHaveCount(3);
  expect(await org.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(360);
  expect(await org.evaluate("document.querySelector('main').scrollWidth")).toBeLessThanOrEqual(360);
  for (const box of await Promise.all((await org.getByTestId("order-row").all()).map((r) => r.boundingBox()))) expect(box!.x + box!.width).toBeLessThanOrEqual(360);
  await expect(org.locator("[data-testid=order-list] thead")).toHaveCSS("position", "absolute"); // the header is for screen readers only
  await org.screenshot({ path: testInfo.outputPath("admin-orders-360.png"), fullPage: true });

  // ── The CSV is the organizer's only: signed out 401, a fan 403.
  const csvUrl = `/api/admin/events/${eventId}/orders.csv?status=ticketed`;
  const anonymous = await browser.newContext();
  expect((await anonymous.request.get(csvUrl)).status()).toBe(401);
  expect((await buyer.request.get(csvUrl)).status()).toBe(403);
});
