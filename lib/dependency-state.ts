/**
 * Which dependency this process has recently seen fail (docs/design.md "Edges"), so the HTTP
 * server can answer a request stuck on a dead dependency with a 503 after a couple of seconds
 * instead of letting it hang (scripts/serve.ts). Fed by the outage errors themselves
 * (lib/errors.ts `postgresUnavailable` and `RedisUnavailableError`, except those raised with
 * `knownTrouble`: the server's own deadline 503 and a query past the troubled deadline, which
 * follow from trouble already known and must not renew it) and by the
 * server's once-a-second probe of both; a dependency counts as troubled for
 * {@link TROUBLED_FOR_MS} after its last failure. Kept on `globalThis` (registered symbol) so
 * the server's module copy and Next's bundles share it.
 */

export type Dependency = "postgres" | "redis";

/** How long after its last failure a dependency counts as troubled (ms). */
export const TROUBLED_FOR_MS = 5_000;

const KEY = Symbol.for("stararena.dependencyState");
type Holder = { [KEY]?: Record<Dependency, number> };

function state(): Record<Dependency, number> {
  const g = globalThis as Holder;
  g[KEY] ??= { postgres: 0, redis: 0 };
  return g[KEY];
}

/** Records that `dependency` failed at `now` (epoch ms). */
export function noteDependencyFailure(dependency: Dependency, now = Date.now()): void {
  state()[dependency] = now;
}

/** The dependency that failed within the last {@link TROUBLED_FOR_MS}, most recent first, or null. */
export function troubledDependency(now = Date.now()): Dependency | null {
  const s = state();
  const recent = (Object.entries(s) as [Dependency, number][]).filter(([, at]) => now - at < TROUBLED_FOR_MS).sort((a, b) => b[1] - a[1]);
  return recent[0]?.[0] ?? null;
}
