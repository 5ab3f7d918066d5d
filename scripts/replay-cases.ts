/**
 * `npm run replay:cases`: the seven money-and-seat cases of docs/adr/0010–0012, replayed
 * over HTTP against a running StarArena (`npm start`; default APP_URL from its env), the way
 * a tester found them: fans sign up (and open the mailed confirmation link), queue, hold, pay
 * at the sandbox PSP with its fault knobs, forge webhooks, give seats back, leave the queue. The show (1-minute holds, 4 seats
 * per fan) is created in the app's database; checks read the app's answers, the database and
 * the sandbox PSP's own records, and end with one reconciliation pass (what `npm run
 * reconcile` runs) and the invariant checker, PSP ledger included. Prints one line per case
 * and exits 1 when any case ends wrong. Takes about two minutes (holds must run out).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { loadProjectEnv } from "./load-env";

loadProjectEnv();
const { and, eq, sql } = await import("drizzle-orm");
const { discrepancies, emails, orders, tickets, user } = await import("@/db/schema");
const { closeDb, db } = await import("@/lib/db");
const { env, EnvError, parseEnv } = await import("@/lib/env");
const { createEvent } = await import("@/lib/events/create");
const { inventoryKeys } = await import("@/lib/inventory/keys");
const psp = await import("@/lib/payments/sandbox/psp");
const { checkInvariants, totalViolations } = await import("@/lib/reconciliation/invariants");
const { reconcile } = await import("@/lib/reconciliation/reconcile");
const { closeRedis, redis } = await import("@/lib/redis");
const { SimClient } = await import("@/lib/simulator/client");
const { findVenueBySlug } = await import("@/lib/venues/store");
const { admissionCookieName } = await import("@/lib/waiting-room/token");

const app = env().APP_URL.replace(/\/+$/, "");
const client = new SimClient(app, 32, 0.5);
const log = (s: string) => console.log(`[replay ${new Date().toISOString().slice(11, 19)}] ${s}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

if (!(await fetch(`${app}/api/health`).then((r) => r.ok, () => false))) {
  console.error(`✗ StarArena does not answer at ${app}: start it first (npm start).`);
  process.exit(2);
}

// ---------- the show: 1-minute holds, 4 seats per fan, fans admitted at once ----------
const venue = await findVenueBySlug(db(), "the-studio");
const organizer = await db().query.user.findFirst({ where: eq(user.email, "organizer@stararena.test") });
if (!venue || !organizer) throw new Error("the demo data is missing (the-studio, organizer@stararena.test): run npm start once first");
const tag = Date.now().toString(36);
const { eventId } = await createEvent(db(), {
  venueId: venue.id,
  organizerId: organizer.id,
  name: `Replay ${tag}`,
  slug: `replay-${tag}`,
  status: "published",
  startsAt: new Date(Date.now() + 7 * 86_400_000),
  onSaleAt: new Date(Date.now() - 60_000),
  timeZone: venue.timeZone,
  holdMinutes: 1,
  perFanLimit: 4,
  admissionRatePerMinute: 60_000,
  activeCap: 1_000,
  priceLevels: [{ name: "Standard", priceMinor: 3_000, currency: "EUR", color: "#0d9488", seats: [{}] }],
});
log(`show ${eventId} on ${app}: 1-minute holds, at most 4 seats per fan`);

// ---------- a fan over HTTP ----------
class Fan {
  readonly jar = new Map<string, string>();
  id = "";
  token = "";
  constructor(readonly name: string) {}
  private req<T>(path: string, opts: { method?: "GET" | "POST" | "PUT" | "DELETE"; body?: unknown; headers?: Record<string, string> } = {}) {
    return client.request<T>(path, { ...opts, jar: this.jar, endpoint: path.split("?")[0]!, lane: "shop", headers: { origin: app, ...opts.headers } });
  }
  /** Signs up, then opens the confirmation link the app queued for the address (ADR 0027): the session cookie lands in the jar. */
  async signUp() {
    const email = `replay-${this.name}-${tag}@replay.stararena.test`;
    const r = await this.req("/api/auth/sign-up/email", { method: "POST", body: { email, password: "replay-password-1", name: this.name } });
    if (r.status !== 200) throw new Error(`sign-up of ${this.name}: ${r.status} ${JSON.stringify(r.body)}`);
    const [mail] = await db().select({ payload: emails.payload }).from(emails).where(and(eq(emails.toAddress, email), eq(emails.kind, "email_verification")));
    const link = new URL((mail?.payload as { url?: string } | undefined)?.url ?? "", app);
    const confirmed = await this.req(`${link.pathname}${link.search}`);
    if (confirmed.status !== 302) throw new Error(`confirmation of ${this.name}: ${confirmed.status} ${JSON.stringify(confirmed.body)}`);
    this.id = (await db().query.user.findFirst({ where: eq(user.email, email) }))!.id;
    return this;
  }
  /** Joins (or rejoins) the queue and waits for the turn: the admission token arrives as a cookie. */
  async admitted(rejoin = false) {
    await this.req(`/api/events/${eventId}/queue${rejoin ? "?rejoin=1" : ""}`, { method: "POST" });
    for (let i = 0; i < 50; i++) {
      const r = await this.req<{ state: string; admissionToken: string | null }>(`/api/events/${eventId}/queue/me`);
      if (r.body?.state === "admitted" && r.body.admissionToken) return (this.token = r.body.admissionToken);
      await sleep(100);
    }
    throw new Error(`${this.name} was never admitted`);
  }
  hold(body: unknown, opts: { key?: string; token?: string } = {}) {
    const headers: Record<string, string> = {};
    if (opts.key) headers["idempotency-key"] = opts.key;
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    return this.req<{ orderId: string; code?: string; error?: string }>(`/api/events/${eventId}/holds`, { method: "POST", body, headers });
  }
  async checkout(orderId: string) {
    const r = await this.req<{ url: string }>(`/api/orders/${orderId}/checkout`, { method: "POST" });
    const id = /sbx_cs_[0-9a-z]+/.exec(r.body?.url ?? "")?.[0];
    if (!id) throw new Error(`checkout of ${orderId}: ${r.status} ${JSON.stringify(r.body)}`);
    return id;
  }
  order(orderId: string) {
    return this.req<{ status: string }>(`/api/orders/${orderId}`);
  }
  giveBack(orderId: string) {
    return this.req<{ status?: string }>(`/api/orders/${orderId}`, { method: "DELETE" });
  }
  leave() {
    return this.req(`/api/events/${eventId}/queue/me`, { method: "DELETE" });
  }
}
const faults = (checkoutId: string, knobs: Record<string, unknown>) => client.request(`/sandbox-psp/api/faults?checkout=${checkoutId}`, { method: "PUT", body: knobs, endpoint: "faults", lane: "shop" });
const approve = async (checkoutId: string) => (await client.request<{ outcome: string }>(`/sandbox-psp/api/checkouts/${checkoutId}/approve`, { method: "POST", endpoint: "approve", lane: "shop" })).body?.outcome;
const signed = (body: string, secret: string) => ({ "content-type": "application/json", [psp.SANDBOX_SIGNATURE_HEADER]: psp.signWebhookBody(body, { secret }) });
async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 120_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(1_000);
  }
}
const statusOf = async (orderId: string) => (await db().query.orders.findFirst({ where: eq(orders.id, orderId) }))?.status;
const lateReason = async (orderId: string) =>
  (await db().select({ action: discrepancies.action }).from(discrepancies).where(and(eq(discrepancies.orderId, orderId), eq(discrepancies.kind, "late_payment"))))[0]?.action ?? "(none)";
