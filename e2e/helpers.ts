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

/** Creates a new fan account through the sign-up page (unique email) and waits until signed in. @returns the email. */
export async function signUp(page: Page, name: string, next?: string): Promise<string> {
  const email = `${name.toLowerCase().replace(/\W+/g, "-")}-${Date.now()}@example.test`;
  await page.goto(next ? `/sign-up?next=${encodeURIComponent(next)}` : "/sign-up");
  await page.getByLabel("Name").fill(name);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("a-good-password");
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByTestId("signed-in-as")).toHaveText(email);
  return email;
}

/**
 * Joins the show's queue and waits until the fan is admitted and back on the event page.
 * A fan whose earlier turn has ended (e.g. they already bought in another test) joins again.
 */
export async function enterThroughQueue(page: Page, slug: string) {
  await page.goto(`/events/${slug}/queue`);
  const admitted = new RegExp(`/events/${slug}\\?admitted=1`);
  const rejoin = page.getByRole("button", { name: "Join the queue again" });
  await expect(async () => {
    if (admitted.test(page.url())) return;
    if (await rejoin.isVisible()) await rejoin.click();
    expect(page.url()).toMatch(admitted);
  }).toPass({ timeout: 30_000, intervals: [500] });
  await expect(page.getByTestId("buy-panel")).toHaveAttribute("data-turn", "admitted");
}

/** Clicks the seat with this ordinal on the canvas seat map (positions from the seat-map API). */
export async function clickSeat(page: Page, eventId: string, ordinal: number) {
  const map = (await (await page.request.get(`/api/events/${eventId}/seat-map`)).json()) as { width: number; seats: { x: number[]; y: number[] } };
  const canvas = page.getByTestId("seat-map");
  const box = (await canvas.boundingBox())!;
  const scale = box.width / map.width;
  await canvas.click({ position: { x: map.seats.x[ordinal]! * scale, y: map.seats.y[ordinal]! * scale } });
}
