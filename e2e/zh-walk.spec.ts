/**
 * Chinese wherever a person reads (issue 42, ADR 0029): every page of e2e/pages.ts, opened in
 * zh-CN, shows no Latin-script word — in its text, in what a screen reader says (aria-label,
 * title, placeholder, alt…) and in its title — other than:
 * - what people entered, which stays as entered: show, price-level, venue and section names,
 *   section codes and row labels, people's names; and the PSPs' names as payments record them
 *   (read from the database: pages.ts `enteredData`);
 * - ids (`ord_…`, `sbx_cs_…`, time zones such as Europe/Berlin), codes (anything with a digit:
 *   ticket short codes, seat numbers, times, prices), ISO currency codes (EUR), UTC/GMT offsets,
 *   e-mail and web addresses and the site's own paths (`/events/…`);
 * - a few names that are the same in every language: {@link SAME_IN_EVERY_LANGUAGE};
 * - text marked as another language (`lang="en"`): the language switcher names English in English.
 * Words of one letter (a row "A", "x") are not words. Text drawn on a canvas (the seat map) is not
 * in the page's text and is not seen here.
 */
import { expect, test, type Page } from "@playwright/test";
import { enteredData, enter, PAGES, walkSetup, type Walk } from "./pages";

/**
 * Names no one translates: the product, the payment brands a Chinese fan knows by these names
 * (Alipay and WeChat Pay also read 支付宝 / 微信支付), the card PSP, "PSP" itself, which the
 * sandbox's pages use as a term of art in both languages, the file format the organizer downloads
 * (下载 CSV), and the keys named as printed on a keyboard (the seat map's help).
 */
const SAME_IN_EVERY_LANGUAGE = ["StarArena", "Alipay", "WeChat Pay", "Stripe", "PSP", "CSV", "Page Up", "Page Down"];

/** One piece of text a person reads, and where: `page · element · what` (text, an attribute, the title). */
export interface Seen {
  where: string;
  text: string;
}

const CURRENCIES = new Set(Intl.supportedValuesOf("currency"));
const TIME_ZONES = new Set(Intl.supportedValuesOf("timeZone"));
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** `phrase` as a whole: not inside a longer Latin word or number. */
const whole = (phrase: string) => new RegExp(`(?<![\\p{Script=Latin}\\p{N}])${escape(phrase)}(?![\\p{Script=Latin}\\p{N}])`, "gu");
/** Not words: e-mail and web addresses, paths of the site, ids (`evt_…`, `sbx_cs_…`), UTC/GMT offsets, ticket short codes (Crockford base 32, 5-5: some have no digit). */
const NOT_WORDS = [
  /\b[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}\b/g,
  /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g,
  /\bhttps?:\/\/\S+/g,
  /(?<![\p{L}\p{N}])\/[\w.-]+(?:\/[\w.…-]*)*/gu,
  /\b[a-z]{2,6}(?:_[0-9a-z]+)+\b/g,
  /\b(?:UTC|GMT)\s?[+\-−]\s?\d{1,2}(?::?\d\d)?\b/g,
];
/** An IANA time zone's id (Europe/Berlin): an id, spelled the same in every language. */
const ZONE_ID = /\b[A-Z][A-Za-z_-]+(?:\/[A-Za-z0-9_+-]+)+/g;

/**
 * The Latin-script words in `seen` that are none of the allowed kinds (see the file's comment),
 * each as `where: «word» in "text"`. `entered` is what people entered (names, codes), allowed whole.
 */
