/**
 * A fan whose browser asks for Chinese (Accept-Language zh-CN, navigator.language zh-CN) gets
 * StarArena in Chinese end to end: the pages, the waiting room, the order, the PSP page, the
 * server's error messages (in the page and from the API), and the confirmation e-mail; the
 * header's switcher changes the language for good (cookie and account). Issue 16. Seats, the pay
 * page's description and the venue's time zone read in Chinese too, and the mailbox opens the
 * e-mail's ticket QR codes (issue 42).
 */
import { expect, test } from "@playwright/test";
import { localeOfUser } from "./db";
import { CONFIRM_LINK, mailedLink } from "./helpers";
import { translator } from "@/lib/i18n/translate";

test.use({ locale: "zh-CN" });

/** A studio seat's label in Chinese (lib/venues/seat-label.ts): "MAIN区 A排 3号". */
const ZH_SEAT = /^MAIN区 [A-E]排 \d+号$/;

test("a zh-CN browser buys in Chinese, gets a Chinese e-mail and Chinese errors, and can switch to English", async ({ page }, testInfo) => {
  await page.goto("/");
  await expect(page.locator("html")).toHaveAttribute("lang", "zh-CN");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("演出");
  await expect(page.getByRole("link", { name: "注册" })).toBeVisible();

  // Sign up in Chinese: the account remembers the language (its e-mails are written in it).
  const email = `zh-fan-${Date.now()}@example.test`;
  await page.goto("/sign-up?next=/events/studio-session");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("注册粉丝账号");
  await page.getByLabel("姓名").fill("王小明");
  await page.getByLabel("邮箱").fill(email);
  await page.getByLabel("密码").fill("a-good-password");
  await page.getByRole("button", { name: "注册" }).click();
  // "Check your inbox" in Chinese; the confirmation e-mail too; its link confirms the address
  // (signing no one in: ADR 0027), then the fan signs in and is back at the show.
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("请查收邮件");
  await expect(page.getByTestId("sign-up-sent")).toContainText(`我们已给 ${email} 发送了一封邮件`);
  expect(await localeOfUser(email)).toBe("zh-CN");
  await mailedLink(page.request, email);
  await page.goto(`/dev/mailbox?to=${encodeURIComponent(email)}`);
  await expect(page.getByTestId("mail-subject").first()).toHaveText("确认你的 StarArena 邮箱");
  await page.getByTestId("mail").first().getByRole("link", { name: CONFIRM_LINK }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("邮箱已确认");
  await expect(page.getByTestId("verified")).toContainText("请用你的密码登录以继续。");
  await page.getByTestId("verified-next").click();
  await page.getByLabel("邮箱").fill(email);
  await page.getByLabel("密码").fill("a-good-password");
  await page.getByRole("button", { name: "登录", exact: true }).click();
  await expect(page).toHaveURL(/\/events\/studio-session$/);
  await expect(page.getByTestId("signed-in-as")).toHaveText(email);

  // The show page, the limit said before queueing, the waiting room.
  await page.goto("/events/studio-session");
  await expect(page.getByRole("heading", { name: "票价档位" })).toBeVisible();
  await expect(page.getByTestId("fan-limit-before")).toHaveText("每人限购 4 张。");
  await page.goto("/events/studio-session/queue");
  await expect(page).toHaveURL(/\/events\/studio-session\?admitted=1/, { timeout: 30_000 });
  await expect(page.getByText("轮到你了——请在")).toBeVisible();
  await expect(page.getByTestId("admission-countdown")).toContainText("你的购票时间还剩");
  await page.screenshot({ path: testInfo.outputPath("zh-event-admitted.png"), fullPage: true });

  // Hold, pay on the PSP page, tickets.
  await page.getByLabel("座位数", { exact: true }).selectOption("2");
  await page.getByRole("button", { name: "锁定最佳的 2 个座位" }).click();
  await expect(page).toHaveURL(/\/orders\/ord_/);
  await expect(page.getByTestId("order-status")).toHaveText("座位已锁定——等待付款");
  // Seats and times in Chinese: "MAIN区 A排 3号", the venue's zone by its Chinese name (not "GMT+1").
  await expect(page.getByTestId("order-seat")).toHaveText([ZH_SEAT, ZH_SEAT]);
  await expect(page.getByTestId("order").locator("header")).toContainText("中欧时间");
  await expect(page.getByTestId("order")).not.toContainText("GMT");
  await page.getByRole("button", { name: /^支付 / }).click();
  await expect(page).toHaveURL(/\/sandbox-psp\/checkout\//);
  await expect(page.getByTestId("sandbox-banner")).toHaveText("StarArena 沙盒支付——仅用于测试付款，不会产生真实扣款。");
  await expect(page.getByTestId("checkout-description")).toHaveText("Studio Session — Acoustic Night × 2");
  await expect(page.getByTestId("checkout-countdown")).toContainText("剩余时间");
  await page.screenshot({ path: testInfo.outputPath("zh-psp.png"), fullPage: true });
  await page.getByRole("button", { name: "确认付款" }).click();
  await expect(page.getByTestId("order-status")).toHaveText("你的票已出好");
  await expect(page.getByTestId("ticket")).toHaveCount(2);
  await expect(page.getByTestId("ticket-seat")).toHaveText([ZH_SEAT, ZH_SEAT]);
  await page.screenshot({ path: testInfo.outputPath("zh-order-ticketed.png"), fullPage: true });
  await page.goto("/tickets");
  await expect(page.getByTestId("ticket-seat")).toHaveText([ZH_SEAT, ZH_SEAT]);
  await expect(page.getByTestId("ticket-when").first()).toContainText("中欧时间");

  // The confirmation e-mail is in Chinese.
  await expect(async () => {
    await page.goto(`/dev/mailbox?to=${encodeURIComponent(email)}`);
    await expect(page.getByTestId("mail-subject").first()).toHaveText(/^你的 Studio Session.* 门票$/, { timeout: 1_000 });
  }).toPass({ timeout: 30_000 });
  await expect(page.getByTestId("mail").first()).toContainText("谢谢——已收到你的付款");
  await expect(page.getByTestId("mail").first()).toContainText("门票（入场时出示二维码，或报出票码）");
  await expect(page.getByTestId("mail").first()).toContainText(/MAIN区 [A-E]排 \d+号 — 票码/);
  // Its two ticket QR codes open from the mailbox, as the PNGs they are.
  const attachments = page.getByTestId("mail").first().getByTestId("mail-attachment");
  await expect(attachments).toHaveCount(2);
  for (const href of await attachments.evaluateAll((links) => links.map((a) => a.getAttribute("href")!))) {
    const png = await page.request.get(href);
    expect(png.headers()["content-type"]).toBe("image/png");
    expect((await png.body()).subarray(1, 4).toString()).toBe("PNG");
  }

  // Back in line: the page says in Chinese what the fan may still buy (2 bought of 4), and offers no more.
  await page.goto("/events/studio-session/queue");
  const rejoin = page.getByRole("button", { name: "重新排队" });
  await expect(async () => {
    if (/admitted=1/.test(page.url())) return;
    if (await rejoin.isVisible()) await rejoin.click();
    expect(page.url()).toMatch(/admitted=1/);
  }).toPass({ timeout: 30_000, intervals: [500] });
  await expect(page.getByTestId("fan-quota").first()).toHaveText(translator("zh-CN", "Buy")("quota", { have: 2, limit: 4 }));
  await expect(page.getByLabel("座位数", { exact: true }).locator("option")).toHaveText(["1", "2"]);

  // A refusal from the server in Chinese: over the per-fan limit (2 bought + 3 asked > 4), with this
  // fan's admission; and an unknown price level, for a request that asks for Chinese.
  const eventId = /evt_[0-9a-z]+/.exec(await page.request.get("/events/studio-session").then((r) => r.text()))![0];
  const levelId = ((await (await page.request.get(`/api/events/${eventId}/seat-map`)).json()) as { levels: { id: string }[] }).levels[0]!.id;
  const origin = new URL(page.url()).origin;
  const overLimit = await page.request.post(`/api/events/${eventId}/holds`, { headers: { "accept-language": "zh-CN", origin }, data: { kind: "best", priceLevelId: levelId, quantity: 3 } });
  expect(overLimit.status()).toBe(409);
  expect(((await overLimit.json()) as { error: string }).error).toBe("这场演出每人最多购买 4 张票，你已锁定或购买了 2 张。");
  const refused = await page.request.post(`/api/events/${eventId}/holds`, {
    headers: { "accept-language": "zh-CN,zh;q=0.9", origin },
    data: { kind: "best", priceLevelId: "lvl_nope", quantity: 1 },
  });
  expect(refused.status()).toBeGreaterThanOrEqual(400);
  expect(refused.status()).toBeLessThan(500);
  const body = (await refused.json()) as { error: string; code: string };
  expect(body.error).toMatch(/\p{Script=Han}/u);

  // The switcher: English from now on, whatever the browser says; the account follows.
  await page.goto("/");
  await page.getByTestId("locale-switcher").selectOption("en");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Shows");
  await page.reload();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Shows");
  await expect(page.locator("html")).toHaveAttribute("lang", "en");
  expect(await localeOfUser(email)).toBe("en");
});
