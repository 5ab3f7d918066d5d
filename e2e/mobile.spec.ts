/**
 * StarArena on a phone (the "mobile" project: 390×844, touch): a fan buys two adjacent seats
 * picked on the 20,000-seat arena's map with taps alone, and no fan or door page scrolls
 * sideways at 360 px.
 */
import { expect, test } from "@playwright/test";
import { createArenaShow } from "./db";
import { createDoorShow } from "./door";
import { adjacentPair, clickSeat, enterThroughQueue, expectNoSidewaysScroll, ORGANIZER, seatMapOf, signIn, signUp } from "./helpers";

test("a fan on a phone taps a section, then two adjacent seats, and buys them", async ({ page }, testInfo) => {
  const slug = `arena-phone-${Date.now()}`;
  const eventId = await createArenaShow(slug);
  await signUp(page, "Phone Fan", `/events/${slug}`);
  await enterThroughQueue(page, slug);
  await expectNoSidewaysScroll(page);
  await page.getByRole("button", { name: "Pick on the map" }).tap();
  await expect(page.getByTestId("seat-map")).toHaveAttribute("data-seat-count", "20000");
  await expect(page.getByTestId("seat-map")).toHaveAttribute("data-pickable", "false");
  const [a, b] = adjacentPair(await seatMapOf(page, eventId), "212", 7);
  await clickSeat(page, eventId, a, { touch: true });
  await clickSeat(page, eventId, b, { touch: true });
  await expect(page.getByTestId("picked-seats")).toHaveText("Sec 212 · Row 1 · Seat 7, Sec 212 · Row 1 · Seat 8");
  await page.getByTestId("seat-map").screenshot({ path: testInfo.outputPath("phone-seat-map-picked.png") });
  await page.getByRole("button", { name: /Hold 2 seats · €158\.00/ }).tap();

  await expect(page).toHaveURL(/\/orders\/ord_/);
  await expectNoSidewaysScroll(page);
  await page.getByRole("button", { name: "Pay €158.00" }).tap();
  await expect(page).toHaveURL(/\/sandbox-psp\/checkout\//);
  await expectNoSidewaysScroll(page);
  await page.getByRole("button", { name: "Approve payment" }).tap();
  await expect(page.getByTestId("order-status")).toHaveText("Your tickets are ready");
  await expect(page.getByTestId("ticket")).toHaveCount(2);
  await expectNoSidewaysScroll(page);
  await page.screenshot({ path: testInfo.outputPath("phone-order-ticketed.png"), fullPage: true });
});

test("no fan or door page scrolls sideways at 360 px", async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  for (const path of ["/", "/events/nova-lights-world-tour", "/events/studio-session", "/sign-in", "/sign-up", "/no-such-page"]) {
    await page.goto(path);
    await expect(page.getByRole("heading").first()).toBeVisible();
    await expectNoSidewaysScroll(page);
  }
  await signUp(page, "Narrow Fan", "/events/studio-session");
  for (const path of ["/events/studio-session", "/events/studio-session/queue", "/tickets"]) {
    await page.goto(path);
    await expect(page.getByRole("heading").first()).toBeVisible();
    await expectNoSidewaysScroll(page);
  }
  // The purchase on a studio show of its own: the seeded one's levels may be sold out by earlier specs.
  const slug = `narrow-${Date.now().toString(36)}`;
  await createDoorShow(slug);
  await enterThroughQueue(page, slug);
  await expectNoSidewaysScroll(page);
  await page.getByRole("button", { name: "Hold the best 2 seats" }).tap();
  await expect(page).toHaveURL(/\/orders\/ord_/);
  await expectNoSidewaysScroll(page);
  await page.getByRole("button", { name: /^Pay / }).tap();
  await expect(page).toHaveURL(/\/sandbox-psp\/checkout\//);
  await expectNoSidewaysScroll(page);

  // The door: the organizer's check-in page.
  await page.context().clearCookies();
  await signIn(page, ORGANIZER, "/admin/scan");
  await page.goto("/admin/scan");
  await expect(page.getByRole("heading").first()).toBeVisible();
  await expectNoSidewaysScroll(page);
});
