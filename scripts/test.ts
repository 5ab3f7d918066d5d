/**
 * `npm test`: the whole gate, in order — lint, the layering check, typecheck, Vitest (unit + integration
 * against the real Postgres and Redis, isolated per run), the named integration suites again on a
 * local Redis Cluster and through PgBouncer (scripts/test-distributed.ts), `next build`, Playwright e2e
 * in Debian's Chromium against that build, then the small on-sale simulation on the same
 * build (500 seats, 5,000 fans over HTTP; fails on any invariant violation or an unfair
 * queue; report in test-results/onsale-small.json and .html), and a smaller one during which
 * Redis is killed and Postgres cut (fails unless every answer meanwhile is a fast 503 with a
 * body and everything recovers by itself). Prints one summary line at the end,
 * "tests: N passed, M failed", and exits non-zero when any step fails.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";

type Step = { name: string; cmd: string; args: string[]; env?: Record<string, string> };
const steps: Step[] = [
  { name: "lint", cmd: "npx", args: ["eslint", "."] },
  // Imports run one way, no cycles, no database from the UI (.dependency-cruiser.cjs, docs/architecture.md).
  { name: "layering (dependency-cruiser)", cmd: "npx", args: ["depcruise", "app", "components", "lib", "inngest", "scripts", "db", "--config", ".dependency-cruiser.cjs"] },
  { name: "typecheck", cmd: "npm", args: ["run", "typecheck", "--silent"] },
  { name: "unit + integration (vitest)", cmd: "npx", args: ["vitest", "run", "--reporter=default", "--reporter=json", "--outputFile.json=test-results/vitest.json"] },
  // The named suites again on a local 3-primary Redis Cluster and through PgBouncer in transaction mode, then a primary killed mid-sale.
  { name: "unit + integration on the distributed tiers (Redis Cluster, PgBouncer)", cmd: "npx", args: ["tsx", "scripts/test-distributed.ts"] },
  // Tests build into their own folder so a running `npm start` keeps serving its .next.
  { name: "build (next build)", cmd: "npx", args: ["next", "build"], env: { NODE_ENV: "production", NEXT_DIST_DIR: ".next-test" } },
  { name: "e2e (playwright, chromium)", cmd: "npx", args: ["playwright", "test"], env: { NEXT_DIST_DIR: ".next-test" } },
  {
    // The door's bound here is 300 ms, not the reference run's 100: at the small run's burst the
    // door shares these 2 cores with two app instances, Postgres and the simulator, and its p99
    // is the wait for a core (measured 11–154 ms across hosts, 2026-12-01). A broken or
    // blocking door (seconds) still fails it; BENCHMARKS.md holds the door's own figures.
    name: "on-sale simulation (small: 500 seats, 5,000 fans)",
    cmd: "npx",
    args: ["tsx", "scripts/onsale.ts", "--small", "--door-p99-ms", "300", "--build", "never", "--json", "test-results/onsale-small.json"],
    env: { NEXT_DIST_DIR: ".next-test" },
  },
  {
    // Redis killed and restarted, then Postgres cut and restored, mid-sale: every answer a fast 503 with a body, recovery by itself, 0 violations.
    name: "on-sale simulation with outages (300 seats, 2,000 fans; Redis killed, Postgres cut)",
    cmd: "npx",
    args: ["tsx", "scripts/onsale.ts", "--small", "--fans", "2000", "--capacity", "300", "--outage", "--door-p99-ms", "300", "--build", "never", "--json", "test-results/onsale-outage.json"],
    env: { NEXT_DIST_DIR: ".next-test" },
  },
];

mkdirSync("test-results", { recursive: true });
let passed = 0;
let failed = 0;
const failedSteps: string[] = [];
const started = Date.now();

function countVitest(files: string[]) {
  for (const file of files) {
    if (!existsSync(file)) continue;
    const r = JSON.parse(readFileSync(file, "utf8")) as { numPassedTests: number; numFailedTests: number };
    passed += r.numPassedTests;
    failed += r.numFailedTests;
  }
}

function countPlaywright() {
  if (!existsSync("test-results/playwright.json")) return;
  const r = JSON.parse(readFileSync("test-results/playwright.json", "utf8")) as { stats: { expected: number; unexpected: number; flaky: number } };
  passed += r.stats.expected + r.stats.flaky;
  failed += r.stats.unexpected;
}

for (const f of ["vitest.json", "vitest-distributed.json", "vitest-failover.json"]) rmSync(`test-results/${f}`, { force: true });
rmSync("test-results/playwright.json", { force: true });
for (const [i, step] of steps.entries()) {
  if ((step.name.startsWith("e2e") || step.name.startsWith("on-sale")) && failedSteps.some((s) => s.startsWith("build"))) {
    console.log(`\n■ [${i + 1}/${steps.length}] ${step.name}: skipped, the build failed`);
    continue;
  }
  console.log(`\n■ [${i + 1}/${steps.length}] ${step.name}`);
  const t0 = Date.now();
  const r = spawnSync(step.cmd, step.args, { stdio: "inherit", env: { ...process.env, ...step.env } });
  const ok = r.status === 0;
  console.log(`■ ${step.name}: ${ok ? "ok" : "FAILED"} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  const failedBefore = failed;
  if (step.name === "unit + integration (vitest)") countVitest(["test-results/vitest.json"]);
  if (step.name.startsWith("unit + integration on the distributed")) countVitest(["test-results/vitest-distributed.json", "test-results/vitest-failover.json"]);
  if (step.name.startsWith("e2e")) countPlaywright();
  if (step.name.startsWith("on-sale") && ok) passed += 1; // one test: the simulation's verdict
  if (!ok) {
    failedSteps.push(step.name);
    // A step that failed without a failing test (lint, types, build, a server that would not start) still counts.
    if (failed === failedBefore) failed += 1;
  }
}

console.log(`\n■ done in ${((Date.now() - started) / 1000).toFixed(0)} s${failedSteps.length ? `; failed steps: ${failedSteps.join(", ")}` : ""}`);
console.log(`tests: ${passed} passed, ${failed} failed`);
process.exit(failedSteps.length ? 1 : 0);
