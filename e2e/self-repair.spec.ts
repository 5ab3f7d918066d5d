import { expect, test } from "@playwright/test";
import { createQueueShow } from "./db";
import { enterThroughQueue, signIn } from "./helpers";

const FAN1 = { email: "fan1@stararena.test", password: "fan-demo-1" };
const FAN3 = { email: "fan3@stararena.test", password: "fan-demo-3" };

test("an unpaid hold expires and its seat is bought by another fan; the late payment is refunded and the fan is told", async ({ browser }, testInfo) => {
  test.setTimeout(180_000);
  const slug = `short-hold-${Date.now()}`;
  await createQueueShow({ slug, inSeconds: -5, ratePerMinute: 600, activeCap: 100, holdMinutes: 1 });
  const a = await (await browser.newContext()).newPage();
  try {
    await signIn(a, FAN1);
    await enterThroughQueue(a, slug);
    await a.locator("#buy-quantity").selectOption("1");
    await a.getByRole("button", { name: "Hold the best seat" }).click();
    await expect(a).toHaveURL(/\/orders\/ord_/);
    const orderUrl = a.url();
    const seat = (await a.getByRole("cell", { name: /Row A/ }).first().textContent())!;
    // The fan opens the pay page and leaves it open without paying; the PSP will accept a late approval.
    await a.request.put("/sandbox-psp/api/faults", { data: { captureAfterExpiry: true } });
    await a.getByRole("button", { name: /^Pay/ }).click();
    await expect(a.getByRole("button", { name: "Approve payment" })).toBeVisible();

    // Meanwhile, in another tab: the 1-minute hold runs out and the worker releases it.
    const watch = await a.context().newPage();
    await watch.goto(orderUrl);
    await expect(watch.getByTestId("order-status")).toHaveText("Hold expired", { timeout: 120_000 });
    await expect(watch.getByText("Nothing was charged.")).toBeVisible();

    // The seat is back on sale: another fan gets exactly it.
    const b = await (await browser.newContext()).newPage();
    await signIn(b, FAN3);
    await enterThroughQueue(b, slug);
    await b.locator("#buy-quantity").selectOption("1");
    await b.getByRole("button", { name: "Hold the best seat" }).click();
    await expect(b).toHaveURL(/\/orders\/ord_/);
    await expect(b.getByRole("cell", { name: seat })).toBeVisible();

    // Now the first fan approves on the stale pay page: the money comes back to them automatically.
    await a.getByRole("button", { name: "Approve payment" }).click();
    await expect(a).toHaveURL(/\/orders\/ord_.*checkout=/);
    await expect(a.getByTestId("order-status")).toHaveText("Hold expired");
    await expect(a.getByText("A payment that arrived too late has been refunded in full.")).toBeVisible();
    await a.screenshot({ path: testInfo.outputPath("late-payment-refunded.png"), fullPage: true });
  } finally {
    await a.request.put("/sandbox-psp/api/faults", { data: {} });
  }
});

test("a webhook delivered four times yields one set of tickets", async ({ page }) => {
  const slug = `dup-webhook-${Date.now()}`;
  await createQueueShow({ slug, inSeconds: -5, ratePerMinute: 600, activeCap: 100 });
  await page.request.put("/sandbox-psp/api/faults", { data: { duplicate: 3, webhookDelayMs: 0 } });
  try {
    await signIn(page, { email: "fan2@stararena.test", password: "fan-demo-2" });
    await enterThroughQueue(page, slug);
    await page.getByRole("button", { name: "Hold the best 2 seats" }).click();
    await page.getByRole("button", { name: /^Pay/ }).click();
    await page.getByRole("button", { name: "Approve payment" }).click();
    await expect(page.getByTestId("order-status")).toHaveText("Your tickets are ready");
    // Give the three extra deliveries time to land, then count again.
    await page.waitForTimeout(3_000);
    await page.reload();
    await expect(page.getByTestId("ticket")).toHaveCount(2);
  } finally {
    await page.request.put("/sandbox-psp/api/faults", { data: {} });
  }
});
