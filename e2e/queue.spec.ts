import { expect, test } from "@playwright/test";
import { createQueueShow } from "./db";
import { signIn } from "./helpers";

const FAN1 = { email: "fan1@stararena.test", password: "fan-demo-1" };
const FAN3 = { email: "fan3@stararena.test", password: "fan-demo-3" };

test("two fans wait before the on-sale, are admitted in turn; a reload keeps the second one's place", async ({ browser }, testInfo) => {
  test.setTimeout(120_000);
  const slug = `queue-rehearsal-${Date.now()}`;
  // On-sale in 20 s; one fan at a time (active cap 1), 60 fans a minute.
  await createQueueShow({ slug, inSeconds: 20, ratePerMinute: 60, activeCap: 1 });
  const a = await (await browser.newContext()).newPage();
  const b = await (await browser.newContext()).newPage();
  await signIn(a, FAN1);
  await signIn(b, FAN3);
  await a.goto(`/events/${slug}/queue`);
  await b.goto(`/events/${slug}/queue`);
  for (const p of [a, b]) {
    await expect(p.getByTestId("queue")).toHaveAttribute("data-state", "pre");
    await expect(p.getByTestId("countdown")).toHaveText(/^00:00:[0-2]\d$/);
  }
  await a.screenshot({ path: testInfo.outputPath("queue-countdown.png") });

  // After the on-sale the draw decides who is first: exactly one is admitted, the other waits as number 2.
  const first = await Promise.race([a.waitForURL(/admitted=1/, { timeout: 60_000 }).then(() => a), b.waitForURL(/admitted=1/, { timeout: 60_000 }).then(() => b)]);
  const second = first === a ? b : a;
  await expect(second.getByTestId("queue")).toHaveAttribute("data-state", "waiting");
  await expect(second.getByTestId("position")).toHaveText("2");
  await expect(second.getByTestId("ahead")).toHaveText("You are next.");
  // The progress bar has a name a screen reader says (axe: aria-progressbar-name).
  await expect(second.getByRole("progressbar", { name: "Progress to your turn" })).toHaveAttribute("aria-valuenow", /^\d+$/);
  await second.screenshot({ path: testInfo.outputPath("queue-waiting.png") });

  // The first holds a seat.
  await expect(first.getByTestId("buy-panel")).toHaveAttribute("data-turn", "admitted");
  await first.getByRole("button", { name: "Hold the best 2 seats" }).click();
  await expect(first).toHaveURL(/\/orders\/ord_/);
  await expect(first.getByTestId("order-status")).toHaveText("Seats held — waiting for payment");
  const orderUrl = first.url();

  // The show page's seats left follow the hold within seconds, and agree with the map, whatever
  // copy of the page the cache serves (it was rendered before the hold).
  await first.goto(`/events/${slug}`);
  await expect(first.getByTestId("levels-left")).toHaveText("(48 of 50 left)");
  await expect(first.getByTestId("price-levels").locator("tbody tr")).toContainText("48 / 50");
  await expect(first.getByTestId("seat-map")).toHaveAttribute("data-available-count", "48");
  await first.goto(orderUrl);

  // The second reloads: same place, still waiting (the first is still shopping: cap 1).
  await second.reload();
  await expect(second.getByTestId("queue")).toHaveAttribute("data-state", "waiting");
  await expect(second.getByTestId("position")).toHaveText("2");

  // The first pays; their slot frees and the second is admitted in turn.
  await first.getByRole("button", { name: /^Pay/ }).click();
  await first.getByRole("button", { name: "Approve payment" }).click();
  await expect(first.getByTestId("order-status")).toHaveText("Your tickets are ready");
  await second.waitForURL(/admitted=1/, { timeout: 30_000 });
  await expect(second.getByTestId("buy-panel")).toHaveAttribute("data-turn", "admitted");
});

test("holding without an admission token sends the fan to the queue", async ({ page }) => {
  const slug = `queue-direct-${Date.now()}`;
  await createQueueShow({ slug, inSeconds: -5, ratePerMinute: 600, activeCap: 100 });
  await signIn(page, { email: "fan2@stararena.test", password: "fan-demo-2" });
  await page.goto(`/events/${slug}`);
  await expect(page.getByTestId("buy-panel")).toHaveAttribute("data-turn", "waiting");
  await page.getByRole("link", { name: "Join the queue" }).click();
  await page.waitForURL(new RegExp(`/events/${slug}\\?admitted=1`), { timeout: 30_000 });
  await expect(page.getByTestId("buy-panel")).toHaveAttribute("data-turn", "admitted");
});
