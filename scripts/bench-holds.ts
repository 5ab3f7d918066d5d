/**
 * `npm run bench:holds`: the hold path's raw speed against references measured in the
 * same run (docs/design.md targets):
 *   A. a trivial EVALSHA (`return 1`) through the app's Redis client — the ceiling;
 *   B. the hold Lua (explicit one-seat holds on distinct seats of the 20,000-seat arena);
 *   C. a Postgres hot-row hold (`UPDATE … SET remaining = remaining - 1 WHERE remaining > 0`).
 * Targets: B ≥ 50 % of A; B ≥ 10 × C under the same concurrency. Medians of interleaved rounds.
 * Flags: --ops N (per run, default 20000), --concurrency N (default 50), --rounds N (default 3).
 */
import { cpus } from "node:os";
import postgres from "postgres";
import { loadProjectEnv } from "./load-env";
import { median } from "./lib/bench-server";
import { deleteKeys } from "@/lib/redis-keys";
import { dropDatabase, ensureDatabase, runMigrations } from "@/lib/migrations";
import { closeDb, db } from "@/lib/db";
import { createEvent } from "@/lib/events/create";
import { newId } from "@/lib/ids";
import { holdInRedis } from "@/lib/inventory/hold";
import { rebuildInventory } from "@/lib/inventory/rebuild";
import { closeRedis, luaScript } from "@/lib/redis";
import { ensureUser } from "@/lib/auth/users";
import { arenaPlan } from "@/lib/venues/plan";
import { createVenue } from "@/lib/venues/store";

loadProjectEnv();
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const OPS = arg("ops", 20_000);
const CONCURRENCY = arg("concurrency", 50);
const ROUNDS = arg("rounds", 3);
const log = (s: string) => console.log(`[bench:holds] ${s}`);

const base = new URL(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/stararena");
base.pathname = "/stararena_bench_holds";
process.env.DATABASE_URL = base.toString();
process.env.REDIS_KEY_PREFIX = "benchholds:";

/** Runs `op(i)` for i in [0, n) with `concurrency` in flight; returns operations per second. */
async function run(n: number, concurrency: number, op: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await op(next++);
    }),
  );
  return n / ((performance.now() - started) / 1000);
}

log("preparing stararena_bench_holds: a 20,000-seat arena show…");
await dropDatabase(process.env.DATABASE_URL);
await ensureDatabase(process.env.DATABASE_URL);
await runMigrations(process.env.DATABASE_URL);
const organizerId = await ensureUser(db(), { email: "bench@bench.test", password: "bench-password", name: "Bench", role: "organizer" });
const { venueId } = await createVenue(db(), { slug: "bench-arena", name: "Bench Arena", city: "Berlin", timeZone: "Europe/Berlin" }, arenaPlan());
const seatsPerRun = 20_000;
const pg = postgres(process.env.DATABASE_URL, { max: CONCURRENCY, onnotice: () => {} });
await pg`create table if not exists bench_hot_row (id int primary key, remaining int not null)`;

const results = { trivial: [] as number[], hold: [] as number[], pgHot: [] as number[] };
for (let round = 1; round <= ROUNDS; round++) {
  // A fresh show per round so every hold claims a free seat.
  const { eventId } = await createEvent(db(), {
    venueId,
    organizerId,
    name: `Bench round ${round}`,
    slug: `bench-${round}-${Date.now()}`,
    startsAt: new Date(Date.now() + 86_400_000),
    onSaleAt: new Date(),
    timeZone: "Europe/Berlin",
    perFanLimit: 50,
    priceLevels: [{ name: "All", priceMinor: 1_000, currency: "EUR", color: "#111111", seats: [{}] }],
  });
  await rebuildInventory(db(), eventId);
  const trivial = luaScript<number>("return 1");
  await trivial.exec([], []);
  const ops = Math.min(OPS, seatsPerRun);

  log(`round ${round}/${ROUNDS}: trivial EVALSHA ×${ops}…`);
  results.trivial.push(await run(ops, CONCURRENCY, () => trivial.exec([], [])));

  log(`round ${round}/${ROUNDS}: hold Lua ×${ops} (one seat each, distinct seats, 1,000 fans)…`);
  const expiresAt = new Date(Date.now() + 15 * 60_000);
  results.hold.push(
    await run(ops, CONCURRENCY, (i) =>
      holdInRedis({ eventId, holdId: newId("hld"), fanId: `usr_bench${i % 1_000}`, expiresAt, perFanLimit: 50, request: { kind: "seats", ordinals: [i] } }),
    ),
  );

  log(`round ${round}/${ROUNDS}: Postgres hot-row hold ×${ops}…`);
  await pg`insert into bench_hot_row (id, remaining) values (1, ${ops}) on conflict (id) do update set remaining = excluded.remaining`;
  results.pgHot.push(await run(ops, CONCURRENCY, () => pg`update bench_hot_row set remaining = remaining - 1 where id = 1 and remaining > 0`));
  log(`  trivial ${Math.round(results.trivial.at(-1)!)}/s, hold ${Math.round(results.hold.at(-1)!)}/s, Postgres hot row ${Math.round(results.pgHot.at(-1)!)}/s`);
}

const t = median(results.trivial);
const h = median(results.hold);
const p = median(results.pgHot);
console.log(`\nMachine: ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, Node ${process.version}; Redis and Postgres on the same host.`);
console.log(`Medians of ${ROUNDS} interleaved rounds, ${Math.min(OPS, seatsPerRun)} operations each, ${CONCURRENCY} in flight:\n`);
console.log("| operation | ops/s (median) | ratio | target |");
console.log("|---|---|---|---|");
console.log(`| trivial EVALSHA (\`return 1\`) | ${Math.round(t)} | 1.00 | reference |`);
console.log(`| hold Lua, one seat | ${Math.round(h)} | ${(h / t).toFixed(2)} of trivial | ≥ 0.50 |`);
console.log(`| Postgres hot-row hold | ${Math.round(p)} | hold Lua is ${(h / p).toFixed(1)}× | ≥ 10× |`);

await pg`drop table if exists bench_hot_row`;
await pg.end();
await closeDb();
await closeRedis();
await dropDatabase(process.env.DATABASE_URL);
await deleteKeys(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "benchholds:*");
