/**
 * StarArena's layering, checked by dependency-cruiser in `npm test` (docs/architecture.md).
 * Imports run one way, from the top of this list to the bottom; nothing below reaches up:
 *   app/ components/ inngest/ scripts/            (entry points: routes, pages, jobs, CLIs)
 *   lib/http lib/door                             (route and action wrappers; the door)
 *   lib/admin dashboard jobs simulator testing    (composers and tools)
 *   lib/reconciliation → lib/payments → lib/tickets → lib/orders
 *   lib/events → lib/inventory waiting-room venues
 *   lib/audit outbox metrics auth health
 *   lib/db redis env errors ids format time-zone … and db/ (schema)
 * Also: no cycles; app/ and components/ never touch drizzle or db/ (the schema) — they call lib/;
 * the door's handler reaches no Node API, no Next.js and no transport (it must run at an edge runtime).
 */
const LAYERS = [
  ["lib/http", "lib/door"],
  ["lib/admin", "lib/dashboard", "lib/jobs", "lib/simulator", "lib/testing"],
  ["lib/reconciliation"],
  ["lib/payments"],
  ["lib/tickets"],
  ["lib/orders"],
  ["lib/events"],
  ["lib/inventory", "lib/waiting-room", "lib/venues"],
  ["lib/audit", "lib/outbox", "lib/metrics", "lib/auth", "lib/health"],
  ["lib/db", "lib/clock", "lib/redis", "lib/redis-core", "lib/redis-tcp", "lib/signing", "lib/redis-keys", "lib/env", "lib/errors", "lib/client-ip", "lib/redirects", "lib/dependency-state", "lib/request-scope", "lib/ids", "lib/format", "lib/time-zone", "db"],
];

/** A path regex for a set of folders or single-file modules (`lib/db` is `lib/db.ts` or `lib/db/…`). */
const paths = (names) => `^(${names.map((n) => n.replace(/[.-]/g, (c) => `\\${c}`)).join("|")})(\\.ts$|\\.tsx$|/)`;

const layerRules = LAYERS.slice(1).map((layer, i) => ({
  name: `layer-${layer[0].replace("lib/", "")}`,
  comment: `${layer.join(", ")} may not import what is above it (${LAYERS.slice(0, i + 1).flat().join(", ")}): imports run one way (docs/architecture.md)`,
  severity: "error",
  // Tests sit beside the code they test and may use any fixture (lib/testing) or layer.
  from: { path: paths(layer), pathNot: "\\.test\\.ts$" },
  to: { path: paths(LAYERS.slice(0, i + 1).flat()) },
}));

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "No import cycles, between folders or inside one.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    ...layerRules,
    ...[
      ["a Node API", "^(node:)?(assert|async_hooks|buffer|child_process|crypto|dns|events|fs|http|https|net|os|path|perf_hooks|stream|tls|url|util|worker_threads|zlib)$"],
      ["Next.js, a database or Redis transport", "^node_modules/(next|ioredis|postgres|drizzle-orm|better-auth)/"],
      ["the process's Redis client, the database or better-auth", "^lib/(db|redis|redis-tcp|auth/session|auth/index)[.]ts$"],
    ].map(([what, path], k) => ({
      name: `door-is-portable-${k + 1}`,
      comment: `lib/door/handler.ts runs on Node and at edge runtimes (docs/adr/0014): nothing it reaches may import ${what} — the deployment passes those in (lib/door/app.ts).`,
      severity: "error",
      from: { path: "^lib/door/handler[.]ts$" },
      to: { reachable: true, path },
    })),
    {
      name: "lib-not-to-entry-points",
      comment: "lib/ is imported by the entry points, never the other way round.",
      severity: "error",
      from: { path: "^(lib|db)/", pathNot: "\\.test\\.ts$" },
      to: { path: "^(app|components|inngest|scripts|e2e)/" },
    },
    {
      name: "ui-not-to-the-database",
      comment: "Routes, pages, actions and components call lib/; they never import drizzle or the schema (db/).",
      severity: "error",
      from: { path: "^(app|components)/" },
      to: { path: "^(db/|node_modules/drizzle-orm/)" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(\\.next[^/]*|node_modules|test-results|playwright-report)/" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
  },
};
