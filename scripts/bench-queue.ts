/**
 * `npm run bench:queue`: requests per second at the door, in one run, on this machine:
 *  - references: a bare Node HTTP server answering a constant (the load generator's own
 *    ceiling here) and the app's minimal Next route (GET /api/ping);
 *  - the waiting room's routes served by Next (the door handler inside the app: status GET, join POST);
 *  - the same routes served by the standalone door (scripts/door.ts): status, join (one Redis
 *    call each), and join retried with the fan's queue ticket (no Redis call while the fan waits).
 * Rounds are interleaved; medians reported, ratios against the minimal Next route of the same run.
 * Beside req/s, each scenario reports the serving process's CPU per request (µs: its user + system
 * time over the run, from /proc, divided by the requests answered). It moves far less than req/s
 * when other work shares the machine, so it is the one to compare across changes (still: compare
 * runs made close together, before and after alternately).
 *
 * Flags: --seconds N (per run, default 8), --rounds N (default 3), --connections N (default 50), --fans N (20000),
 * --only TEXT (run only the scenarios whose name contains TEXT, e.g. "door:").
 */
import { spawn } from "node:child_process";
import { cpus } from "node:os";
import { loadProjectEnv } from "./load-env";
import { load, median, processCpuSeconds, startBenchServer, type RunResult } from "./lib/bench-server";

loadProjectEnv();
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const seconds = arg("seconds", 8);
const rounds = arg("rounds", 3);
const connections = arg("connections", 50);
const FANS = arg("fans", 20_000);
const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1]! : "";
const log = (s: string) => console.log(`[bench:queue] ${s}`);
/** The reference every ratio is against (always run). */
const MINIMAL = "Next minimal route GET /api/ping";

/** A bare node:http server answering a constant JSON body: what this machine and load generator can do at best. */
function startBareNode(port: number): { url: string; pid: number; stop(): void } {
  const child = spawn(process.execPath, ["-e", `require("node:http").createServer((q, s) => { s.writeHead(200, { "content-type": "application/json" }); s.end('{"ok":true}'); }).listen(${port}, "127.0.0.1")`], { stdio: "ignore" });
  return { url: `http://127.0.0.1:${port}`, pid: child.pid!, stop: () => child.kill() };
}

