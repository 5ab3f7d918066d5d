import { devices, expect, test } from "@playwright/test";
import postgres from "postgres";
import { createQueueShow } from "./db";
import { enterThroughQueue, expectNoSidewaysScroll, ORGANIZER, signIn } from "./helpers";

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

/** An instant's time of day in a zone, in Chinese: worked out here from the seed's venue zone (The Studio is in Berlin), not by the app. */
const clock = (at: Date, timeZone: string) => new Intl.DateTimeFormat("zh-CN", { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23", timeZone }).format(at);

test("in Chinese the live view and discrepancies speak Chinese, the live view's time is the venue's, and a phone never scrolls sideways", async ({ browser }) => {
  test.setTimeout(120_000);
  // A browser in New York: a time read in the browser's zone (or in UTC) would differ from Berlin's by hours.
  const context = await browser.newContext({ timezoneId: "America/New_York" });
  const org = await context.newPage();
  await signIn(org, ORGANIZER);
  await context.addCookies([{ name: "NEXT_LOCALE", value: "zh-CN", url: org.url() }]);
  const eventId = /evt_[0-9a-z]+/.exec(await (await org.request.get("/events/studio-session")).text())![0];

  await org.goto(`/admin/events/${eventId}/live`);
  await expect(org.locator("html")).toHaveAttribute("lang", "zh-CN");
  await expect(org.getByRole("heading", { level: 1 })).toHaveText("Studio Session — Acoustic Night — 实时数据");
  await expect(org.getByRole("navigation", { name: "演出管理" }).getByRole("link", { name: "订单" })).toBeVisible();
  await expect(org.getByText("已售 / 总座位")).toBeVisible();
  await expect(org.getByRole("heading", { name: "最近一小时销量" })).toBeVisible();
  await expect(org.getByRole("button", { name: "暂停放行" })).toBeVisible();
  const updated = org.getByTestId("live-updated");
  await expect(updated).toContainText("更新于");
  const at = new Date((await updated.getAttribute("data-at"))!);
  const text = (await updated.textContent())!;
  expect(text).toContain(clock(at, "Europe/Berlin"));
  expect(text).toContain("中欧时间"); // the zone's name in Chinese (lib/format.ts)
  expect(text).not.toContain("UTC");
  // Neither UTC's nor the browser's clock: Berlin is 1–2 hours ahead of UTC and 6 ahead of New York.
  for (const other of ["UTC", "America/New_York"]) expect(text).not.toContain(clock(at, other));
  // The chart's last minute is labelled in Berlin too.
  const lastMinute = new Intl.DateTimeFormat("zh-CN", { hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZone: "Europe/Berlin" }).format(new Date(Math.floor(at.getTime() / 60_000) * 60_000));
  await expect(org.getByTestId("sales-axis")).toContainText(lastMinute);

  // Two findings on a show of their own: kinds and what they mean in Chinese, the English record folded away.
  const showId = await createQueueShow({ slug: `discrepancy-words-${Date.now().toString(36)}`, inSeconds: -5, ratePerMinute: 100, activeCap: 10 });
  const record = "seats were still free: re-claimed and sold";
  const sql = postgres(process.env.DATABASE_URL!, { max: 1 }); // ./db points it at the e2e server's database
  await sql`insert into discrepancies (id, event_id, kind, detail, status, action, resolved_at)
            values (${`dsc_h4_late_${showId}`}, ${showId}, 'late_payment', '{}', 'repaired', ${record}, now()),
                   (${`dsc_h4_tickets_${showId}`}, ${showId}, 'tickets_without_payment', '{}', 'needs_attention', 'none: needs an organizer (void the tickets or record the payment)', null)`;
  await sql.end();
  await org.goto(`/admin/events/${showId}/discrepancies`);
  await expect(org.getByRole("heading", { level: 1 })).toHaveText("对账异常");
  const late = org.locator('[data-testid="discrepancy"][data-kind="late_payment"]');
  await expect(late).toContainText("迟到的付款");
  await expect(late).toContainText("付款在锁座结束后才到账。");
  await expect(late.locator('[data-status="repaired"]')).toHaveText("已修复");
  await expect(late).toContainText(/已于 \d{4}年.+中欧时间 \d{2}:\d{2} 解决/);
  await expect(org.locator('[data-kind="tickets_without_payment"] [data-status="needs_attention"]')).toHaveText("需人工处理");
  await expect(late.getByText(record)).toBeHidden();
  await late.getByText("对账日志原文").click();
  await expect(late.getByText(record)).toBeVisible();
  await org.getByRole("button", { name: "立即对账" }).click();
  await expect(org.getByTestId("reconcile-result")).toContainText("对账完成：所有不变量均成立。");
  await context.close();

  // A phone, in both languages: every page of the show's administration fits 390 px.
  for (const lang of ["en", "zh-CN"]) {
    const phone = await browser.newContext({ ...devices["Pixel 7"], viewport: { width: 390, height: 844 }, timezoneId: "America/New_York" });
    const page = await phone.newPage();
    await signIn(page, ORGANIZER);
    await phone.addCookies([{ name: "NEXT_LOCALE", value: lang, url: page.url() }]);
    for (const path of ["/admin", "/admin/events/new", `/admin/events/${eventId}/edit`, `/admin/events/${eventId}/live`, `/admin/events/${showId}/discrepancies`]) {
      await page.goto(path);
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
      if (path.endsWith("/live")) {
        await expect(page.getByTestId("live-sold")).toBeVisible();
        // The chart's words are text of at least 12 px, not drawing shrunk to a phone's width.
        const size = await page.getByTestId("sales-legend").evaluate((el) => parseFloat(getComputedStyle(el).fontSize));
        expect(size).toBeGreaterThanOrEqual(12);
        const chart = (await page.getByTestId("sales-chart").boundingBox())!;
        expect(chart.x + chart.width).toBeLessThanOrEqual(390);
      }
      if (path.endsWith("/edit")) await expect(page.getByTestId("seat-map")).toBeVisible();
      await expectNoSidewaysScroll(page);
    }
    await phone.close();
  }
});
