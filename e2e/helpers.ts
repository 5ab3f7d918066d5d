import { expect, type APIRequestContext, type Page } from "@playwright/test";

/** Demo accounts seeded by scripts/lib/seed.ts (also listed in the README). */
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

/** The confirmation link better-auth e-mails (lib/auth: it lands on /verified, whose sign-in continues to `next`). */
export const CONFIRM_LINK = /\/api\/auth\/verify-email\?/;

/**
 * The newest link matching `pattern` in what the development mailbox received for `email`
 * (its page over HTTP), once the worker has sent the message. @returns the absolute URL.
 */
export async function mailedLink(request: APIRequestContext, email: string, pattern: RegExp = CONFIRM_LINK): Promise<string> {
  let link = "";
  await expect(async () => {
    const html = await (await request.get(`/dev/mailbox?to=${encodeURIComponent(email)}`)).text();
    const hrefs = [...html.matchAll(/href="(https?:\/\/[^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, "&"));
    link = hrefs.find((h) => pattern.test(h)) ?? "";
    expect(link, `a link like ${String(pattern)} mailed to ${email}`).not.toBe("");
  }).toPass({ timeout: 30_000, intervals: [500] });
  return link;
}

/** The password every fan made by {@link signUp} and {@link signUpOverApi} chooses. */
const NEW_FAN_PASSWORD = "a-good-password";

/**
 * Creates a new fan account through the sign-up page (unique email): "check your inbox", then
 * the link in the development mailbox, which confirms the address, then the sign-in it offers,
 * which continues to `next`. Waits until the header shows the account there. @returns the email.
 */
export async function signUp(page: Page, name: string, next?: string, labels: SignUpLabels = SIGN_UP_EN): Promise<string> {
  const email = `${name.toLowerCase().replace(/\W+/g, "-").replace(/^-|-$/g, "") || "fan"}-${Date.now()}@example.test`;
  await page.goto(next ? `/sign-up?next=${encodeURIComponent(next)}` : "/sign-up");
  await page.getByLabel(labels.name).fill(name);
  await page.getByLabel(labels.email).fill(email);
  await page.getByLabel(labels.password).fill(NEW_FAN_PASSWORD);
  await page.getByRole("button", { name: labels.submit }).click();
  await expect(page.getByTestId("sign-up-sent")).toContainText(email);
  await confirmFromMailbox(page, email, next ?? "/");
  return email;
}

/**
 * Opens the confirmation link mailed to `email` in the mailbox page; on /verified (confirmed,
 * not signed in: ADR 0027) follows its sign-in and signs in with `password` (the page's
 * language whatever it is: fields by name), and waits until signed in at `next`.
 */
export async function confirmFromMailbox(page: Page, email: string, next = "/", password = NEW_FAN_PASSWORD) {
  await mailedLink(page.request, email);
  await page.goto(`/dev/mailbox?to=${encodeURIComponent(email)}`);
  await page.getByTestId("mail").first().getByRole("link", { name: CONFIRM_LINK }).click();
  await expect(page.getByTestId("verified").getByRole("status")).toBeVisible();
  await page.getByTestId("verified-next").click();
  const form = page.locator("form:has(input[name=password])");
  await form.locator("input[name=email]").fill(email);
  await form.locator("input[name=password]").fill(password);
  await form.locator("button").click();
  const target = new URL(next, "http://x");
  await page.waitForURL((u) => u.pathname === target.pathname && u.search === target.search);
  await expect(page.getByTestId("signed-in-as")).toHaveText(email);
}

/**
 * Signs a new fan up over better-auth's API in `request`'s context, follows the mailed link
 * (which confirms the address) and signs in, so the context holds a session. @returns the email.
 */
export async function signUpOverApi(request: APIRequestContext, name: string): Promise<string> {
  const email = `${name.toLowerCase().replace(/\W+/g, "-")}-${Date.now()}@example.test`;
  // The whole suite signs many fans up (and in) from one address: wait out the auth library's per-IP limit as a client would.
  const postPatiently = async (path: string, data: Record<string, string>) => {
    let res = await request.post(path, { data });
    for (let i = 0; i < 3 && res.status() === 429; i++) {
      await new Promise((r) => setTimeout(r, (Number(res.headers()["x-retry-after"]) || 20) * 1000 + 500));
      res = await request.post(path, { data });
    }
    return res;
  };
  const res = await postPatiently("/api/auth/sign-up/email", { email, password: NEW_FAN_PASSWORD, name });
  expect(res.status(), await res.text()).toBe(200);
  const confirmed = await request.get(await mailedLink(request, email));
  expect(confirmed.status(), confirmed.url()).toBe(200);
  expect(new URL(confirmed.url()).pathname).toBe("/verified");
  const signedIn = await postPatiently("/api/auth/sign-in/email", { email, password: NEW_FAN_PASSWORD });
  expect(signedIn.status(), await signedIn.text()).toBe(200);
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

/** The seat-map API's geometry, as much as the tests use (`rows`: each dense row index's label; lib/venues/seat-map.ts). */
export type MapGeometry = { width: number; sections: { code: string; kind: string }[]; rows: string[]; seats: { x: number[]; y: number[]; section: number[]; row: number[]; number: number[] } };

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
  // In the middle of the screen: clear of the buy panel's bar, which sticks to the bottom while picking.
  await canvas.evaluate((el) => el.scrollIntoView({ block: "center" }));
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
  const inRow = map.seats.section.map((s, i) => i).filter((i) => map.seats.section[i] === section && map.rows[map.seats.row[i]!] === "1");
  const a = inRow.find((i) => map.seats.number[i] === from)!;
  const b = inRow.find((i) => map.seats.number[i] === from + 1)!;
  return [a, b];
}

/** Asserts the page does not scroll sideways (its document is no wider than the viewport). */
export async function expectNoSidewaysScroll(page: Page) {
  // The viewport the test set, not window.innerWidth: a phone zooms out to fit a page that is too wide, and innerWidth grows with it.
  const viewport = page.viewportSize()!.width;
  const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(scroll, `${page.url()} is ${scroll} px wide in a ${viewport}-px viewport`).toBeLessThanOrEqual(viewport);
}
