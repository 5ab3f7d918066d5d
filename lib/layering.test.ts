/**
 * The layering rules (.dependency-cruiser.cjs, docs/architecture.md) can fail: a throwaway
 * tree with an upward import, a cycle, and a page that imports drizzle is cruised with the
 * project's own rules, and each breach is reported. (`npm test` runs the same rules over
 * the real tree, where they find nothing.)
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = process.cwd();
const tree = mkdtempSync(path.join(tmpdir(), "stararena-layers-"));
afterAll(() => rmSync(tree, { recursive: true, force: true }));

function write(file: string, text: string) {
  mkdirSync(path.dirname(path.join(tree, file)), { recursive: true });
  writeFileSync(path.join(tree, file), text);
}

/** Cruises the throwaway tree with the project's rules; returns the violated rule names. */
function cruise(): { code: number | null; rules: string[]; output: string } {
  const r = spawnSync(process.execPath, [path.join(root, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs"), "lib", "app", "--config", path.join(root, ".dependency-cruiser.cjs")], {
    cwd: tree,
    encoding: "utf8",
  });
  const rules = [...r.stdout.matchAll(/^\s*error ([a-z0-9-]+):/gm)].map((m) => m[1]!);
  return { code: r.status, rules: [...new Set(rules)].sort(), output: r.stdout + r.stderr };
}

describe("the layering check", () => {
  it("passes a tree whose imports run one way, and fails each kind of breach", () => {
    write("tsconfig.json", JSON.stringify({ compilerOptions: { module: "esnext", moduleResolution: "bundler", baseUrl: ".", paths: { "@/*": ["./*"] } } }));
    write("lib/db.ts", "export const db = 1;\n");
    write("app/page.tsx", "export default function Page() { return null; }\n");
    write("lib/orders/place.ts", 'import { db } from "@/lib/db";\nexport const place = db;\n');
    write("lib/payments/pay.ts", 'import { place } from "@/lib/orders/place";\nexport const pay = place;\n');
    expect(cruise()).toMatchObject({ code: 0, rules: [] });

    // An upward import: orders (below) reaching payments (above).
    write("lib/orders/place.ts", 'import { db } from "@/lib/db";\nimport { pay } from "@/lib/payments/pay";\nexport const place = db + pay;\n');
    // A page that reads the schema itself.
    write("db/schema.ts", "export const orders = {};\n");
    write("app/page.tsx", 'import { orders } from "@/db/schema";\nexport default function Page() { return String(orders); }\n');
    const broken = cruise();
    expect(broken.code).not.toBe(0);
    expect(broken.rules).toEqual(["layer-orders", "no-circular", "ui-not-to-the-database"]);
  });

  it("fails when the door's handler reaches a Node API, however indirectly", () => {
    write("lib/signing.ts", "export const sign = (s: string) => s;\n");
    write("lib/door/handler.ts", 'import { sign } from "@/lib/signing";\nexport const door = sign;\n');
    expect(cruise().rules.filter((r) => r.startsWith("door"))).toEqual([]);
    write("lib/signing.ts", 'import { createHmac } from "node:crypto";\nexport const sign = (s: string) => createHmac("sha256", "k").update(s).digest("hex");\n');
    expect(cruise().rules).toContain("door-is-portable-1");
  });
});
