/**
 * `npm run bench:holds`: the hold path's raw speed against references measured in the
 * same run (docs/design.md targets), on the same 20,000-seat show and concurrency:
 *   A. a trivial EVALSHA (`return 1`) through the app's Redis client — the ceiling;
 *   B. the hold Lua (explicit one-seat holds on distinct seats of the 20,000-seat arena), and
 *      best-available holds of 2 seats together on a second copy of the show, until half its seats
 *      are held (what most fans ask for; the front rows fill first, so later holds search further);
 *   C. a Postgres hot-row hold (`UPDATE … SET remaining = remaining - 1 WHERE remaining > 0`);
 *   D. the open-source peers' hold strategies as their code documents them (scripts/lib/peer-holds.ts):
 *      pretix (sorted advisory locks, recount), alf.io (FOR UPDATE SKIP LOCKED), Hi.Events (event lock, recount).
 * Targets: B ≥ 50 % of A; B ≥ 10 × C. Each row: ops/s, p50/p99 per operation, and whether any
 * seat was held twice. Medians of interleaved rounds.
 * Flags: --ops N (per run, default 20000), --peer-ops N (per peer run, default 5000),
 * --concurrency N (default 50), --rounds N (default 3).
 */
import { cpus } from "node:os";
import { eq } from "drizzle-orm";
import postgres from "postgres";
import { priceLevels } from "@/db/schema";
import { loadProjectEnv } from "./load-env";
import { median } from "./lib/bench-server";
import { alfioHold, doubleHeld, hiEventsHold, preparePeerTables, pretixHold, resetPeerTables, type PeerHold } from "./lib/peer-holds";
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
const PEER_OPS = arg("peer-ops", 5_000);
const CONCURRENCY = arg("concurrency", 50);
const ROUNDS = arg("rounds", 3);
const log = (s: string) => console.log(`[bench:holds] ${s}`);

