import path from "node:path";
import { defineConfig } from "vitest/config";

/**
 * Unit and integration tests. Integration tests talk to the real Postgres and Redis:
 * the global setup creates a database and a Redis key prefix for this run only.
 */
export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["lib/**/*.test.ts", "db/**/*.test.ts", "scripts/**/*.test.ts"],
    globalSetup: ["./lib/testing/global-setup.ts"],
    setupFiles: ["./lib/testing/setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
  },
});
