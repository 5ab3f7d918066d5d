/** Decides whether the production build is out of date, and builds when it is. */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";

/** The build folder: `NEXT_DIST_DIR` (tests use their own) or `.next`. */
const distDir = () => process.env.NEXT_DIST_DIR || ".next";

const SOURCES = ["app", "components", "lib", "db", "inngest", "public", "next.config.ts", "package-lock.json", "postcss.config.mjs"];

function newestMtime(p: string): number {
  if (!existsSync(p)) return 0;
  const s = statSync(p);
  if (!s.isDirectory()) return s.mtimeMs;
  let newest = s.mtimeMs;
  for (const entry of readdirSync(p)) newest = Math.max(newest, newestMtime(path.join(p, entry)));
  return newest;
}

/** True when the build folder has no build or a source file changed after it. */
export function buildIsStale(root = process.cwd()): boolean {
  const buildId = path.join(root, distDir(), "BUILD_ID");
  if (!existsSync(buildId)) return true;
  const built = statSync(buildId).mtimeMs;
  return SOURCES.some((s) => newestMtime(path.join(root, s)) > built);
}

/** Runs `next build` when needed (or always with `force`). @throws when the build fails. */
export function buildIfNeeded(log: (line: string) => void, force = false): void {
  if (!force && !buildIsStale()) {
    log("  build is up to date");
    return;
  }
  log("  running next build (about a minute the first time)…");
  const r = spawnSync("npx", ["next", "build"], { stdio: "inherit", env: { ...process.env, NODE_ENV: "production" } });
  if (r.status !== 0) throw new Error("next build failed (see above)");
}

/**
 * Forgets pages rendered on demand (ISR) by an earlier server. They embed data of the
 * database they were rendered from, so a server started on a fresh or re-seeded
 * database must not serve them, even stale.
 */
export function clearRenderedPages(root = process.cwd()): void {
  rmSync(path.join(root, distDir(), "server", "route-cache"), { recursive: true, force: true });
}
