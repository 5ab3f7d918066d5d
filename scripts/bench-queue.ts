/**
 * `npm run bench:queue`: requests per second through the real waiting-room routes
 * (public status GET, join POST) next to the app's minimal route (/api/ping) in the
 * same run, on this machine, and the instance count that 60,000 req/s at the door
 * (docs/design.md's reference case) would need. Rounds are interleaved; medians reported.
 *
 * Flags: --seconds N (per run, default 8), --rounds N (default 3), --connections N (default 50).
 */
import { cpus } from "node:os";
import { loadProjectEnv } from "./load-env";
import { load, median, startBenchServer, type RunResult } from "./lib/bench-server";

loadProjectEnv();
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const seconds = arg("seconds", 8);
const rounds = arg("rounds", 3);
const connections = arg("connections", 50);
const log = (s: string) => console.log(`[bench:queue] ${s}`);

const server = await startBenchServer(3210, log);
try {
  const html = await (await fetch(`${server.url}/events/studio-session`)).text();
  const eventId = /evt_[0-9a-z]+/.exec(html)![0];

  // Fans with sessions: sign-ups from distinct (forwarded) addresses, as a CDN would pass them on.
  const FANS = 200;
  log(`creating ${FANS} fan sessions…`);
  const cookies: string[] = [];
  for (let i = 0; i < FANS; i++) {
    const res = await fetch(`${server.url}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": `10.9.${i >> 8}.${i & 255}`, origin: server.url },
      body: JSON.stringify({ email: `bench-${i}-${Date.now()}@bench.test`, password: "bench-password-1", name: `Bench ${i}` }),
    });
    const setCookie = res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    if (!res.ok || !setCookie) throw new Error(`sign-up failed: ${res.status} ${await res.text()}`);
    cookies.push(setCookie);
    if ((i + 1) % 50 === 0) log(`  ${i + 1}/${FANS}`);
  }

  let n = 0;
  const ip = () => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n++ & 255}`;
  const scenarios: Record<string, () => Promise<RunResult>> = {
    "minimal route  GET /api/ping": () => load({ url: `${server.url}/api/ping`, seconds, connections }),
    "queue status   GET /api/events/:id/queue": () =>
      load({ url: `${server.url}/api/events/${eventId}/queue`, seconds, connections, setupRequest: (r) => ({ ...r, headers: { ...r.headers, "x-forwarded-for": ip() } }) }),
    "queue join     POST /api/events/:id/queue": () =>
      load({
        url: `${server.url}/api/events/${eventId}/queue`,
        method: "POST",
        seconds,
        connections,
        setupRequest: (r) => ({ ...r, method: "POST", headers: { ...r.headers, cookie: cookies[n % FANS]!, "x-forwarded-for": ip() } }),
      }),
  };
  const results: Record<string, RunResult[]> = Object.fromEntries(Object.keys(scenarios).map((k) => [k, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const [name, run] of Object.entries(scenarios)) {
      log(`round ${round}/${rounds}: ${name} (${seconds} s, ${connections} connections)…`);
      const r = await run();
      results[name]!.push(r);
      log(`  ${Math.round(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, non-2xx ${r.non2xx}, errors ${r.errors}`);
    }
  }

  const minimal = median(results["minimal route  GET /api/ping"]!.map((r) => r.rps));
  console.log(`\nMachine: ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, Node ${process.version}; one Next.js process, load generator on the same machine.`);
  console.log(`Medians of ${rounds} interleaved ${seconds}-s runs, ${connections} connections:\n`);
  console.log("| route | req/s (median) | vs minimal | p50 ms | p99 ms | non-2xx |");
  console.log("|---|---|---|---|---|---|");
  for (const [name, rs] of Object.entries(results)) {
    const rps = median(rs.map((r) => r.rps));
    console.log(
      `| ${name.replace(/\s+/g, " ")} | ${Math.round(rps)} | ${(rps / minimal).toFixed(2)} | ${median(rs.map((r) => r.p50))} | ${median(rs.map((r) => r.p99))} | ${rs.reduce((a, r) => a + r.non2xx, 0)} |`,
    );
  }
  const status = median(results["queue status   GET /api/events/:id/queue"]!.map((r) => r.rps));
  const join = median(results["queue join     POST /api/events/:id/queue"]!.map((r) => r.rps));
  console.log(`\n60,000 req/s at the door, all reaching the origin: ${Math.ceil(60_000 / status)} instances for status, ${Math.ceil(60_000 / join)} for joins (at this machine's per-instance rate).`);
  console.log(`With status cached by a CDN for 1 s (Cache-Control s-maxage=1), the origin sees about one status request per event per second per edge location.`);
} finally {
  await server.stop();
}