const validTickets = async (fanId: string) =>
  (await db().select({ id: tickets.id }).from(tickets).innerJoin(orders, eq(tickets.orderId, orders.id)).where(and(eq(orders.fanId, fanId), eq(orders.eventId, eventId), eq(tickets.status, "valid")))).length;
const best = (quantity: number) => ({ kind: "best", priceLevelId: levelId, quantity });
const levelId = (await db().query.priceLevels.findFirst({ where: (pl, { eq: e }) => e(pl.eventId, eventId) }))!.id;

type Verdict = { name: string; ok: boolean; observed: string };
const results: Verdict[] = [];
const check = (name: string, ok: boolean, observed: string) => {
  results.push({ name, ok, observed });
  log(`${ok ? "PASS" : "FAIL"} ${name}: ${observed}`);
};

// ---------- the cases (those that wait for a hold to run out run side by side) ----------
async function case1() {
  const fan = await new Fan("c1").signUp();
  await fan.admitted();
  const order = (await fan.hold(best(2))).body.orderId;
  const checkoutId = await fan.checkout(order);
  await faults(checkoutId, { captureAfterExpiry: true, drop: true });
  await until("case 1's hold to expire", async () => (await fan.order(order)).body?.status === "expired");
  const outcome = await approve(checkoutId);
  await sleep(50);
  const before = await checkInvariants(db(), { eventId, graceMs: 0 });
  // One pass, as `npm run reconcile -- <event>` runs it (the worker's minute pass may come first).
  const r = await reconcile(db(), { eventId, checkBefore: true, graceMs: 0 });
  const status = await statusOf(order);
  const pspStatus = (await psp.retrieve(checkoutId)).status;
  const found = await db().select({ kind: discrepancies.kind }).from(discrepancies).where(and(eq(discrepancies.orderId, order), eq(discrepancies.kind, "capture_found_in_ledger")));
  check(
    "1 money kept, never found",
    outcome === "captured" && found.length === 1 && (status === "ticketed" || pspStatus === "refunded") && totalViolations(r.invariants) === 0,
    `late capture (${outcome}, webhook dropped; "${await lateReason(order)}"): the checker saw pspCapturedWithoutTickets=${before.pspCapturedWithoutTickets} before the pass${before.pspCapturedWithoutTickets === 0 ? " (the worker's pass had just repaired it)" : ""}; after one pass → order ${status}, PSP ${pspStatus}, ${totalViolations(r.invariants)} violations`,
  );
}

