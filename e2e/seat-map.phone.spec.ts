/**
 * The seat a fan taps is the seat they get (issue 42), on a phone (390×844, touch) in Chinese:
 * admitted on an arena show, the fan taps section 110, then a seat and its right-hand
 * neighbour — both aimed from where they were on screen before the first seat tap, as a thumb
 * does — and holds them. The order holds exactly those two seats (its line items in the
 * database), and the map's box does not move: before the first tap, between the taps, after,
 * and while an error line (one seat over the limit) comes and goes.
 */
import { expect, test, type Locator, type Page } from "@playwright/test";
import { and, asc, eq } from "drizzle-orm";
import { createArenaShow } from "./db";
import { enterThroughQueue, seatMapOf, signUp, type MapGeometry } from "./helpers";
import { lineItems, seats } from "@/db/schema";
import { closeDb, db } from "@/lib/db";

test.use({ locale: "zh-CN" });

const ZH_SIGN_UP = { name: "姓名", email: "邮箱", password: "密码", submit: "注册" };

/** The canvas's view (`data-view`, `data-base`) and where it is on screen. */
async function viewOf(canvas: Locator) {
  const box = (await canvas.boundingBox())!;
  const [scale, x, y] = (await canvas.getAttribute("data-view"))!.split(" ").map(Number) as [number, number, number];
  const base = Number(await canvas.getAttribute("data-base"));
  /** Where plan point (ux, uy) is on screen (CSS px from the viewport's corner). */
  const onScreen = (ux: number, uy: number): [number, number] => [box.x + x + scale * base * ux, box.y + y + scale * base * uy];
  /** The plan point at screen point (px, py). */
  const onPlan = (px: number, py: number): [number, number] => [(px - box.x - x) / (scale * base), (py - box.y - y) / (scale * base)];
  return { box, onScreen, onPlan };
}

/** Waits until the map's view stops changing (a zoom's animation has ended). */
async function settled(canvas: Locator) {
  await expect(async () => {
    const before = await canvas.getAttribute("data-view");
    await new Promise((r) => setTimeout(r, 150));
    expect(await canvas.getAttribute("data-view")).toBe(before);
  }).toPass();
}

/** The map's box on screen and the page's scroll, as one comparable value. */
async function placeOf(page: Page, canvas: Locator) {
  const box = (await canvas.boundingBox())!;
  const scrollY = await page.evaluate(() => window.scrollY);
  return { x: box.x, y: box.y, width: box.width, height: box.height, scrollY };
}

/** The seat ordinals of an order's line items, ascending (the e2e server's database: e2e/db.ts). */
async function orderedOrdinals(orderId: string): Promise<number[]> {
  const rows = await db().select({ ordinal: seats.ordinal }).from(lineItems).innerJoin(seats, eq(lineItems.seatId, seats.id)).where(and(eq(lineItems.orderId, orderId))).orderBy(asc(seats.ordinal));
  await closeDb();
  return rows.map((r) => r.ordinal);
}

/** A seat's label as the zh-CN catalogue composes it (Seat.seated: "{section}区 {row}排 {seat}号"). */
const zhLabel = (map: MapGeometry, o: number) => `${map.sections[map.seats.section[o]!]!.code}区 ${map.rows[map.seats.row[o]!]}排 ${map.seats.number[o]}号`;

