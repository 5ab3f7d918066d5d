/**
 * The seat map from the keyboard alone (desktop project): after signing in and reaching the
 * front of the queue, the fan never touches the mouse — focus moves with Tab-able controls and
 * the map's own keys (lib/venues/seat-map-nav.ts: arrows go the way they point on screen, also
 * in the side sections), and what the map says is checked in its live region.
 */
import { expect, test } from "@playwright/test";
import { createArenaShow } from "./db";
import { enterThroughQueue, signUp } from "./helpers";

test("a fan picks two adjacent seats on the arena's map and buys them with the keyboard only", async ({ page }, testInfo) => {
  const slug = `arena-keys-${Date.now()}`;
  await createArenaShow(slug);
  await signUp(page, "Keyboard Fan", `/events/${slug}`);
  await enterThroughQueue(page, slug);
  const press = async (name: string | RegExp) => {
    await page.getByRole("button", { name }).focus();
    await page.keyboard.press("Enter");
  };
  await press("Pick on the map");
  const map = page.getByRole("application", { name: /Seat map with 20,000 seats/ });
  await map.focus();
  const said = page.getByTestId("seat-map-announcement");
  // Page Down walks the sections (the first key lands on the first free seat); stop at section 212.
  for (let i = 0; i < 80 && !/^Sec 212 · /.test((await said.textContent()) ?? ""); i++) {
    await page.keyboard.press("PageDown");
  }
  await expect(said).toHaveText(/^Sec 212 · Row 1 · Seat 1, Upper bowl, €79\.00$/);
  for (let i = 0; i < 6; i++) await page.keyboard.press("ArrowRight");
  await expect(said).toHaveText("Sec 212 · Row 1 · Seat 7, Upper bowl, €79.00");
  await page.keyboard.press("Enter");
  await expect(said).toHaveText("Sec 212 · Row 1 · Seat 7, Upper bowl, €79.00, picked");
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press(" ");
  await expect(said).toHaveText("Sec 212 · Row 1 · Seat 8, Upper bowl, €79.00, picked");
  // Back to the row behind and forth again: the picks stay.
  await page.keyboard.press("ArrowDown");
  await expect(said).toHaveText(/^Sec 212 · Row 2 · Seat \d+, Upper bowl, €79\.00$/);
  await expect(page.getByTestId("picked-seats")).toHaveText("Sec 212 · Row 1 · Seat 7, Sec 212 · Row 1 · Seat 8");
  await page.getByTestId("seat-map").screenshot({ path: testInfo.outputPath("keyboard-seat-map-picked.png") });

  // Section 223, right of the stage, has rows running up the screen with seat 1 at the bottom:
  // → goes right on screen (to the row behind), ↑ up (to the next seat number).
  for (let i = 0; i < 40 && !/^Sec 223 · /.test((await said.textContent()) ?? ""); i++) await page.keyboard.press("PageDown");
  await expect(said).toHaveText(/^Sec 223 · Row 1 · Seat 1, /);
  await page.keyboard.press("ArrowRight");
  await expect(said).toHaveText(/^Sec 223 · Row 2 · Seat 1, /);
  await page.keyboard.press("ArrowUp");
  await expect(said).toHaveText(/^Sec 223 · Row 2 · Seat 2, /);
  await page.keyboard.press("ArrowLeft");
  await expect(said).toHaveText(/^Sec 223 · Row 1 · Seat \d+, /);

  await press(/Hold 2 seats · €158\.00/);
  await expect(page).toHaveURL(/\/orders\/ord_/);
  await press("Pay €158.00");
  await expect(page).toHaveURL(/\/sandbox-psp\/checkout\//);
  await press("Approve payment");
  await expect(page.getByTestId("order-status")).toHaveText("Your tickets are ready");
  await expect(page.getByTestId("ticket")).toHaveCount(2);
});