async function case2() {
  const fan = await new Fan("c2").signUp();
  await fan.admitted();
  const placed = await fan.hold(best(1));
  const order = placed.body.orderId;
  const checkoutId = await fan.checkout(order);
  const row = (await db().query.orders.findFirst({ where: eq(orders.id, order) }))!;
  const body = JSON.stringify({
    id: `sbx_evt_forged${tag}`,
    object: "event",
    type: "payment.captured",
    created: Math.floor(Date.now() / 1000),
    data: { checkout: { id: checkoutId, object: "checkout", order_id: order, status: "captured", amount_minor: row.totalMinor, currency: row.currency, payment_id: "sbx_pay_madeup00000000000000", captured_at: new Date().toISOString() } },
  });
  const oldDefault = await client.request(`/api/payments/webhooks/sandbox`, { method: "POST", rawBody: body, headers: signed(body, "sandbox-psp-local-webhook-secret"), endpoint: "webhook", lane: "shop" });
  const random = await client.request(`/api/payments/webhooks/sandbox`, { method: "POST", rawBody: body, headers: signed(body, randomBytes(32).toString("hex")), endpoint: "webhook", lane: "shop" });
  // The deployment's own secret (leaked, a replayed test event, a misconfigured proxy): the
  // signature verifies, so the app asks the PSP, whose checkout is still open: nothing is paid.
  const leakedBody = body.replace(`sbx_evt_forged${tag}`, `sbx_evt_leaked${tag}`);
  const leaked = await client.request<{ outcome?: string }>(`/api/payments/webhooks/sandbox`, { method: "POST", rawBody: leakedBody, headers: signed(leakedBody, psp.SANDBOX_WEBHOOK_SECRET()), endpoint: "webhook", lane: "shop" });
  await sleep(500);
  const status = await statusOf(order);
  const issued = await validTickets(fan.id);
  const pspStatus = (await psp.retrieve(checkoutId)).status;
  check(
    "2 tickets without money (forged capture)",
    oldDefault.status === 401 && random.status === 401 && leaked.status === 200 && status === "pending_payment" && issued === 0 && pspStatus === "open",
    `signed with the old built-in secret → ${oldDefault.status}, with a guessed one → ${random.status}, with the deployment's own (leaked) → ${leaked.status} ${leaked.body?.outcome ?? ""}; order ${status}, ${issued} tickets, PSP checkout ${pspStatus}`,
  );
  await fan.giveBack(order);
}