const server = await startBenchServer(3210, log, { doorPort: 3211 });
const bare = startBareNode(3212);
try {
  const { closeDb, db } = await import("@/lib/db");
  const { env } = await import("@/lib/env");
  const { createFansWithSessions } = await import("@/lib/simulator/sessions");
  const html = await (await fetch(`${server.url}/events/studio-session`)).text();
  const eventId = /evt_[0-9a-z]+/.exec(html)![0];

  // Fans with sessions, straight in the database (signed cookies as a browser holds them after signing in).
  log(`creating ${FANS.toLocaleString("en")} fan sessions…`);
  const fans = await createFansWithSessions(db(), FANS, { secret: env().BETTER_AUTH_SECRET, runTag: Date.now().toString(36) });
  await closeDb();
  const cookies = fans.map((f) => `better-auth.session_token=${f.sessionCookie}; better-auth.session_data=${f.sessionDataCookie}`);

  let n = 0;
  const ip = () => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n++ & 255}`;
  const origin = server.url;
  // One join per fan through the door, to collect each fan's queue ticket for the "retried" scenario.
  log("joining once per fan through the door (queue tickets for the retry scenario)…");
  const ticketed: string[] = [];
  for (let i = 0; i < Math.min(FANS, 2_000); i += 50) {
    await Promise.all(
      cookies.slice(i, i + 50).map(async (c) => {
        const r = await fetch(`${server.doorUrl}/api/events/${eventId}/queue`, { method: "POST", headers: { cookie: c, origin, "x-forwarded-for": ip() } });
        const ticket = r.headers.getSetCookie().find((s) => s.startsWith("sa_queue_"))?.split(";")[0];
        if (!r.ok || !ticket) throw new Error(`door join failed: ${r.status} ${await r.text()}`);
        ticketed.push(`${c}; ${ticket}`);
      }),
    );
  }

  const status = (base: string) => () => load({ url: `${base}/api/events/${eventId}/queue`, seconds, connections, setupRequest: (r) => ({ ...r, headers: { ...r.headers, "x-forwarded-for": ip() } }) });
  const join = (base: string, jar: string[]) => () =>
    load({
      url: `${base}/api/events/${eventId}/queue`,
      method: "POST",
      seconds,
      connections,
      setupRequest: (r) => ({ ...r, method: "POST", headers: { ...r.headers, cookie: jar[n % jar.length]!, origin, "x-forwarded-for": ip() } }),
    });
  const { server: serverPid, door: doorPid } = server.pids;
  // Each scenario with the process that serves it (whose CPU is charged to its requests).
  const scenarios: Record<string, { pid: number; run: () => Promise<RunResult> }> = {
    "bare Node (constant answer)": { pid: bare.pid, run: () => load({ url: bare.url, seconds, connections }) },
    [MINIMAL]: { pid: serverPid, run: () => load({ url: `${server.url}/api/ping`, seconds, connections }) },
    "Next: queue status GET": { pid: serverPid, run: status(server.url) },
    "Next: queue join POST": { pid: serverPid, run: join(server.url, cookies) },
    "door: queue status GET": { pid: doorPid!, run: status(server.doorUrl!) },
    "door: queue join POST (Redis)": { pid: doorPid!, run: join(server.doorUrl!, cookies) },
    "door: join retried with ticket": { pid: doorPid!, run: join(server.doorUrl!, ticketed) },
  };
  const chosen = Object.entries(scenarios).filter(([name]) => name.includes(only) || name === MINIMAL);
  const results: Record<string, (RunResult & { cpuUs: number })[]> = Object.fromEntries(chosen.map(([k]) => [k, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const [name, { pid, run }] of chosen) {
      log(`round ${round}/${rounds}: ${name} (${seconds} s, ${connections} connections)…`);
      const cpuBefore = processCpuSeconds(pid);
      const r = await run();
      const cpuUs = ((processCpuSeconds(pid) - cpuBefore) * 1e6) / Math.max(1, r.requests);
      results[name]!.push({ ...r, cpuUs });
      log(`  ${Math.round(r.rps)} req/s, server CPU ${cpuUs.toFixed(0)} µs/request, p50 ${r.p50} ms, p99 ${r.p99} ms, non-2xx ${r.non2xx}, errors ${r.errors}`);
    }
  }

  const rps = (name: string) => median(results[name]!.map((r) => r.rps));
  const minimal = rps(MINIMAL);
  console.log(`\nMachine: ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, Node ${process.version}; one Next.js process, one door process, load generator (autocannon, one thread) on the same machine.`);
  console.log(`Medians of ${rounds} interleaved ${seconds}-s runs, ${connections} connections:\n`);
  console.log("| route | req/s (median) | vs Next minimal | server CPU µs/request (median) | p50 ms | p99 ms | non-2xx |");
  console.log("|---|---|---|---|---|---|---|");
  for (const [name, rs] of Object.entries(results)) {
    console.log(`| ${name} | ${Math.round(rps(name))} | ${(rps(name) / minimal).toFixed(2)} | ${Math.round(median(rs.map((r) => r.cpuUs)))} | ${median(rs.map((r) => r.p50))} | ${median(rs.map((r) => r.p99))} | ${rs.reduce((a, r) => a + r.non2xx, 0)} |`);
  }
  if (chosen.length === Object.keys(scenarios).length) {
    const doorJoin = rps("door: queue join POST (Redis)");
    const doorStatus = rps("door: queue status GET");
    console.log(`\nDoor join ${(doorJoin / minimal).toFixed(1)}× the Next minimal route (bar ≥ 5×, target 10×); door status ${(doorStatus / minimal).toFixed(1)}× (target 10×).`);
    console.log(`60,000 req/s at the door, all reaching the origin: ${Math.ceil(60_000 / doorJoin)} door processes for joins (${Math.ceil(60_000 / rps("Next: queue join POST"))} Next instances), at this machine's per-process rate.`);
  }
} finally {
  bare.stop();
  await server.stop();
}
