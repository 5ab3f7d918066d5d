import { expect, type Page } from "@playwright/test";

/** Demo accounts seeded by db/seed.ts (also listed in the README). */
export const ORGANIZER = { email: "organizer@stararena.test", password: "organizer-demo" };
export const FAN = { email: "fan1@stararena.test", password: "fan-demo-1" };

/** Signs in through the sign-in page and waits until the header shows the account. */
export async function signIn(page: Page, account: { email: string; password: string }, next = "/") {
  await page.goto(`/sign-in?next=${encodeURIComponent(next)}`);
  await page.getByLabel("Email").fill(account.email);
  await page.getByLabel("Password").fill(account.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("signed-in-as")).toHaveText(account.email);
}

/** Joins the show's queue and waits until the fan is admitted and back on the event page. */
export async function enterThroughQueue(page: Page, slug: string) {
  await page.goto(`/events/${slug}/queue`);
  await page.waitForURL(new RegExp(`/events/${slug}\\?admitted=1`), { timeout: 30_000 });
  await expect(page.getByTestId("buy-panel")).toHaveAttribute("data-turn", "admitted");
}