async function case3() {
  let refusal = "started (wrong)";
  try {
    parseEnv({ NODE_ENV: "production", BETTER_AUTH_SECRET: "a".repeat(32), TICKET_SIGNING_SECRET: "t".repeat(32), SANDBOX_PSP_WEBHOOK_SECRET: "w".repeat(32) });
  } catch (e) {
    refusal = e instanceof EnvError ? e.problems.map((p) => `${p.variable}: ${p.message.slice(0, 60)}…`).join("; ") : String(e);
  }
  let secrets = "started (wrong)";
  try {
    parseEnv({ NODE_ENV: "production", PAYMENT_PROVIDER: "sandbox" });
  } catch (e) {
    secrets = e instanceof EnvError ? e.problems.map((p) => p.variable).join(", ") : String(e);
  }
  const provider = env().PAYMENT_PROVIDER;
  check(
    "3 no free tickets in a default deployment",
    refusal.startsWith("PAYMENT_PROVIDER") && secrets.includes("BETTER_AUTH_SECRET") && secrets.includes("SANDBOX_PSP_WEBHOOK_SECRET"),
    `production with no provider refuses (${refusal}); without secrets refuses (${secrets}); this demo runs PAYMENT_PROVIDER=${provider} explicitly (.env.local)`,
  );
}

async function case4() {
  const fan = await new Fan("c4").signUp();
  await fan.admitted();
  const first = (await fan.hold(best(4))).body.orderId;
  const firstCheckout = await fan.checkout(first);
  await faults(firstCheckout, { captureAfterExpiry: true });
  await until("case 4's first hold to expire", async () => (await fan.order(first)).body?.status === "expired");
  await fan.admitted(true); // its turn ended with the hold: queue again
  const second = (await fan.hold(best(4))).body.orderId;
  const secondCheckout = await fan.checkout(second);
  await approve(firstCheckout); // the late payment for the first 4
  await approve(secondCheckout);
  await until("case 4's second order to be ticketed", async () => (await statusOf(second)) === "ticketed", 30_000);
  await until("case 4's late payment to be settled", async () => (await psp.retrieve(firstCheckout)).status === "refunded", 30_000).catch(() => null);
  const n = await validTickets(fan.id);
  check("4 per-fan limit on a late payment", n === 4, `limit 4: fan ends with ${n} valid tickets; late payment: ${await lateReason(first)}`);
}

async function case5() {
  const fan = await new Fan("c5").signUp();
  await fan.admitted();
  const order = (await fan.hold(best(2))).body.orderId;
  const checkoutId = await fan.checkout(order);
  await faults(checkoutId, { captureAfterExpiry: true });
  const back = await fan.giveBack(order);
  const outcome = await approve(checkoutId);
  await until("case 5's refund", async () => (await psp.retrieve(checkoutId)).status === "refunded", 30_000).catch(() => null);
  const deliveries = await psp.listDeliveries(checkoutId);
  const captured = deliveries.filter((d) => d.type === "payment.captured");
  // Its seats: not held in Redis by this order's hold, and never taken without an owner (nothing
  // leaked from a re-claim attempt). The other cases run at the same time on the same show and
  // may rightly hold a seat this order gave back: a seat free or owned by another hold is fine.
  const ordinals = (await db().execute(sql`select s.ordinal from line_items li join seats s on s.id = li.seat_id where li.order_id = ${order}`)) as unknown as { ordinal: number }[];
  const [{ holdId } = { holdId: "" }] = (await db().execute(sql`select hold_id as "holdId" from orders where id = ${order}`)) as unknown as { holdId: string }[];
  const k = inventoryKeys(eventId);
  const leaked = (
    await Promise.all(
      ordinals.map(async ({ ordinal }) => {
        const owner = await redis().hget<string>(k.owner, String(ordinal));
        // owner values are "h:<holdId>" (held) or "s:<holdId>" (sold): lib/inventory/lua.ts
        return (owner !== null && String(owner).slice(2) === holdId) || (owner === null && (await redis().getbit(k.free, ordinal)) === 0);
      }),
    )
  ).filter(Boolean).length;
  const pspStatus = (await psp.retrieve(checkoutId)).status;
  check(
    "5 late capture on a cancelled order",
    back.status === 200 && outcome === "captured" && pspStatus === "refunded" && captured.every((d) => d.lastStatus === 200) && (await statusOf(order)) === "cancelled" && leaked === 0,
    `gave back → ${back.status}; capture → ${outcome}; webhook answered ${captured.map((d) => d.lastStatus).join(",")}; PSP ${pspStatus}; "${await lateReason(order)}"; its seats held in Redis afterwards: ${leaked}`,
  );
}

