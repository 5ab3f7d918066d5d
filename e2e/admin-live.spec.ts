import { expect, test } from "@playwright/test";
import { enterThroughQueue, ORGANIZER, signIn } from "./helpers";

test("the live view's sold count rises when a fan buys, and the controls take effect", async ({ browser }, testInfo) => {
  test.setTimeout(90_000);
  const org = await (await browser.newContext()).newPage();
  await signIn(org, ORGANIZER);
  const eventId = /evt_[0-9a-z]+/.exec(await (await org.request.get("/events/studio-session")).text())![0];
  await org.goto(`/admin/events/${eventId}/live`);
  const sold = org.getByTestId("live-sold");
  await expect(sold).toHaveText(/^\d+ \/ 50$/);
  const before = Number((await sold.textContent())!.split(" / ")[0]);

  const fan = await (await browser.newContext()).newPage();
  await signIn(fan, { email: "fan3@stararena.test", password: "fan-demo-3" });
  await enterThroughQueue(fan, "studio-session");
  await fan.locator("#buy-quantity").selectOption("1");
  await fan.getByRole("button", { name: "Hold the best seat" }).click();
  await fan.getByRole("button", { name: /^Pay/ }).click();
  await fan.getByRole("button", { name: "Approve payment" }).click();
  await expect(fan.getByTestId("order-status")).toHaveText("Your tickets are ready");

  await expect(sold).toHaveText(`${before + 1} / 50`);
  await expect(org.getByTestId("sales-chart")).toBeVisible();
  // Pause, then resume: the rate tile says so at once.
  await org.getByRole("button", { name: "Pause" }).click();
  await expect(org.getByText(/\/min · paused/)).toBeVisible();
  await org.screenshot({ path: testInfo.outputPath("live-view.png"), fullPage: true });
  await org.getByRole("button", { name: "Resume" }).click();
  await expect(org.getByText(/\/min · paused/)).toHaveCount(0);

  // A fan cannot open it.
  const denied = await fan.goto(`/admin/events/${eventId}/live`);
  expect(denied?.status()).toBe(403);
});