const base = new URL(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/stararena");
base.pathname = "/stararena_bench_holds";
process.env.DATABASE_URL = base.toString();
process.env.REDIS_KEY_PREFIX = "benchholds:";

/** One run's figures: operations per second and per-operation latency percentiles (ms). */
interface Run {
  opsPerSecond: number;
  p50: number;
  p99: number;
}

/** Runs `op(i)` for i in [0, n) with `concurrency` in flight; returns ops/s and latency percentiles. */
async function run(n: number, concurrency: number, op: (i: number) => Promise<unknown>): Promise<Run> {
  let next = 0;
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const t = performance.now();
        await op(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)]!;
  return { opsPerSecond: n / seconds, p50: at(0.5), p99: at(0.99) };
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

await preparePeerTables(pg, seatsPerRun);
const PEERS: [string, string, PeerHold][] = [
  ["pretix: sorted advisory locks (quota, seat), recount, write", "pretix", pretixHold],
  ["alf.io: FOR UPDATE SKIP LOCKED on pre-created seat rows", "alfio", alfioHold],
  ["Hi.Events: advisory lock per event, recount, insert", "hi.events", hiEventsHold],
];
const results: Record<string, Run[]> = { trivial: [], hold: [], best: [], pgHot: [], ...Object.fromEntries(PEERS.map(([, key]) => [key, []])) };
const twice: Record<string, number> = { hold: 0, best: 0, ...Object.fromEntries(PEERS.map(([, key]) => [key, 0])) };
const fmt = (r: Run) => `${Math.round(r.opsPerSecond)}/s (p99 ${r.p99.toFixed(1)} ms)`;
for (let round = 1; round <= ROUNDS; round++) {
  // A fresh show per round (and one for best-available) so every hold claims a free seat.
  const show = async (kind: string) => {
    const { eventId } = await createEvent(db(), {
      venueId,
      organizerId,
      name: `Bench round ${round} ${kind}`,
      slug: `bench-${round}-${kind}-${Date.now()}`,
      startsAt: new Date(Date.now() + 86_400_000),
      onSaleAt: new Date(),
      timeZone: "Europe/Berlin",
      perFanLimit: 50,
      priceLevels: [{ name: "All", priceMinor: 1_000, currency: "EUR", color: "#111111", seats: [{}] }],
    });
    await rebuildInventory(db(), eventId);
    const [level] = await db().select({ id: priceLevels.id }).from(priceLevels).where(eq(priceLevels.eventId, eventId));
    return { eventId, priceLevelId: level!.id };
  };
  const { eventId } = await show("seats");
  const best = await show("best");
  const trivial = luaScript<number>("return 1");
  await trivial.exec([], []);
  const ops = Math.min(OPS, seatsPerRun);

  log(`round ${round}/${ROUNDS}: trivial EVALSHA ×${ops}…`);
  results.trivial!.push(await run(ops, CONCURRENCY, () => trivial.exec([], [])));

  log(`round ${round}/${ROUNDS}: hold Lua ×${ops} (one seat each, distinct seats, 1,000 fans)…`);
  const expiresAt = new Date(Date.now() + 15 * 60_000);
  const heldSeats: number[] = [];
  results.hold!.push(
    await run(ops, CONCURRENCY, async (i) =>
      heldSeats.push(...(await holdInRedis({ eventId, holdId: newId("hld"), fanId: `usr_bench${i % 1_000}`, expiresAt, perFanLimit: 50, request: { kind: "seats", ordinals: [i] } }))),
    ),
  );
  twice.hold! += heldSeats.length - new Set(heldSeats).size;

  // Half the show: 2-seat parties leave single seats behind, and a full show refuses the last ones.
  log(`round ${round}/${ROUNDS}: best-available hold Lua ×${ops / 4} (2 seats together each, 1,000 fans, to half the show)…`);
  const bestSeats: number[] = [];
  results.best!.push(
    await run(ops / 4, CONCURRENCY, async (i) =>
      bestSeats.push(...(await holdInRedis({ eventId: best.eventId, holdId: newId("hld"), fanId: `usr_bench${i % 1_000}`, expiresAt, perFanLimit: 50, request: { kind: "best", priceLevelId: best.priceLevelId, quantity: 2 } }))),
    ),
  );
  twice.best! += bestSeats.length - new Set(bestSeats).size;

  log(`round ${round}/${ROUNDS}: Postgres hot-row hold ×${ops}…`);
  await pg`insert into bench_hot_row (id, remaining) values (1, ${ops}) on conflict (id) do update set remaining = excluded.remaining`;
  results.pgHot!.push(await run(ops, CONCURRENCY, () => pg`update bench_hot_row set remaining = remaining - 1 where id = 1 and remaining > 0`));

  const peerOps = Math.min(PEER_OPS, seatsPerRun);
  for (const [name, key, hold] of PEERS) {
    log(`round ${round}/${ROUNDS}: ${name} ×${peerOps}…`);
    await resetPeerTables(pg, seatsPerRun);
    results[key]!.push(await run(peerOps, CONCURRENCY, (i) => hold(pg, i)));
    twice[key]! += await doubleHeld(pg, key);
  }
  log(`  trivial ${fmt(results.trivial!.at(-1)!)}, hold ${fmt(results.hold!.at(-1)!)}, best-available ${fmt(results.best!.at(-1)!)}, Postgres hot row ${fmt(results.pgHot!.at(-1)!)}, ${PEERS.map(([, key]) => `${key} ${fmt(results[key]!.at(-1)!)}`).join(", ")}`);
}

const m = (key: string, f: (r: Run) => number) => median(results[key]!.map(f));
const t = m("trivial", (r) => r.opsPerSecond);
const h = m("hold", (r) => r.opsPerSecond);
const p = m("pgHot", (r) => r.opsPerSecond);
console.log(`\nMachine: ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, Node ${process.version}; Redis and Postgres on the same host.`);
console.log(`Medians of ${ROUNDS} interleaved rounds, ${CONCURRENCY} in flight; ${Math.min(OPS, seatsPerRun).toLocaleString("en")} operations per run (peers: ${Math.min(PEER_OPS, seatsPerRun).toLocaleString("en")}), a ${seatsPerRun.toLocaleString("en")}-seat show:\n`);
console.log("| operation | ops/s (median) | p50 ms | p99 ms | seats held twice | vs StarArena's hold | target |");
console.log("|---|---|---|---|---|---|---|");
const row = (label: string, key: string, extra: string, target: string, held: string) =>
  console.log(`| ${label} | ${Math.round(m(key, (r) => r.opsPerSecond))} | ${m(key, (r) => r.p50).toFixed(1)} | ${m(key, (r) => r.p99).toFixed(1)} | ${held} | ${extra} | ${target} |`);
row("trivial EVALSHA (`return 1`)", "trivial", "ceiling: hold is " + (h / t).toFixed(2) + " of it", "hold ≥ 0.50 of it", "–");
row("**StarArena: hold Lua, one seat**", "hold", "1.00", "", String(twice.hold));
row("StarArena: best-available hold Lua, 2 seats together", "best", `${(m("best", (r) => r.opsPerSecond) / h).toFixed(2)} (seats/s ×2)`, "", String(twice.best));
row("Postgres hot-row hold", "pgHot", `hold is ${(h / p).toFixed(1)}×`, "hold ≥ 10×", "–");
for (const [name, key] of PEERS) row(name, key, `hold is ${(h / m(key, (r) => r.opsPerSecond)).toFixed(1)}×`, "", String(twice[key]));

await pg`drop table if exists bench_hot_row`;
await pg.end();
await closeDb();
await closeRedis();
await dropDatabase(process.env.DATABASE_URL);
await deleteKeys(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "benchholds:*");
