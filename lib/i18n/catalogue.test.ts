/**
 * The catalogues are complete (issue 16: "a test fails on any fan-facing string missing from
 * the zh-CN catalogue"):
 * - every English key has a Chinese one and the reverse, each a valid ICU message with the
 *   same arguments in both languages;
 * - every error code raised anywhere in the app has a Chinese message;
 * - no page or component a person reads (fan, door and organizer alike: ADR 0029) renders words
 *   that bypass the catalogue: a TypeScript syntax walk over their JSX finds no literal text or
 *   literal human-facing attribute (aria-label, title, placeholder, alt, label), and no literal
 *   page title or description in their metadata.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { parse, TYPE, type MessageFormatElement } from "@formatjs/icu-messageformat-parser";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import en from "@/lib/i18n/messages/en.json";
import zhCN from "@/lib/i18n/messages/zh-CN.json";
import { translateErrorCode } from "@/lib/i18n/translate";

type Tree = { [key: string]: string | Tree };

function flatten(tree: Tree, prefix = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(tree)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (typeof v === "string") out.set(key, v);
    else for (const [kk, vv] of flatten(v, key)) out.set(kk, vv);
  }
  return out;
}

/** The argument names an ICU message uses (plural/select included, `#` not). */
function argumentsOf(elements: MessageFormatElement[], into = new Set<string>()): Set<string> {
  for (const e of elements) {
    if (e.type === TYPE.argument || e.type === TYPE.number || e.type === TYPE.date || e.type === TYPE.time) into.add(e.value);
    if (e.type === TYPE.plural || e.type === TYPE.select) {
      into.add(e.value);
      for (const option of Object.values(e.options)) argumentsOf(option.value, into);
    }
    if (e.type === TYPE.tag) argumentsOf(e.children, into);
  }
  return into;
}

const english = flatten(en as Tree);
const { errors: zhErrors, ...zhRest } = zhCN as Tree & { errors: Record<string, string> };
const chinese = flatten(zhRest as Tree);

describe("the catalogues", () => {
  it("have the same keys in English and Chinese", () => {
    expect([...english.keys()].filter((k) => !chinese.has(k))).toEqual([]);
    expect([...chinese.keys()].filter((k) => !english.has(k))).toEqual([]);
  });

  it("hold valid ICU messages with the same arguments in both languages, none left empty or in English", () => {
    const problems: string[] = [];
    for (const [key, text] of english) {
      const zh = chinese.get(key) ?? "";
      if (!text.trim() || !zh.trim()) problems.push(`${key}: empty`);
      const a = [...argumentsOf(parse(text))].sort();
      const b = [...argumentsOf(parse(zh))].sort();
      if (a.join() !== b.join()) problems.push(`${key}: en uses {${a.join(", ")}}, zh-CN uses {${b.join(", ")}}`);
      // A Chinese message with Latin words and no Han character was never translated (names such as "StarArena" aside).
      const latinOnly = zh.replace(/\{[^}]*\}/g, "").replace(/StarArena|PSP|JSON|NUL|Page Up|Page Down/g, "");
      if (/[A-Za-z]{3,}/.test(latinOnly) && !/\p{Script=Han}/u.test(zh)) problems.push(`${key}: "${zh}" is not Chinese`);
    }
    for (const [code, text] of Object.entries(zhErrors)) {
      parse(text); // throws on a broken message
      if (!text.trim()) problems.push(`errors.${code}: empty`);
    }
    expect(problems).toEqual([]);
  });
});

// ─── Every error code has a Chinese message ──────────────────────────────────────

const ROOT = join(__dirname, "..", "..");

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name === "node_modules" || name.startsWith(".")) continue;
    if (statSync(path).isDirectory()) sourceFiles(path, out);
    else if (/\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

/**
 * The codes raised in the app's source: the second string argument of `new AppError(kind, code, …)`,
 * of a subclass's `super(kind, code, …)` and of the local `refused(kind, code, …)` helpers; the
 * prefixed families (`admission_<reason>`, `ticket_<reason>`) and codes chosen by a ternary are listed.
 */
function raisedCodes(): Set<string> {
  const codes = new Set<string>();
  for (const file of [...sourceFiles(join(ROOT, "lib")), ...sourceFiles(join(ROOT, "app"))]) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/(?:new AppError|super|refused|AdminOrderError)\(\s*(?:"[a-z_]+"|[a-zA-Z.]+\s*\?\s*"[a-z_]+"\s*:\s*"[a-z_]+"|\w+),\s*("[a-z_]+"|[a-zA-Z.]+\s*\?\s*"[a-z_]+"\s*:\s*"[a-z_]+")/g)) {
      for (const c of m[1]!.matchAll(/"([a-z_]+)"/g)) codes.add(c[1]!);
    }
    for (const m of text.matchAll(/(?:new AppError|super)\(\s*[^,]+,\s*\w+\s*\?\s*"([a-z_]+)"\s*:\s*"([a-z_]+)"/g)) {
      codes.add(m[1]!);
      codes.add(m[2]!);
    }
  }
  for (const reason of ["missing", "expired", "forged", "other_fan", "other_event"]) codes.add(`admission_${reason}`);
  for (const reason of ["malformed", "not_genuine"]) codes.add(`ticket_${reason}`);
  for (const code of ["not_together", "not_enough", "fan_limit", "seat_taken", "not_on_sale", "order_pending", "previous_hold_ending", "psp_refused", "internal"]) codes.add(code);
  return codes;
}

