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

/** The sign-up form's words, for a page in another language. */
export type SignUpLabels = { name: string; email: string; password: string; submit: string };
const SIGN_UP_EN: SignUpLabels = { name: "Name", email: "Email", password: "Password", submit: "Create account" };

/** Creates a new fan account through the sign-up page (unique email) and waits until signed in. @returns the email. */
export async function signUp(page: Page, name: string, next?: string, labels: SignUpLabels = SIGN_UP_EN): Promise<string> {
  const email = `${name.toLowerCase().replace(/\W+/g, "-").replace(/^-|-$/g, "") || "fan"}-${Date.now()}@example.test`;
  await page.goto(next ? `/sign-up?next=${encodeURIComponent(next)}` : "/sign-up");
  await page.getByLabel(labels.name).fill(name);
  await page.getByLabel(labels.email).fill(email);
  await page.getByLabel(labels.password).fill("a-good-password");
  await page.getByRole("button", { name: labels.submit }).click();
  await expect(page.getByTestId("signed-in-as")).toHaveText(email);
  return email;
}

/**
 * Joins the show's queue and waits until the fan is admitted and back on the event page.
 * A fan whose earlier turn has ended (e.g. they already bought in another test) joins again.
 */
export async function enterThroughQueue(page: Page, slug: string, rejoinLabel = "Join the queue again") {
  await page.goto(`/events/${slug}/queue`);
  const admitted = new RegExp(`/events/${slug}\\?admitted=1`);
  const rejoin = page.getByRole("button", { name: rejoinLabel });
  await expect(async () => {
    if (admitted.test(page.url())) return;
    if (await rejoin.isVisible()) await rejoin.click();
    expect(page.url()).toMatch(admitted);
  }).toPass({ timeout: 30_000, intervals: [500] });
  await expect(page.getByTestId("buy-panel")).toHaveAttribute("data-turn", "admitted");
}

/** The seat-map API's geometry, as much as the tests use. */
export type MapGeometry = { width: number; sections: { code: string }[]; seats: { x: number[]; y: number[]; section: number[]; row: number[]; number: number[]; label: string[] } };

/** The show's seat map geometry (from the seat-map API). */
export async function seatMapOf(page: Page, eventId: string): Promise<MapGeometry> {
  return (await (await page.request.get(`/api/events/${eventId}/seat-map`)).json()) as MapGeometry;
}

/**
 * Taps or clicks the seat with this ordinal on the canvas seat map, where the map draws it now
 * (its `data-view` and `data-base`: lib/venues/seat-map-nav.ts). When seats are too small to
 * pick at the map's zoom, the first tap zooms to the seat's section and a second one picks it.
 */
export async function clickSeat(page: Page, eventId: string, ordinal: number, opts: { touch?: boolean } = {}) {
  const map = await seatMapOf(page, eventId);
  const canvas = page.getByTestId("seat-map");
  await canvas.scrollIntoViewIfNeeded();
  const at = async () => {
    const box = (await canvas.boundingBox())!;
    const [scale, x, y] = (await canvas.getAttribute("data-view"))!.split(" ").map(Number) as [number, number, number];
    const base = Number(await canvas.getAttribute("data-base"));
    return [box.x + x + scale * base * map.seats.x[ordinal]!, box.y + y + scale * base * map.seats.y[ordinal]!] as const;
  };
  const press = async () => {
    const [px, py] = await at();
    if (opts.touch) await page.touchscreen.tap(px, py);
    else await page.mouse.click(px, py);
  };
  if ((await canvas.getAttribute("data-pickable")) !== "true") {
    await press();
    await expect(canvas).toHaveAttribute("data-pickable", "true");
    // Let the zoom's animation settle before aiming.
    await expect(async () => {
      const before = await canvas.getAttribute("data-view");
      await page.waitForTimeout(100);
      expect(await canvas.getAttribute("data-view")).toBe(before);
    }).toPass();
  }
  await press();
}

/** Two seats side by side (ordinals, in seat-number order) in row 1 of the arena section `code`, seat numbers `from` and `from` + 1. */
export function adjacentPair(map: MapGeometry, code: string, from: number): [number, number] {
  const section = map.sections.findIndex((s) => s.code === code);
  const inRow = map.seats.section.map((s, i) => i).filter((i) => map.seats.section[i] === section && /Row 1 ·/.test(map.seats.label[i]!));
  const a = inRow.find((i) => map.seats.number[i] === from)!;
  const b = inRow.find((i) => map.seats.number[i] === from + 1)!;
  return [a, b];
}

/** Asserts the page does not scroll sideways (its document is no wider than the viewport). */
export async function expectNoSidewaysScroll(page: Page) {
  const { scroll, viewport } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, viewport: window.innerWidth }));
  expect(scroll, `${page.url()} is ${scroll} px wide in a ${viewport}-px viewport`).toBeLessThanOrEqual(viewport);
}
