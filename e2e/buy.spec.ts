import { expect, test } from "@playwright/test";
import { clickSeat, enterThroughQueue, FAN, signIn, signUp } from "./helpers";

test("a fan picks 2 seats on the map, pays on the sandbox PSP and gets 2 tickets with QR codes", async ({ page }, testInfo) => {
  await signIn(page, FAN, "/events/studio-session");
  await enterThroughQueue(page, "studio-session");
  const id = await page.request
    .get("/events/studio-session")
    .then((r) => r.text())
    .then((html) => /evt_[0-9a-z]+/.exec(html)![0]);

  await page.getByRole("button", { name: "Pick on the map" }).click();
  await expect(page.getByTestId("seat-map")).toHaveAttribute("data-seat-count", "50");
  await expect(page.getByTestId("seat-map")).toHaveAttribute("data-available-count", /^\d+$/);
  // Other tests may have bought seats of this show already: count from here.
  const availableBefore = Number(await page.getByTestId("seat-map").getAttribute("data-available-count"));
  await clickSeat(page, id, 12);
  await clickSeat(page, id, 13);
  await expect(page.getByTestId("picked-seats")).toHaveText("Sec MAIN · Row B · Seat 3, Sec MAIN · Row B · Seat 4");
  await page.getByRole("button", { name: /Hold 2 seats · €90\.00/ }).click();

  await expect(page).toHaveURL(/\/orders\/ord_/);
  await expect(page.getByTestId("order-status")).toHaveText("Seats held — waiting for payment");
  await expect(page.getByTestId("hold-countdown")).toHaveText(/1[45]:\d\d/);
  await page.getByRole("button", { name: "Pay €90.00" }).click();

  await expect(page).toHaveURL(/\/sandbox-psp\/checkout\//);
  await expect(page.getByText("€90.00")).toBeVisible();
  await page.getByRole("button", { name: "Approve payment" }).click();

  await expect(page).toHaveURL(/\/orders\/ord_.*checkout=/);
  await expect(page.getByTestId("order-status")).toHaveText("Your tickets are ready");
  const tickets = page.getByTestId("ticket");
  await expect(tickets).toHaveCount(2);
  await expect(tickets.first().locator("svg")).toBeVisible();
  await expect(tickets.nth(1)).toContainText("Row B · Seat 4");
  await page.screenshot({ path: testInfo.outputPath("order-ticketed.png"), fullPage: true });
  const codes = await page.getByTestId("ticket-short-code").allTextContents();
  expect(codes).toHaveLength(2);

  // The confirmation with both tickets reaches the fan's inbox (the local SMTP server, through the worker).
  await expect(async () => {
    await page.goto(`/dev/mailbox?to=${encodeURIComponent(FAN.email)}`);
    await expect(page.getByTestId("mail").filter({ hasText: "Your tickets for Studio Session" }).first()).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 30_000 });
  const mail = page.getByTestId("mail").filter({ hasText: codes[0]! }).first();
  await expect(mail).toContainText("Sec MAIN · Row B · Seat 3");
  await expect(mail).toContainText(`Sec MAIN · Row B · Seat 4 — code ${codes[1]!}`);
  await expect(mail).toContainText("2 attachments");

  await page.goto("/tickets");
  await expect(page.getByTestId("ticket")).toHaveCount(2);
  await page.screenshot({ path: testInfo.outputPath("my-tickets.png"), fullPage: true });

  // The seats now show as taken on the map for everyone.
  await page.goto("/events/studio-session");
  await expect(page.getByTestId("seat-map")).toHaveAttribute("data-available-count", String(availableBefore - 2));
});

test("the quantity menu offers only what the fan may still buy, and says why", async ({ page }) => {
  await signIn(page, { email: "fan2@stararena.test", password: "fan-demo-2" }, "/events/studio-session");
  await enterThroughQueue(page, "studio-session");
  const quantity = page.getByLabel("Seats", { exact: true });
  const offered = () => quantity.locator("option").allTextContents();
  await expect(page.getByTestId("fan-quota")).toHaveCount(0);
  expect(await offered()).toEqual(["1", "2", "3", "4"]);
  // 2 bought of the show's limit of 4 (the studio show: 4 per fan): 1 or 2 more, and the reason.
  await quantity.selectOption("2");
  await page.getByRole("button", { name: "Hold the best 2 seats" }).click();
  await expect(page).toHaveURL(/\/orders\/ord_/);
  await page.getByRole("button", { name: /^Pay / }).click();
  await page.getByRole("button", { name: "Approve payment" }).click();
  await expect(page.getByTestId("order-status")).toHaveText("Your tickets are ready");
  await enterThroughQueue(page, "studio-session");
  await expect(page.getByTestId("fan-quota")).toHaveText("You have 2 of 4 tickets for this show (held or bought).");
  await expect(quantity.locator("option")).toHaveText(["1", "2"]);
  await page.getByRole("button", { name: "Pick on the map" }).click();
  await expect(page.getByTestId("buy-bar").getByTestId("fan-quota")).toHaveText("You have 2 of 4 tickets for this show (held or bought).");
  await page.getByRole("button", { name: "Best available" }).click();
  // Holding the 2 left: none left, the menu gives way to the line.
  await quantity.selectOption("2");
  await page.getByRole("button", { name: "Hold the best 2 seats" }).click();
  await expect(page).toHaveURL(/\/orders\/ord_/);
  await page.getByRole("button", { name: /^Pay / }).click();
  await page.getByRole("button", { name: "Approve payment" }).click();
  await expect(page.getByTestId("order-status")).toHaveText("Your tickets are ready");
  await enterThroughQueue(page, "studio-session");
  await expect(page.getByTestId("fan-quota")).toHaveText("You have 4 of 4 tickets for this show (held or bought): the most one fan may buy.");
  await expect(page.locator("#buy-quantity")).toHaveCount(0);
  await expect(page.getByRole("button", { name: /^Hold the best/ })).toHaveCount(0);
  // The server says the same in words to a client that asks anyway.
  const eventId = /evt_[0-9a-z]+/.exec(await (await page.request.get("/events/studio-session")).text())![0];
  expect(await (await page.request.get(`/api/events/${eventId}/fan-seats`)).json()).toEqual({ limit: 4, have: 4, left: 0 });
  const priceLevelId = /pl_[0-9a-z]+/.exec(await (await page.request.get(`/api/events/${eventId}/seat-map`)).text())![0];
  const refused = await page.request.post(`/api/events/${eventId}/holds`, { data: { kind: "best", priceLevelId, quantity: 1 }, headers: { origin: new URL(page.url()).origin } });
  expect(refused.status()).toBe(409);
  expect(((await refused.json()) as { error: string }).error).toBe("You can buy at most 4 tickets for this show, and you already have 4 held or bought.");
});

test("a fan with seats on hold who tries to hold others is told so, with a link to the held order", async ({ page }) => {
  await signUp(page, "Holder");
  await enterThroughQueue(page, "studio-session");
  await page.getByLabel("Seats", { exact: true }).selectOption("1");
  await page.getByRole("button", { name: "Hold the best seat" }).click();
  await expect(page).toHaveURL(/\/orders\/ord_/);
  const held = page.url();
  await page.goto("/events/studio-session");
  await page.getByLabel("Seats", { exact: true }).selectOption("1");
  await page.getByRole("button", { name: "Hold the best seat" }).click();
  await expect(page.getByTestId("buy-error")).toContainText("You already have seats on hold for this show");
  await page.getByTestId("pending-order-link").click();
  await expect(page).toHaveURL(held);
  await expect(page.getByTestId("order-status")).toHaveText("Seats held — waiting for payment");
});

test("a fan who pays at once gets the PSP's page with the hold (?pay=1), and the order page resumes that checkout", async ({ page }) => {
  await signUp(page, "Pays at once");
  await enterThroughQueue(page, "studio-session");
  const eventId = /evt_[0-9a-z]+/.exec(await (await page.request.get("/events/studio-session")).text())![0];
  const priceLevelId = /pl_[0-9a-z]+/.exec(await (await page.request.get(`/api/events/${eventId}/seat-map`)).text())![0];
  const origin = new URL(page.url()).origin;
  const res = await page.request.post(`/api/events/${eventId}/holds?pay=1`, { data: { kind: "best", priceLevelId, quantity: 1 }, headers: { origin } });
  expect(res.status()).toBe(201);
  const held = (await res.json()) as { orderId: string; checkoutUrl?: string; status: string };
  expect(held.status).toBe("pending_payment");
  expect(held.checkoutUrl).toMatch(/\/sandbox-psp\/checkout\/sbx_cs_[0-9a-z]+$/);
  // The same checkout, not a second one, when the fan presses Pay on the order page later.
  const again = await page.request.post(`/api/orders/${held.orderId}/checkout`, { headers: { origin } });
  expect(((await again.json()) as { url: string }).url).toBe(held.checkoutUrl);
  await page.goto(held.checkoutUrl!);
  await expect(page.getByRole("button", { name: "Approve payment" })).toBeVisible();
});
