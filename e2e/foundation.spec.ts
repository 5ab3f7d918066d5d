import { expect, test } from "@playwright/test";
import { FAN, ORGANIZER, signIn, signUp } from "./helpers";

test("home lists the demo show; its event page is cacheable and draws all 20,000 seats", async ({ page }, testInfo) => {
  // A signed-out visitor's show page logs nothing in the console: no failed request (a 401 from
  // asking for a place in a queue it has none in), no error (issue 42).
  const consoleErrors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") consoleErrors.push(`${m.text()} (${m.location().url})`);
  });
  page.on("pageerror", (e) => consoleErrors.push(e.message));
  await page.goto("/");
  const card = page.getByTestId("show-card").filter({ hasText: "Nova Lights — World Tour 2027" });
  await expect(card).toBeVisible();
  await expect(page.getByTestId("show-card").filter({ hasText: "Studio Session" })).toBeVisible();

  const response = await page.goto("/events/nova-lights-world-tour");
  expect(response?.status()).toBe(200);
  expect(response?.headers()["cache-control"]).toMatch(/s-maxage=\d+/);
  // Cached per language: a shared cache must key on what chose it (docs/adr/0018).
  expect(response?.headers()["content-language"]).toBe("en");
  expect(response?.headers()["vary"]).toMatch(/Accept-Language, Cookie/);
  await expect(page.getByTestId("event-name")).toHaveText("Nova Lights — World Tour 2027");

  // Five price levels whose seat counts add up to the arena's 20,000 (2,000 floor units + 18,000 bowl seats).
  const rows = page.getByTestId("price-levels").locator("tbody tr");
  await expect(rows).toHaveCount(5);
  await expect(rows.first()).toContainText("Floor standing");
  await expect(rows.first()).toContainText("2,000 / 2,000");

  const map = page.getByTestId("seat-map");
  await expect(map).toHaveAttribute("data-seat-count", "20000");
  await expect(map).toHaveAttribute("data-available-count", "20000");
  await expect(page.getByTestId("seat-map-caption")).toHaveText("20,000 seats · 20,000 available");
  // The seats left are counted from the map's own availability, and say when in the venue's zone.
  await expect(page.getByTestId("live-levels")).toHaveAttribute("data-live", "true");
  await expect(page.getByTestId("levels-left")).toHaveText("(20,000 of 20,000 left)");
  await expect(page.getByTestId("levels-as-of")).toHaveText(/^Seats left as of \d\d:\d\d:\d\d Central European Time$/);
  await expect(page.getByTestId("buy-panel")).toHaveAttribute("data-turn", "signed-out");
  // The venue's zone by name, not "CET"/"GMT+1", in the show's facts.
  await expect(page.locator("article header")).toContainText("Central European Time");
  expect(consoleErrors).toEqual([]);
  await testInfo.attach("event-page", { body: await page.screenshot({ fullPage: true }), contentType: "image/png" });
});

test("the small test show has 50 seats", async ({ page }) => {
  await page.goto("/events/studio-session");
  await expect(page.getByTestId("seat-map")).toHaveAttribute("data-seat-count", "50");
  await expect(page.getByTestId("seat-map-caption")).toHaveText(/^50 seats · \d+ available$/);
});

test("a fan opening /admin gets 403; the organizer gets the dashboard", async ({ page }) => {
  const anonymous = await page.goto("/admin");
  expect(new URL(page.url()).pathname).toBe("/sign-in");
  expect(anonymous?.status()).toBe(200);

  await signIn(page, FAN);
  const forbidden = await page.goto("/admin");
  expect(forbidden?.status()).toBe(403);
  await expect(page.getByRole("heading", { name: "This page is for organizers" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Admin" })).toHaveCount(0);

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByRole("link", { name: "Sign in" })).toBeVisible();
  await signIn(page, ORGANIZER, "/admin");
  await expect(page.getByRole("heading", { name: "Organizer dashboard" })).toBeVisible();
  await expect(page.getByTestId("organizer-shows")).toContainText("Nova Lights — World Tour 2027");
  await expect(page.getByTestId("organizer-shows")).toContainText("Studio Session — Acoustic Night");
});

test("a new fan can create an account and is signed in", async ({ page }) => {
  await signUp(page, "New Fan");
});
