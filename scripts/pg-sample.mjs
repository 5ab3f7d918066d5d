/**
 * What Postgres's busy backends are doing during an on-sale, sampled: every 10 ms it reads
 * `pg_stat_activity` of the database `stararena_onsale` (the on-sale simulation's) and counts each
 * active backend's statement (placeholders folded) with its wait event ("CPU:" when none), a
 * wall-clock profile of Postgres without pg_stat_statements (not loaded on these machines).
 * Usage, beside `npm run onsale …`: `node scripts/pg-sample.mjs [seconds=600] [out.json]`.
 * Writes `{ samples, busy, rows: [["wait | statement", count], …] }` (top 80) every 10 s and at the end.
 */
import postgres from "postgres";
const sql = postgres("postgres://postgres@127.0.0.1:5432/postgres", { max: 1 });
const counts = new Map(); let samples = 0; let busy = 0;
const end = Date.now() + Number(process.argv[2] ?? 600) * 1000;
const out = process.argv[3] ?? "/tmp/notes/pgsample.json";
const norm = (q) => q.replace(/\$\d+(, \$\d+)*/g, "$N").replace(/\s+/g, " ").slice(0, 220);
async function dump() {
  const rows = [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, 80);
  (await import("node:fs")).writeFileSync(out, JSON.stringify({ samples, busy, rows }, null, 1));
}
let last = Date.now();
while (Date.now() < end) {
  const rows = await sql`select query, wait_event_type, wait_event from pg_stat_activity where datname = 'stararena_onsale' and state = 'active' and pid <> pg_backend_pid()`.catch(() => []);
  samples++;
  for (const r of rows) { busy++; const k = `${r.wait_event_type ?? "CPU"}:${r.wait_event ?? ""} | ${norm(r.query)}`; counts.set(k, (counts.get(k) ?? 0) + 1); }
  if (Date.now() - last > 10000) { last = Date.now(); await dump(); }
  await new Promise((r) => setTimeout(r, 10));
}
await dump(); await sql.end();
