import { expect, test, type Page } from "@playwright/test";
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
