import { expect, test } from "@playwright/test";
import { ORGANIZER, signIn } from "./helpers";

/** The date `days` from now as "YYYY-MM-DD" — what the form's date input takes. */
function dateIn(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

test("an organizer creates a show on The Studio, previews it by price level, publishes it, and fans see it", async ({ page }, testInfo) => {
  test.setTimeout(90_000);
  const name = `Setup Night ${Date.now().toString(36)}`;
  await signIn(page, ORGANIZER, "/admin");
  await page.goto("/admin");
  await page.getByRole("link", { name: "New show" }).click();
  await expect(page.getByRole("heading", { name: "New show" })).toBeVisible();

  await page.getByLabel("Venue").selectOption({ label: "The Studio (Berlin, 50 seats)" });
  await expect(page.getByTestId("time-zone")).toContainText("Europe/Berlin");
  await expect(page.getByTestId("venue-sections")).toContainText("MAIN");
  await page.getByLabel("Name", { exact: true }).fill(name);
  await expect(page.getByLabel("Slug (the show's address)")).toHaveValue(/^setup-night-[a-z0-9]+$/);
  await page.getByLabel("Description").fill("Two sets, one piano.");
  await expect(page.getByTestId("field-startsAt")).toContainText("24-hour clock (20:00), Europe/Berlin");
  await page.getByLabel("Show starts date").fill(dateIn(40));
  await page.getByLabel("Show starts time").fill("20:00");
  await page.getByLabel("On-sale opens date").fill(dateIn(10));
  await page.getByLabel("On-sale opens time").fill("10:00");

  await page.getByLabel("Level 1 name").fill("Front");
  await page.getByLabel("Level 1 price").fill("79.00");
  await page.getByLabel("Level 1 rows").fill("1–2");
  await page.getByRole("button", { name: "Add price level" }).click();
  await page.getByLabel("Level 2 name").fill("Back");
  await page.getByLabel("Level 2 price").fill("forty"); // wrong on purpose
  await page.getByLabel("Level 2 rows").fill("3-5");

  // Bad input: a readable message next to the field, the values kept, no 500.
  await page.getByRole("button", { name: "Create show" }).click();
  await expect(page.getByTestId("form-error")).toBeVisible();
  await expect(page.getByTestId("error-levels.1.price")).toHaveText("Enter the price as a number such as 79.00 or 79,00.");
  await expect(page.getByLabel("Level 1 rows")).toHaveValue("1–2");
  await expect(page.getByLabel("Name", { exact: true })).toHaveValue(name);
  await page.getByLabel("Level 2 price").fill("49,50"); // a decimal comma reads as 49.50
  await page.getByRole("button", { name: "Create show" }).click();

  // The edit page: a draft, its seat map coloured by the two levels.
  await page.waitForURL(/\/admin\/events\/evt_[0-9a-z]+\/edit\?created=1$/);
  const eventId = /evt_[0-9a-z]+/.exec(page.url())![0];
  await expect(page.getByTestId("setup-event-name")).toHaveText(name);
  await expect(page.getByTestId("event-status")).toHaveText("draft");
  await expect(page.getByTestId("time-zone")).toContainText("Europe/Berlin");
  await expect(page.getByTestId("seat-map")).toHaveAttribute("data-seat-count", "50");
  await expect(page.getByTestId("seat-map-caption")).toHaveText("50 seats · 50 available");
  const levels = page.getByTestId("setup-levels").locator("tbody tr");
  await expect(levels).toHaveCount(2);
  await expect(levels.nth(0)).toContainText("Front");
  await expect(levels.nth(0)).toContainText("€79.00");
  await expect(levels.nth(0)).toContainText("20");
  await expect(levels.nth(1)).toContainText("Back");
  await expect(levels.nth(1)).toContainText("€49.50");
  await expect(levels.nth(1)).toContainText("30");
  // The form shows the rules back, derived from the stored inventory.
  await expect(page.getByLabel("Level 1 rows")).toHaveValue("1–2");
  await expect(page.getByLabel("Level 2 rows")).toHaveValue("3–5");
  await expect(page.getByLabel("Level 2 price")).toHaveValue("49.50");
  await page.screenshot({ path: testInfo.outputPath("admin-setup.png"), fullPage: true });

  // Not on the home page while a draft.
  const home = await page.request.get("/");
  expect(await home.text()).not.toContain(name);

  // Publish: dismissing the confirmation changes nothing; accepting publishes.
  page.once("dialog", (d) => void d.dismiss());
  await page.getByRole("button", { name: "Publish" }).click();
  await expect(page.getByTestId("event-status")).toHaveText("draft");
  page.once("dialog", (d) => {
    expect(d.message()).toContain(name);
    void d.accept();
  });
  await page.getByRole("button", { name: "Publish" }).click();
  await expect(page.getByTestId("event-status")).toHaveText("published");
  await expect(page.getByTestId("setup-notice")).toContainText("Published");
  await expect(page.getByRole("button", { name: "Publish" })).toHaveCount(0);

  // The dashboard links to it; the home page lists it.
  await page.goto("/admin");
  await expect(page.getByTestId("organizer-shows")).toContainText(name);
  await expect(page.getByRole("link", { name: `Edit ${name}` })).toHaveAttribute("href", `/admin/events/${eventId}/edit`);
  await page.goto("/");
  const card = page.getByTestId("show-card").filter({ hasText: name });
  await expect(card).toBeVisible();
  await expect(card).toContainText("50 of 50 seats left");
  await card.click();
  await expect(page.getByTestId("event-name")).toHaveText(name);

  // The preview is coloured from the seat-map API: every seat carries this show's level,
  // and a second show on The Studio leaves the demo show's map as it was.
  const levelCounts = async (id: string) => {
    const map = (await (await page.request.get(`/api/events/${id}/seat-map`)).json()) as { seats: { level: number[] } };
    const counts: Record<string, number> = {};
    for (const l of map.seats.level) counts[l] = (counts[l] ?? 0) + 1;
    return counts;
  };
  expect.soft(await levelCounts(eventId)).toEqual({ 0: 20, 1: 30 });
  const studioId = /evt_[0-9a-z]+/.exec(await (await page.request.get("/events/studio-session")).text())![0];
  expect.soft(await levelCounts(studioId)).toEqual({ 0: 20, 1: 30 });
});

test("the set-up pages are for organizers only, and only for their own shows", async ({ page }) => {
  const anonymous = await page.goto("/admin/events/new");
  expect(new URL(page.url()).pathname).toBe("/sign-in");
  expect(anonymous?.status()).toBe(200);
  await signIn(page, { email: "fan2@stararena.test", password: "fan-demo-2" });
  expect((await page.goto("/admin/events/new"))?.status()).toBe(403);
  const eventId = /evt_[0-9a-z]+/.exec(await (await page.request.get("/events/studio-session")).text())![0];
  expect((await page.goto(`/admin/events/${eventId}/edit`))?.status()).toBe(403);
});

test("in Chinese the organizer's dashboard and show form speak Chinese, its problems too; the show's data stays as entered", async ({ browser }) => {
  test.setTimeout(90_000);
  const context = await browser.newContext();
  const page = await context.newPage();
  await signIn(page, ORGANIZER, "/admin");
  await context.addCookies([{ name: "NEXT_LOCALE", value: "zh-CN", url: page.url() }]);

  await page.goto("/admin");
  await expect(page.locator("html")).toHaveAttribute("lang", "zh-CN");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("主办方后台");
  const shows = page.getByTestId("organizer-shows");
  await expect(shows.locator("th").first()).toHaveText("演出");
  const studio = shows.locator("tr").filter({ hasText: "Studio Session — Acoustic Night" });
  await expect(studio.locator('[data-status="published"]')).toContainText("已发布");
  await expect(studio.getByRole("link", { name: "编辑 Studio Session — Acoustic Night" })).toBeVisible();
  // The on-sale time in Chinese, with the venue's zone (Berlin) named in Chinese.
  await expect(studio).toContainText(/\d{4}年\d{1,2}月\d{1,2}日周. 中欧时间 \d{2}:\d{2}/);

  await page.getByRole("link", { name: "新建演出" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("新建演出");
  await page.getByLabel("场馆").selectOption({ label: "The Studio（Berlin，50 个座位）" });
  await expect(page.getByTestId("time-zone")).toHaveText("时间均为场馆当地时间：Europe/Berlin。");
  await expect(page.getByTestId("field-startsAt")).toContainText("24 小时制");
  await page.getByLabel("票档 1 名称").fill("前排");
  await page.getByLabel("票档 1 票价").fill("forty");
  await page.getByLabel("票档 1 排数").fill("5-2");
  await page.getByLabel("锁座时长（分钟）").fill("0");
  await page.getByRole("button", { name: "创建演出" }).click();
  // Every problem in Chinese, with its facts; none in English.
  await expect(page.getByTestId("form-error")).toHaveText("有些内容需要修改，请查看下方提示。");
  await expect(page.getByTestId("error-name")).toHaveText("请填写演出名称");
  await expect(page.getByTestId("error-startsAt")).toHaveText("请填写开演时间");
  await expect(page.getByTestId("error-holdMinutes")).toHaveText("锁座时长不能小于 1");
  await expect(page.getByTestId("error-levels.0.price")).toHaveText("请按 79.00 这样的格式填写票价。");
  await expect(page.getByTestId("error-levels.0.rows")).toHaveText("范围应从较小的排号到较大的排号（2–5）。");
  // No English in any of them: only the example address, which is a slug.
  for (const error of await page.locator('[data-testid^="error-"]').allTextContents()) expect(error.replace("summer-night-2027", "")).not.toMatch(/[A-Za-z]{3,}/);

  const eventId = /evt_[0-9a-z]+/.exec(await (await page.request.get("/events/studio-session")).text())![0];
  await page.goto(`/admin/events/${eventId}/edit`);
  await expect(page.getByTestId("setup-event-name")).toHaveText("Studio Session — Acoustic Night");
  await expect(page.getByTestId("event-status")).toHaveText("已发布");
  await expect(page.getByRole("heading", { name: /座位图预览/ })).toBeVisible();
  await expect(page.getByTestId("setup-levels").locator("th").first()).toHaveText("票档");
  await expect(page.getByRole("button", { name: "保存修改" })).toBeVisible();
  await context.close();
});