export function englishIn(seen: Seen[], entered: string[]): string[] {
  const phrases = [...new Set([...entered, ...SAME_IN_EVERY_LANGUAGE].map((p) => p.trim()).filter((p) => /\p{Script=Latin}/u.test(p)))]
    .sort((a, b) => b.length - a.length)
    .map(whole);
  const found: string[] = [];
  for (const { where, text } of seen) {
    let rest = text;
    rest = rest.replace(ZONE_ID, (id) => (TIME_ZONES.has(id) ? " " : id));
    for (const pattern of NOT_WORDS) rest = rest.replace(pattern, " ");
    for (const phrase of phrases) rest = rest.replace(phrase, " ");
    const words = (rest.match(/[\p{Script=Latin}\p{N}_'’-]+/gu) ?? []).filter(
      (w) => /\p{Script=Latin}{2,}/u.test(w) && !/\p{N}/u.test(w) && !(/^[A-Z]{3}$/.test(w) && CURRENCIES.has(w)),
    );
    if (words.length) found.push(`${where}: «${[...new Set(words)].join(" ")}» in "${text.replace(/\s+/g, " ").trim().slice(0, 160)}"`);
  }
  return found;
}

/**
 * Everything on the page a person reads or hears: visible text (screen-reader-only text too),
 * the human-facing attributes, the labels of button inputs and the document's title. Form
 * fields' contents are what someone typed, and are left out, as is text marked with another `lang`.
 */
async function readable(page: Page): Promise<Seen[]> {
  const path = new URL(page.url()).pathname;
  const seen = await page.evaluate(() => {
    const ATTRIBUTES = ["aria-label", "title", "placeholder", "alt", "aria-roledescription", "aria-valuetext"];
    const out: { where: string; text: string }[] = [];
    const otherLanguage = (e: Element) => {
      // The page's own language (<html lang>) is checked apart; this is text marked inside it.
      const lang = e.closest("body [lang]")?.getAttribute("lang") ?? "";
      return lang !== "" && !lang.toLowerCase().startsWith("zh");
    };
    const name = (e: Element) => {
      const testId = e.closest("[data-testid]");
      const self = `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ""}`;
      return testId && testId !== e ? `[data-testid=${testId.getAttribute("data-testid")}] ${self}` : testId ? `[data-testid=${testId.getAttribute("data-testid")}]` : self;
    };
    const shown = (e: Element) => {
      const host = e.closest("option, optgroup") ? e.closest("select") : e;
      return !!host && host.checkVisibility({ visibilityProperty: true });
    };
    out.push({ where: "title", text: document.title });
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      const text = node.textContent ?? "";
      if (!parent || !text.trim() || parent.closest("script, style, noscript, template, textarea")) continue;
      if (otherLanguage(parent) || !shown(parent)) continue;
      out.push({ where: `${name(parent)} text`, text });
    }
    for (const e of document.body.querySelectorAll("*")) {
      if (otherLanguage(e) || !shown(e)) continue;
      for (const a of ATTRIBUTES) {
        const v = e.getAttribute(a);
        if (v?.trim()) out.push({ where: `${name(e)} ${a}`, text: v });
      }
      if (e instanceof HTMLInputElement && ["button", "submit", "reset"].includes(e.type) && e.value.trim()) out.push({ where: `${name(e)} value`, text: e.value });
    }
    return out;
  });
  return seen.map((s) => ({ ...s, where: `${path} · ${s.where}` }));
}

test("the walk's filter reports an English word on a Chinese page and lets entered data, codes and brands through", () => {
  const entered = ["Nova Lights World Tour", "Floor Standing", "MAIN", "Walk Fan"];
  const seen: Seen[] = [
    { where: "a", text: "Nova Lights World Tour · 内场 Floor Standing · MAIN区 A排 3号" },
    { where: "b", text: "订单 ord_7k2m9x · 票码 A7K3M-9PQ2X、XVWYE-SJJAC · €119.00 EUR · 17:34 GMT+1 · walk-fan-1@example.test" },
    { where: "b2", text: "时区 Europe/Berlin，地址 /events/nova-lights…" },
    { where: "c", text: "使用 StarArena 支付：Alipay、WeChat Pay 或 Stripe（PSP 沙盒）" },
    { where: "d", text: "Sec MAIN · Row A · Seat 3" },
    { where: "e", text: "2 张票 — Nova Lights World Tour tickets" },
    { where: "f", text: "Nova Lights 已售罄" },
    { where: "g", text: "时区 Europe/Sunshine · 已售 / on sale" },
  ];
  expect(englishIn(seen, entered)).toEqual([
    'd: «Sec Row Seat» in "Sec MAIN · Row A · Seat 3"',
    'e: «tickets» in "2 张票 — Nova Lights World Tour tickets"',
    // Part of a name is not the name: only whole entries are data.
    'f: «Nova Lights» in "Nova Lights 已售罄"',
    // Not a time zone; a slash between words is not a path.
    'g: «Europe Sunshine on sale» in "时区 Europe/Sunshine · 已售 / on sale"',
  ]);
});

let walk: Walk;
let entered: string[];
test.describe("every page in zh-CN", () => {
  test.beforeAll(async () => {
    test.setTimeout(180_000);
    walk = await walkSetup();
    entered = await enteredData();
  });

  for (const p of PAGES) {
    test(`zh-CN: ${p.name}`, async ({ context, page }) => {
      await enter(context, walk, p.role, "zh-CN");
      await p.open(page, walk, "zh-CN");
      const lang = await page.locator("html").getAttribute("lang");
      const found = englishIn(await readable(page), entered);
      if (lang !== "zh-CN") found.unshift(`${new URL(page.url()).pathname} · <html lang="${lang}">: a Chinese page says it is not`);
      expect(found, `English on ${p.name} in zh-CN`).toEqual([]);
    });
  }
});