test("on a phone, the two neighbouring seats a fan taps are the two they hold, and the map never moves", async ({ page }, testInfo) => {
  const slug = `arena-taps-${Date.now()}`;
  const eventId = await createArenaShow(slug);
  await signUp(page, "点座位的人", `/events/${slug}`, ZH_SIGN_UP);
  await enterThroughQueue(page, slug, "重新排队");
  await page.getByRole("button", { name: "在座位图上选" }).tap();
  const canvas = page.getByTestId("seat-map");
  await expect(canvas).toHaveAttribute("data-seat-count", "20000");
  await expect(canvas).toHaveAttribute("data-available-count", "20000");
  await expect(canvas).toHaveAttribute("data-pickable", "false");
  const map = await seatMapOf(page, eventId);
  const s110 = map.sections.findIndex((s) => s.code === "110");
  const inSection = map.seats.section.flatMap((s, o) => (s === s110 ? [o] : []));

  await canvas.evaluate((el) => el.scrollIntoView({ block: "center" }));
  const places = [await placeOf(page, canvas)];

  // Tap section 110 (the middle of its seats): the map zooms to it, seats become tappable.
  const cx = inSection.reduce((n, o) => n + map.seats.x[o]!, 0) / inSection.length;
  const cy = inSection.reduce((n, o) => n + map.seats.y[o]!, 0) / inSection.length;
  await page.touchscreen.tap(...(await viewOf(canvas)).onScreen(cx, cy));
  await expect(canvas).toHaveAttribute("data-pickable", "true");
  await settled(canvas);
  places.push(await placeOf(page, canvas));

  // Aim: the seat of section 110 nearest the map's middle, and the seats to its right on screen
  // (the next numbers in its row). Every point is worked out now, before any seat is tapped.
  const view = await viewOf(canvas);
  const [mx, my] = view.onPlan(view.box.x + view.box.width / 2, view.box.y + view.box.height / 2);
  const a = inSection.reduce((best, o) => (Math.hypot(map.seats.x[o]! - mx, map.seats.y[o]! - my) < Math.hypot(map.seats.x[best]! - mx, map.seats.y[best]! - my) ? o : best));
  const row = inSection.filter((o) => map.seats.row[o] === map.seats.row[a]);
  const [b, c, d, e] = [1, 2, 3, 4].map((k) => row.find((o) => map.seats.number[o] === map.seats.number[a]! + k)!);
  const aim = new Map([a, b, c, d, e].map((o) => [o, view.onScreen(map.seats.x[o!]!, map.seats.y[o!]!)] as const));
  const [at, bt] = [aim.get(a)!, aim.get(b!)!];
  expect(bt[0], "the neighbour is to the right on screen").toBeGreaterThan(at[0] + 20);
  expect(Math.abs(bt[1] - at[1]), "…in the same line").toBeLessThan(4);
  for (const [px, py] of aim.values()) {
    expect(px).toBeGreaterThan(view.box.x);
    expect(px).toBeLessThan(view.box.x + view.box.width);
    expect(py).toBeGreaterThan(view.box.y);
    expect(py).toBeLessThan(view.box.y + view.box.height);
  }
  const tap = (o: number) => page.touchscreen.tap(...aim.get(o)!);

  await tap(a);
  await expect(page.getByTestId("picked-seats")).toHaveText(zhLabel(map, a));
  places.push(await placeOf(page, canvas));
  await tap(b!);
  await expect(page.getByTestId("picked-seats")).toHaveText(new RegExp(`^${zhLabel(map, a)}、`));
  places.push(await placeOf(page, canvas));
  await expect(page.getByTestId("picked-seats")).toHaveText(`${zhLabel(map, a)}、${zhLabel(map, b!)}`);

  // The README's phone screenshot: two seats picked, the bar with the hold button in sight.
  await page.screenshot({ path: testInfo.outputPath("phone-zh-seat-map.png") });
  await page.screenshot({ path: "test-results/screenshots/phone-zh-seat-map.png" });

  // An error line (a fifth seat over the show's limit of 4) does not move the map either; unpicking clears it.
  for (const o of [c!, d!]) await tap(o);
  await expect(page.getByTestId("picked-seats")).toHaveText([a, b!, c!, d!].map((o) => zhLabel(map, o)).join("、"));
  places.push(await placeOf(page, canvas));
  await tap(e!);
  await expect(page.getByTestId("buy-error")).toHaveText("你最多只能选 4 个座位。");
  places.push(await placeOf(page, canvas));
  for (const o of [c!, d!]) await tap(o);
  await expect(page.getByTestId("picked-seats")).toHaveText(`${zhLabel(map, a)}、${zhLabel(map, b!)}`);
  places.push(await placeOf(page, canvas));

  // Nothing moved the map: not the zoom, the picked seats' line, the hold button or the error.
  const steps = ["before any tap", "zoomed to section 110", "one seat picked", "two seats picked", "four picked", "error shown", "back to two"];
  for (const [i, place] of places.entries()) expect.soft(place, `the map's place: ${steps[i]}`).toEqual(places[0]);

  await page.getByRole("button", { name: /^锁定 2 个座位/ }).tap();
  await expect(page).toHaveURL(/\/orders\/ord_/);
  const orderId = /\/orders\/(ord_[0-9a-z]+)/.exec(page.url())![1]!;
  expect(await orderedOrdinals(orderId)).toEqual([a, b!].sort((x, y) => x - y));
});
