/**
 * The on-sale simulator's crowd: a child process of scripts/onsale.ts (lib/simulator/crowd.ts
 * has the messages and the reasons), started at a lower CPU priority. It creates the run's
 * fans with their sessions (bulk COPY, signed cookies), proves one session cookie is
 * accepted, then lives every fan's life from its arrival (lib/simulator/arrivals.ts) to its
 * turn — join, the first seconds' retries, waiting on the poll wheel through the simulated
 * CDN, /queue/me near the turn — and hands each admitted fan to the parent, which shops.
 * On "sold-out" its waiting fans stop waiting while those still clicking get their first
 * answer from the door; on "stop" it stops its fans, checks the queue's fairness against Redis from the joins it
 * saw, and sends its statistics. Exits with its parent.
 */
import { loadProjectEnv } from "../load-env";
import { exitWithParent } from "./processes";

loadProjectEnv();

const { closeDb, db } = await import("@/lib/db");
const { env } = await import("@/lib/env");
const { closeRedis } = await import("@/lib/redis");
const { arrivalSchedule } = await import("@/lib/simulator/arrivals");
const { FanJars, SimClient } = await import("@/lib/simulator/client");
const { createCrowdSale } = await import("@/lib/simulator/fans");
const { fairnessOf } = await import("@/lib/simulator/fairness");
const { createFanBook } = await import("@/lib/simulator/sessions");
type Msg = import("@/lib/simulator/crowd").CrowdCommand;
type Out = import("@/lib/simulator/crowd").CrowdEvent;
type Setup = import("@/lib/simulator/crowd").CrowdSetup;
type Sale = import("@/lib/simulator/fans").Sale;
type FanBook = import("@/lib/simulator/sessions").FanBook;

const send = (m: Out) => process.send?.(m);
const log = (line: string) => send({ type: "log", line });
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

let setup: Setup;
let book: FanBook;
let client: InstanceType<typeof SimClient>;
let sale: Sale | undefined;
let eventId = "";
let progressTimer: ReturnType<typeof setInterval> | undefined;
const lives: Promise<void>[] = [];
const jars = new FanJars();
const ipOf = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
/** Fan `i`'s session cookies as its requests send them: one string out of the book (lib/simulator/client.ts `SessionCookies`). */
const sessionOf = (i: number) => book.sessionCookies(i);

function progress() {
  return {
    counters: sale!.counters,
    requests: client.requests,
    cdnHits: client.cdnHits,
    errors: [...client.errors.values()].reduce((a, b) => a + b, 0),
    waiting: sale!.waiting,
    arrivedNotLaunched,
    joining: sale!.joining,
    yetToArrive,
    soldOut,
  };
}

async function create(s: Setup): Promise<void> {
  setup = s;
  client = new SimClient(s.baseUrls, s.connections, s.doorShare, s.doorUrl, s.doorConnections);
  client.realCdn = Boolean(s.realCdn);
  log(`creating ${s.fans.toLocaleString("en")} fans with sessions…`);
  // The cookie cache is signed for the run's length (a browser's is refreshed by every page
  // load, which the crowd does not model), so the door reads sessions from the cookie, as it
  // would for fans who opened the page at the on-sale.
  book = await createFanBook(db(), s.fans + (s.probeFan ? 1 : 0), { secret: env().BETTER_AUTH_SECRET, runTag: s.runTag, cookieCacheSeconds: 30 * 60, onProgress: (d) => d % 100_000 === 0 && log(`  ${d.toLocaleString("en")} fans`) });
  // Prove the signed session cookie is accepted, with one request, before the run.
  const r = await client.request<{ user?: { id: string } } | null>("/api/auth/get-session", { session: sessionOf(0), endpoint: "session-proof", headers: { "x-forwarded-for": ipOf(0) } });
  if (r.status !== 200 || r.body?.user?.id !== book.ids[0]) throw new Error(`the signed session cookies were not accepted: ${r.status} ${JSON.stringify(r.body)}`);
  send({ type: "created", firstFanId: book.ids[0]!, probeSession: s.probeFan ? book.sessionRecord(s.fans) : undefined });
}