async function case6() {
  const a = await new Fan("c6a").signUp();
  const b = await new Fan("c6b").signUp();
  await Promise.all([a.admitted(), b.admitted()]);
  const plain = await Promise.all([a.hold(best(2)), a.hold(best(2))]);
  const key = randomUUID();
  const keyed = await Promise.all([b.hold(best(2), { key }), b.hold(best(2), { key })]);
  const aOrders = await db().select().from(orders).where(and(eq(orders.fanId, a.id), eq(orders.eventId, eventId)));
  const bOrders = await db().select().from(orders).where(and(eq(orders.fanId, b.id), eq(orders.eventId, eventId)));
  check(
    "6 a double submit makes one order",
    aOrders.length === 1 && bOrders.length === 1 && keyed[0].body.orderId === keyed[1].body.orderId,
    `without a key: ${plain.map((r) => `${r.status}${r.body?.code ? ` ${r.body.code}` : ""}`).join(" + ")} → ${aOrders.length} order; with one key: ${keyed.map((r) => r.status).join(" + ")}, same order ${keyed[0].body.orderId === keyed[1].body.orderId} → ${bOrders.length} order`,
  );
  for (const o of [...aOrders, ...bOrders]) await (o.fanId === a.id ? a : b).giveBack(o.id);
}

async function case7() {
  const leaver = await new Fan("c7a").signUp();
  const token = await leaver.admitted();
  await leaver.leave();
  leaver.jar.delete(admissionCookieName(eventId));
  const afterLeaving = await leaver.hold(best(1), { token });
  const buyer = await new Fan("c7b").signUp();
  const buyerToken = await buyer.admitted();
  const bought = (await buyer.hold(best(1))).body.orderId;
  await approve(await buyer.checkout(bought));
  await until("case 7's purchase to be ticketed", async () => (await statusOf(bought)) === "ticketed", 30_000);
  const afterBuying = await buyer.hold(best(1), { token: buyerToken });
  check(
    "7 a freed slot's token is refused",
    afterLeaving.status === 403 && afterBuying.status === 403,
    `after leaving the queue → ${afterLeaving.status} ${afterLeaving.body?.code ?? ""}; after buying → ${afterBuying.status} ${afterBuying.body?.code ?? ""}`,
  );
}

const started = Date.now();
const settled = await Promise.allSettled([case1(), case2(), case3(), case4(), case5(), case6(), case7()]);
settled.forEach((s, i) => s.status === "rejected" && check(`${i + 1} (crashed)`, false, s.reason instanceof Error ? s.reason.message : String(s.reason)));

// ---------- the end: one reconciliation pass and the whole checker ----------
const final = await reconcile(db(), { eventId, graceMs: 0 });
const nonZero = Object.entries(final.invariants).filter(([, n]) => n > 0);
check("invariants after the replay (PSP ledger included)", nonZero.length === 0, nonZero.length ? nonZero.map(([k, n]) => `${k} ${n}`).join(", ") : "every count 0");

const failed = results.filter((r) => !r.ok);
console.log(`\n${results.length - failed.length}/${results.length} passed in ${Math.round((Date.now() - started) / 1000)} s${failed.length ? `; FAILED: ${failed.map((f) => f.name).join("; ")}` : ""}`);
client.close();
await closeDb();
await closeRedis();
process.exit(failed.length ? 1 : 0);
