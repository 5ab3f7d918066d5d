import { existsSync } from "node:fs";
import { defineConfig, devices } from "@playwright/test";

/**
 * End-to-end tests in Debian's Chromium (never a downloaded browser) against the
 * production build, served by scripts/e2e-server.ts on a fresh, seeded database.
 */
const port = Number(process.env.E2E_PORT ?? 3100);
const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export default defineConfig({
  testDir: "./e2e",
  outputDir: "./test-results",
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 1,
  retries: process.env.CI ? 1 : 0,
  reporter: [["list"], ["html", { open: "never", outputFolder: "playwright-report" }], ["json", { outputFile: "test-results/playwright.json" }]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    screenshot: "on",
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: existsSync(chromium) ? chromium : undefined,
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    },
  },
  projects: [
    // A spec runs on the desktop unless it names a phone: `*.phone.spec.ts` (and mobile.spec.ts) on the phone
    // only, `*.both.spec.ts` on both.
    { name: "chromium", use: { ...devices["Desktop Chrome"], viewport: { width: 1280, height: 1000 } }, testIgnore: /(mobile|\.phone)\.spec\.ts$/ },
    // A phone: 390×844 CSS px, touch, a mobile user agent (issue 16); Chromium's Pixel 7 with the size of most phones sold.
    { name: "mobile", use: { ...devices["Pixel 7"], viewport: { width: 390, height: 844 } }, testMatch: /(mobile|\.phone|\.both)\.spec\.ts$/ },
  ],
  webServer: {
    command: "npx tsx scripts/e2e-server.ts",
    url: `http://127.0.0.1:${port}/api/health`,
    timeout: 240_000,
    reuseExistingServer: false,
    stdout: "pipe",
    // Inngest is configured but unreachable: the suite must pass through the local worker (docs/adr/0006).
    env: { E2E_PORT: String(port), INNGEST_DEV: "1", INNGEST_BASE_URL: "http://127.0.0.1:9" },
  },
});
