/**
 * A Chinese organizer reads every refusal of their pages in Chinese, with its facts (issue 42,
 * ADR 0029): the show form's problems come back from the server already worded in the
 * request's language (not as codes), a seat rule naming a section the venue lacks is refused
 * with the sections it has, and the live view's queue controls refuse a rate above the maximum
 * naming it. English reads as before.
 */
import { expect, test } from "@playwright/test";
import { ORGANIZER, signIn } from "./helpers";
import { translator } from "@/lib/i18n/translate";

/** The date `days` from now as "YYYY-MM-DD". */
function dateIn(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

test("the show form, a seat rule and the queue controls refuse in Chinese with their facts", async ({ page, context, baseURL }) => {
  test.setTimeout(90_000);
  await signIn(page, ORGANIZER, "/admin");
  const language = (value: string) => context.addCookies([{ name: "NEXT_LOCALE", value, url: baseURL! }]);
  await language("zh-CN");
  await page.goto("/admin/events/new");
  await expect(page.locator("html")).toHaveAttribute("lang", "zh-CN");
  const create = page.getByRole("button", { name: translator("zh-CN", "AdminShows")("createShow") });

  // 1. The form's problems: the action answers words in the request's language, not codes.
  await page.locator('[name="holdMinutes"]').fill("0");
  let body = "";
  await page.route("**/admin/events/new", async (route) => {
    if (route.request().method() !== "POST") return route.fallback();
    const res = await route.fetch();
    body = (await res.body()).toString("utf8"); // the action's flight answer names no charset
    await route.fulfill({ response: res });
  });
  await create.click();
  await expect.poll(() => body).not.toBe("");
  expect(body).toContain("锁座时长不能小于 1");
  expect(body).toContain("请选择场馆");
  expect(body).not.toMatch(/atLeast\?what=|"venueId":"venue"/);
  await expect(page.getByTestId("error-holdMinutes")).toHaveText("锁座时长不能小于 1");
  await page.unroute("**/admin/events/new");

  // 2. A section the venue does not have: the refusal names it and the venue's sections.
  const studio = await page.locator('[name="venueId"] option', { hasText: "The Studio" }).getAttribute("value");
  await page.locator('[name="venueId"]').selectOption(studio!);
  await page.locator('[name="name"]').fill(`Words ${Date.now().toString(36)}`);
  await page.locator('[name="holdMinutes"]').fill("10");
  await page.locator('[name="startsAtDate"]').fill(dateIn(40));
  await page.locator('[name="startsAtTime"]').fill("20:00");
  await page.locator('[name="onSaleAtDate"]').fill(dateIn(10));
  await page.locator('[name="onSaleAtTime"]').fill("10:00");
  await page.locator('[name="levels.0.name"]').fill("Balcony");
  await page.locator('[name="levels.0.price"]').fill("79.00");
  await page.locator('[name="levels.0.sections"]').fill("balcony");
  await create.click();
  await expect(page.getByTestId("error-levels.0.sections")).toHaveText("本场馆没有分区 balcony。本场馆的分区：MAIN。");

  // 3. The live view's queue controls: a rate above the maximum, in Chinese, then in English.
  const eventId = /evt_[0-9a-z]+/.exec(await (await page.request.get("/events/studio-session")).text())![0];
  await page.goto(`/admin/events/${eventId}/live`);
  const live = translator("zh-CN", "Live");
  await page.getByLabel(live("rateInput")).fill("2000000");
  await page.getByRole("button", { name: live("apply") }).click();
  await expect(page.getByRole("status")).toHaveText("放行速率不能超过每分钟 1,000,000 人。");
  await language("en");
  await page.reload();
  await page.getByLabel(translator("en", "Live")("rateInput")).fill("2000000");
  await page.getByRole("button", { name: translator("en", "Live")("apply") }).click();
  await expect(page.getByRole("status")).toHaveText("The rate must be at most 1,000,000 fans per minute");
});
