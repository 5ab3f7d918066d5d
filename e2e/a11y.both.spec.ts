/**
 * Accessibility of every page a person reads (issue 42): axe (WCAG 2.0 and 2.1, A and AA) finds
 * no serious or critical violation on any fan, door or organizer page of e2e/pages.ts, in
 * English and in Chinese, on a desktop and a phone (the `.both.` suffix runs it on both
 * projects). A failure names the page, the language, the rule and the offending elements.
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { enter, LANGUAGES, PAGES, walkSetup, type Walk } from "./pages";

const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];
/** Impacts that fail the check; moderate and minor ones are left to judgement. */
const FAILING = new Set(["serious", "critical"]);

let walk: Walk;
test.beforeAll(async () => {
  test.setTimeout(180_000);
  walk = await walkSetup();
});

for (const p of PAGES) {
  for (const lang of LANGUAGES) {
    test(`axe: ${p.name} (${lang})`, async ({ context, page }, testInfo) => {
      await enter(context, walk, p.role, lang);
      await p.open(page, walk, lang);
      const { violations } = await new AxeBuilder({ page }).withTags(TAGS).analyze();
      const failing = violations.filter((v) => FAILING.has(v.impact ?? ""));
      const lines = failing.flatMap((v) =>
        v.nodes.map((n) => `${p.name} [${lang}, ${testInfo.project.name}] ${v.id} (${v.impact}): ${n.target.join(" ")} — ${(n.failureSummary ?? v.help).replace(/\s+/g, " ").trim()}`),
      );
      if (lines.length) await testInfo.attach("violations", { body: JSON.stringify(failing, null, 2), contentType: "application/json" });
      expect(lines, `serious or critical axe violations on ${page.url()}`).toEqual([]);
    });
  }
}