function start(st: import("@/lib/simulator/crowd").CrowdStart): void {
  eventId = st.eventId;
  sale = createCrowdSale({
    client,
    eventId,
    onSaleAt: st.onSaleAt,
    fanIds: book.ids,
    jars,
    sessionOf,
    ipOf,
    edges: setup.edges,
    pollSeconds: setup.pollSeconds,
    onAdmitted: (i, token) => send({ type: "admitted", i, token, jar: [...jars.get(i)], session: book.sessionRecord(i) }),
  });
  const plan = arrivalSchedule(setup.fans, st);
  // Each fan's life starts when it arrives (walking the arrivals in time order), so a million
  // fans who have not arrived yet cost an array slot each, not a pending timer. While the
  // door's backlog is long, arrived fans wait here, in arrival order, as four bytes each
  // (their click's time is kept: the join counts as sent then), not as a pending request
  // holding its cookies: 600,000 of those filled 4 GB and stalled the crowd in garbage collection.
  const maxBacklog = 4 * setup.doorConnections;
  void (async () => {
    let next = 0;
    while (next < plan.byArrival.length && !stopping) {
      const now = Date.now();
      for (; next < plan.byArrival.length && plan.at[plan.byArrival[next]!]! <= now && sale!.joining < maxBacklog; next++) {
        const i = plan.byArrival[next]!;
        lives.push(sale!.fanLife(i, plan.at[i]!, plan.retries[i]!).catch((e: unknown) => client.countError(`fan crash:${e instanceof Error ? e.message : String(e)}`)));
      }
      await sleep(next < plan.byArrival.length ? Math.min(20, Math.max(1, plan.at[plan.byArrival[next]!]! - now)) : 0);
      const arrived = next < plan.byArrival.length ? lowerBound(plan, Date.now()) : plan.byArrival.length;
      arrivedNotLaunched = arrived - next;
      yetToArrive = plan.byArrival.length - arrived;
    }
  })();
  progressTimer = setInterval(() => send({ type: "progress", progress: progress() }), 1_000);
}

let stopping = false;
let soldOut = false;
/** Fans who have arrived but whose join waits for the door's backlog to shorten (for the progress line). */
let arrivedNotLaunched = 0;
/** Fans whose arrival has not come yet. */
let yetToArrive = 0;
/** How many fans of `plan` have arrived by `t` (epoch ms): binary search over the arrival order. */
function lowerBound(plan: { at: Float64Array; byArrival: Int32Array }, t: number): number {
  let lo = 0;
  let hi = plan.byArrival.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (plan.at[plan.byArrival[mid]!]! <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
async function stop(): Promise<void> {
  stopping = true;
  const unanswered = { arrivedNotLaunched, joining: sale?.joining ?? 0 }; // as the sale stops: fans the door never answered
  clearInterval(keepAlive);
  if (progressTimer) clearInterval(progressTimer);
  sale?.stop();
  await Promise.race([Promise.all(lives), sleep(10_000)]); // requests still in flight after that are abandoned, as by fans closing the page
  const fairness = await fairnessOf(eventId, sale?.preJoins ?? [], sale?.laterJoins ?? []);
  // Sent in full before leaving: a million fans' latencies are tens of megabytes on the channel.
  await new Promise<void>((resolve) => process.send!({ type: "result", progress: { ...progress(), ...unanswered }, stats: [...client.stats], errors: [...client.errors], fairness } satisfies Out, () => resolve()));
  client.close();
  await closeDb();
  await closeRedis();
  process.exit(0);
}

process.on("message", (m: Msg) => {
  const fail = (e: unknown) => {
    send({ type: "failed", error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
    setTimeout(() => process.exit(1), 500);
  };
  try {
    if (m.type === "create") void create(m.setup).catch(fail);
    else if (m.type === "start") start(m.start);
    else if (m.type === "dependency-down") client.setDependencyDown(m.down);
    else if (m.type === "sold-out") {
      soldOut = true;
      sale?.soldOut();
    }
    else if (m.type === "stop") void stop().catch(fail);
  } catch (e) {
    fail(e);
  }
});
exitWithParent(() => process.exit(0));
// The IPC channel does not keep a child alive (exitWithParent unrefs it): between the parent's
// commands (while it creates the show) nothing else might, so this does until "stop".
const keepAlive = setInterval(() => {}, 60_000);