describe("error messages", () => {
  it("exist in Chinese for every error code the app raises", () => {
    const codes = raisedCodes();
    expect(codes.size).toBeGreaterThan(40);
    expect([...codes].filter((c) => !(c in zhErrors)).sort()).toEqual([]);
  });

  it("are filled with the error's facts", () => {
    expect(translateErrorCode("zh-CN", "fan_limit", { limit: 4, current: 3 })).toBe("这场演出每人最多购买 4 张票，你已锁定或购买了 3 张。");
    expect(translateErrorCode("zh-CN", "not_enough", { requested: 2, bestGroup: 0 })).toBe("这个票价档位已售罄。");
    expect(translateErrorCode("zh-CN", "not_enough", { requested: 3, bestGroup: 1 })).toBe("这个票价档位仅剩 1 个座位。");
    expect(translateErrorCode("zh-CN", "no_such_code_at_all")).toBeNull();
    expect(translateErrorCode("en", "fan_limit", { limit: 4, current: 0 })).toBeNull();
  });
});

// ─── No words outside the catalogue ──────────────────────────────────────────────

/**
 * Every page and component a person reads: all of app/ (the fan's pages, the check-in page, the
 * organizer's pages — ADR 0029 — and the developer's mailbox, which speaks both languages too)
 * and components/.
 */
const READ_BY_PEOPLE = [...sourceFiles(join(ROOT, "app")), ...sourceFiles(join(ROOT, "components"))].filter((f) => f.endsWith(".tsx"));
/** Attributes a person reads or hears. */
const HUMAN_ATTRIBUTES = new Set(["aria-label", "title", "placeholder", "alt", "label", "aria-roledescription", "aria-valuetext"]);
/** Words that are the same in every language: the product's name. */
const SAME_IN_EVERY_LANGUAGE = /^(★ )?StarArena$/;

function untranslated(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found: string[] = [];
  const where = (node: ts.Node) => `${relative(ROOT, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const hasWords = (text: string) => /\p{L}{2,}/u.test(text) && !SAME_IN_EVERY_LANGUAGE.test(text.trim());
  const visit = (node: ts.Node) => {
    if (ts.isJsxText(node) && hasWords(node.getText())) found.push(`${where(node)} text "${node.getText().trim()}"`);
    if (ts.isJsxAttribute(node) && HUMAN_ATTRIBUTES.has(node.name.getText()) && node.initializer) {
      const init = node.initializer;
      const literal = ts.isStringLiteral(init) ? init.text : ts.isJsxExpression(init) && init.expression && (ts.isStringLiteral(init.expression) || ts.isNoSubstitutionTemplateLiteral(init.expression)) ? init.expression.text : null;
      if (literal !== null && hasWords(literal)) found.push(`${where(node)} ${node.name.getText()}="${literal}"`);
    }
    // A page's title or description in its metadata (`metadata = { title: "…" }`, generateMetadata).
    if (ts.isPropertyAssignment(node) && ["title", "description"].includes(node.name.getText()) && (ts.isStringLiteral(node.initializer) || ts.isNoSubstitutionTemplateLiteral(node.initializer)) && hasWords(node.initializer.text)) {
      found.push(`${where(node)} ${node.name.getText()}: "${node.initializer.text}"`);
    }
    // {"words"} or {`words`} as a child of an element.
    if (ts.isJsxExpression(node) && node.parent && (ts.isJsxElement(node.parent) || ts.isJsxFragment(node.parent)) && node.expression) {
      const e = node.expression;
      if ((ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) && hasWords(e.text)) found.push(`${where(node)} text {"${e.text}"}`);
      if (ts.isTemplateExpression(e) && hasWords(e.head.text + e.templateSpans.map((s) => s.literal.text).join(""))) found.push(`${where(node)} template ${e.getText()}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("pages and components a person reads", () => {
  it("cover the organizer's and the door's pages as well as the fan's", () => {
    const files = READ_BY_PEOPLE.map((f) => relative(ROOT, f));
    for (const f of ["app/admin/page.tsx", "app/admin/scan/page.tsx", "app/admin/orders/[orderId]/page.tsx", "app/[locale]/page.tsx", "app/dev/mailbox/page.tsx", "components/live-view.tsx", "components/seat-map.tsx"]) {
      expect(files).toContain(f);
    }
  });

  it("render no words that bypass the catalogue", () => {
    expect(READ_BY_PEOPLE.length).toBeGreaterThan(40);
    expect(READ_BY_PEOPLE.flatMap(untranslated)).toEqual([]);
  });

  it("are checked by a scan that does find literal words (it can fail)", () => {
    const dir = mkdtempSync(join(tmpdir(), "i18n-scan-"));
    const bad = join(dir, "bad.tsx");
    writeFileSync(bad, 'export const metadata = { title: "Live sales" };\nexport const X = () => <p title="Hello there">Pick seats {"now please"} {`and ${1} more`}<b aria-label={t("ok")}>{t("fine")}</b></p>;\n');
    expect(untranslated(bad).map((f) => f.replace(/^.*bad\.tsx:\d+ /, ""))).toEqual(['title: "Live sales"', 'title="Hello there"', 'text "Pick seats"', 'text {"now please"}', "template `and ${1} more`"]);
    rmSync(dir, { recursive: true });
  });
});
