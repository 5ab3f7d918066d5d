/**
 * One clock (docs/adr/0024-one-clock.md), with real skewed clocks: the worker runs as its own
 * process (scripts/worker.ts) under libfaketime (Debian's `faketime`), 30 s ahead and then
 * 30 s behind; the app's side (the hold, the checkout, the PSP's approval, its webhooks) runs
 * here with this process's Date 30 s the other way. Holds end at `hold_expires_at` — not
 * 30 s early, not 30 s late beyond the sweep's interval — and payments approved 35 s and
 * 15 s before it end ticketed.
 *
 * The worker sweeps every show of its database, so this file works in a database and a Redis
 * key prefix of its own: the other test files' orders (many made with simulated clocks) are
 * none of its business.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { emails, orders, orderTransitions, payments } from "@/db/schema";
import { closeDb, db } from "@/lib/db";
import { deliverEmails } from "@/lib/mail/deliver";
import { dropDatabase, ensureDatabase, runMigrations } from "@/lib/migrations";
import { placeOrder } from "@/lib/orders/place-order";
import { relayOutbox } from "@/lib/outbox/relay";
import { startCheckout } from "@/lib/payments/checkout";
import * as psp from "@/lib/payments/sandbox/psp";
import { closeRedis } from "@/lib/redis";
import { deleteKeys } from "@/lib/redis-keys";
import { makeFans, makeStudioShow } from "@/lib/testing/fixtures";
import { deliverAll, sandbox } from "@/lib/testing/psp";

const databaseUrl = (() => {
  const u = new URL(process.env.DATABASE_URL!);
  u.pathname = `${u.pathname}_clock`;
  return u.toString();
})();
process.env.DATABASE_URL = databaseUrl;
process.env.REDIS_KEY_PREFIX = `${process.env.REDIS_KEY_PREFIX ?? "test:"}clock:`;

const SWEEP_INTERVAL_MS = 500;
/** How long after `hold_expires_at` a hold may still end: a sweep's interval, a pass's own time, the poll. */
const LATE_ALLOWANCE_MS = SWEEP_INTERVAL_MS + 2_500;

/** Debian's libfaketime (`apt-get install faketime`), wherever the architecture puts it. */
function libfaketime(): string {
  for (const dir of readdirSync("/usr/lib", { withFileTypes: true })) {
    const candidate = path.join("/usr/lib", dir.name, "faketime", "libfaketime.so.1");
    if (dir.isDirectory() && existsSync(candidate)) return candidate;
  }
  throw new Error("libfaketime not found: apt-get install -y faketime (.ci/run installs it)");
}

let worker: ChildProcess | undefined;
let workerLog = "";

/** Starts scripts/worker.ts with its clock moved by `offset` ("+30s", "-30s") and waits until it sweeps. */
async function startWorker(offset: string): Promise<void> {
  workerLog = "";
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    LD_PRELOAD: libfaketime(),
    FAKETIME: offset,
    WORKER_INTERVAL_MS: String(SWEEP_INTERVAL_MS),
    RECONCILE_EVERY_MS: "3600000",
    PAYMENT_PROVIDER: "sandbox",
    ADMISSION_PACING_HOLD_P99_MS: "0",
    SMTP_URL: "",
    INNGEST_DEV: "",
    INNGEST_BASE_URL: "",
    INNGEST_EVENT_KEY: "",
  };
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/worker.ts"], { cwd: process.cwd(), env, stdio: ["ignore", "pipe", "pipe"] });
  worker = child;
  child.stdout!.on("data", (b: Buffer) => (workerLog += b.toString()));
  child.stderr!.on("data", (b: Buffer) => (workerLog += b.toString()));
  const deadline = Date.now() + 60_000;
  while (!/running the sweeps/.test(workerLog)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the worker did not start:\n${workerLog}`);
    await sleep(100);
  }
  // The lease is taken right after that line; a pass follows at once.
  await sleep(1_000);
}

async function stopWorker(): Promise<void> {
  const child = worker;
  worker = undefined;
  if (!child || child.exitCode !== null) return;
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  child.kill("SIGTERM");
  await Promise.race([exited, sleep(10_000)]);
  if (child.exitCode === null) child.kill("SIGKILL");
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Postgres's clock. */
async function dbNow(): Promise<Date> {
  const [row] = (await db().execute(sql`select now() as now`)) as unknown as { now: string | Date }[];
  return new Date(row!.now);
}

/** This process's Date (the app's side) moved by `ms`, still running. */
function skewThisProcess(ms: number): void {
  const real = Date.now();
  vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
  vi.setSystemTime(real + ms);
}

/** When (Postgres's clock) the order left `pending_payment`, polled until `until`; null if it had not. */
async function endedAt(orderId: string, until: number): Promise<Date | null> {
  for (;;) {
    const [t] = await db().select({ at: orderTransitions.at }).from(orderTransitions).where(sql`${orderTransitions.orderId} = ${orderId} and ${orderTransitions.entity} = 'order' and ${orderTransitions.fromStatus} = 'pending_payment'`);
    if (t) return t.at;
    if ((await dbNow()).getTime() > until) return null;
    await sleep(200);
  }
}

async function statusOf(orderId: string): Promise<string> {
  const [o] = await db().select({ status: orders.status }).from(orders).where(eq(orders.id, orderId));
  return o!.status;
}

/** Waits (Postgres's clock) until `at`. */
async function untilDb(at: number): Promise<void> {
  for (;;) {
    const left = at - (await dbNow()).getTime();
    if (left <= 0) return;
    await sleep(Math.min(left, 250));
  }
}

beforeAll(async () => {
  await ensureDatabase(databaseUrl);
  await runMigrations(databaseUrl);
});

afterAll(async () => {
  vi.useRealTimers();
  await stopWorker();
  await closeDb();
  await closeRedis();
  await dropDatabase(databaseUrl);
  await deleteKeys(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", `${process.env.REDIS_KEY_PREFIX}*`);
});

describe("one clock, with the worker under faketime", () => {
  it("worker 30 s ahead, app 30 s behind: holds end at hold_expires_at, payments approved 35 s and 15 s before it end ticketed", { timeout: 150_000 }, async () => {
    const show = await makeStudioShow(db(), { holdMinutes: 1 });
    const [fanA, fanB, fanC] = await makeFans(db(), 3);
    await startWorker("+30s");
    expect(workerLog).not.toMatch(/failed/);
    skewThisProcess(-30_000);
    try {
      const place = (fan: string, ordinal: number) => placeOrder(db(), { eventId: show.eventId, fanId: fan, request: { kind: "seats", ordinals: [ordinal] } });
      const before = (await dbNow()).getTime();
      const [a, b, c] = [await place(fanA!, 1), await place(fanB!, 2), await place(fanC!, 3)];
      const after = (await dbNow()).getTime();
      // The hold's end is Postgres's clock + the show's hold minutes, whatever this process's clock says.
      for (const o of [a, b, c]) {
        expect(o.holdExpiresAt.getTime()).toBeGreaterThanOrEqual(before - 1_000 + 60_000);
        expect(o.holdExpiresAt.getTime()).toBeLessThanOrEqual(after + 60_000);
      }
      // Shortened to 36 s from now for the test's sake (the same column the sweep reads).
      const [row] = (await db().execute(
        sql`update orders set hold_expires_at = date_trunc('milliseconds', now() + interval '36 seconds') where id in (${a.orderId}, ${b.orderId}, ${c.orderId}) returning hold_expires_at as t`,
      )) as unknown as { t: string }[];
      const expiresAt = new Date(row!.t).getTime();
      await startCheckout(db(), sandbox, { orderId: b.orderId, fanId: fanB! });
      await startCheckout(db(), sandbox, { orderId: c.orderId, fanId: fanC! });
      const checkout = async (orderId: string) => (await db().select().from(payments).where(eq(payments.orderId, orderId)))[0]!.checkoutSessionId;
      const [cb, cc] = [await checkout(b.orderId), await checkout(c.orderId)];

      // 35 s before the hold's end: the fan pays; the webhook arrives.
      await untilDb(expiresAt - 35_000);
      expect((await psp.approve(cb)).outcome).toBe("captured");
      await deliverAll(cb);
      // 15 s before: the worker's clock already says 15 s past it.
      await untilDb(expiresAt - 15_000);
      expect(await statusOf(c.orderId)).toBe("pending_payment");
      expect((await psp.approve(cc)).outcome).toBe("captured");
      await deliverAll(cc);

      // The unpaid hold ends at hold_expires_at by Postgres's clock — not 30 s before.
      const ended = await endedAt(a.orderId, expiresAt + LATE_ALLOWANCE_MS);
      expect(ended).not.toBeNull();
      expect(ended!.getTime()).toBeGreaterThanOrEqual(expiresAt);
      expect(ended!.getTime()).toBeLessThanOrEqual(expiresAt + LATE_ALLOWANCE_MS);
      expect(await statusOf(a.orderId)).toBe("expired");

      // Both payments in flight end ticketed (the worker issues the tickets).
      const deadline = Date.now() + 15_000;
      while (Date.now() < deadline && ((await statusOf(b.orderId)) !== "ticketed" || (await statusOf(c.orderId)) !== "ticketed")) await sleep(250);
      expect([await statusOf(b.orderId), await statusOf(c.orderId)]).toEqual(["ticketed", "ticketed"]);
      const paidRows = await db().select({ status: payments.status }).from(payments).where(inArray(payments.orderId, [b.orderId, c.orderId]));
      expect(paidRows.map((p) => p.status)).toEqual(["captured", "captured"]);
    } finally {
      vi.useRealTimers();
      await stopWorker();
    }
  });

  it("worker 30 s behind, app 30 s ahead: a hold ends at hold_expires_at, not 30 s late", { timeout: 120_000 }, async () => {
    const show = await makeStudioShow(db(), { holdMinutes: 1 });
    const [fan] = await makeFans(db(), 1);
    await startWorker("-30s");
    skewThisProcess(30_000);
    try {
      const before = (await dbNow()).getTime();
      const o = await placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals: [4] } });
      expect(o.holdExpiresAt.getTime()).toBeLessThanOrEqual((await dbNow()).getTime() + 60_000);
      expect(o.holdExpiresAt.getTime()).toBeGreaterThanOrEqual(before - 1_000 + 60_000);
      const [row] = (await db().execute(
        sql`update orders set hold_expires_at = date_trunc('milliseconds', now() + interval '3 seconds') where id = ${o.orderId} returning hold_expires_at as t`,
      )) as unknown as { t: string }[];
      const expiresAt = new Date(row!.t).getTime();
      const ended = await endedAt(o.orderId, expiresAt + LATE_ALLOWANCE_MS);
      expect(ended, `the hold was still pending ${LATE_ALLOWANCE_MS} ms after hold_expires_at`).not.toBeNull();
      expect(ended!.getTime()).toBeGreaterThanOrEqual(expiresAt);
      expect(await statusOf(o.orderId)).toBe("expired");
    } finally {
      vi.useRealTimers();
      await stopWorker();
    }
  });
});

describe("one clock for what is due: the outbox relay, e-mail delivery and the sandbox PSP's webhooks", () => {
  /** `available_at` (or `deliver_at`) of a row, as Postgres reads it, minus Postgres's clock now (ms). */
  const dueIn = async (table: "outbox" | "emails", id: number) => {
    const [row] = (await db().execute(sql`select extract(epoch from available_at - now()) * 1000 as ms from ${sql.raw(table)} where id = ${id}`)) as unknown as { ms: string }[];
    return Number(row!.ms);
  };

  it("a worker 30 s behind holds nothing back, and its back-off runs from Postgres's clock", { timeout: 30_000 }, async () => {
    // Rows written now by Postgres's clock (the column defaults), as every writer does.
    const key = `clock-${randomUUID()}`;
    const [event] = (await db().execute(
      sql`insert into outbox (name, payload, dedupe_key) values ('order/created', '{}'::jsonb, ${key}) returning id`,
    )) as unknown as { id: number }[];
    const address = `clock-${randomUUID()}@test.stararena`;
    const [mail] = await db().insert(emails).values({ kind: "sign_up_existing", toAddress: address, payload: { name: "Clock" }, dedupeKey: `clock:${address}` }).returning({ id: emails.id });
    const checkout = await psp.createCheckout({
      orderId: `ord_clock_${randomUUID()}`,
      amountMinor: 2_000,
      currency: "EUR",
      description: "one clock",
      expiresAt: new Date((await dbNow()).getTime() + 10 * 60_000),
      returnUrl: "http://localhost:3000/orders/x",
      idempotencyKey: `clock-${randomUUID()}`,
      faults: { webhookDelayMs: 0 },
    });
    expect((await psp.approve(checkout.id)).outcome).toBe("captured");

    skewThisProcess(-30_000);
    try {
      // Inngest refuses, then the SMTP server, then the app's webhook endpoint: each row is
      // due at once and comes back after its first back-off, counted from Postgres's clock.
      const relayed = await relayOutbox(db(), async (events) => {
        if (events.some((e) => e.id === key)) throw new Error("Inngest is down");
      });
      expect(relayed.failed).toBeGreaterThanOrEqual(1);
      expect(await dueIn("outbox", event!.id)).toBeGreaterThan(1_000 - 500);
      expect(await dueIn("outbox", event!.id)).toBeLessThanOrEqual(1_000);

      const delivered = await deliverEmails(db(), async () => { throw new Error("SMTP is down"); }, { from: "StarArena <tickets@stararena.test>", limit: 1_000 });
      expect(delivered.errors.some((e) => e.includes(address))).toBe(true);
      expect(await dueIn("emails", mail!.id)).toBeGreaterThan(10_000 - 500);
      expect(await dueIn("emails", mail!.id)).toBeLessThanOrEqual(10_000);

      const refused = await psp.dispatchDueWebhooks({ deliver: async () => ({ status: 503 }), checkoutIds: [checkout.id], url: "http://app.test/webhooks" });
      expect(refused.claimed).toBe(1);
      const retryIn = refused.attempts[0]!.retryAt!.getTime() - (await dbNow()).getTime();
      expect(retryIn).toBeGreaterThan(1_000 - 500);
      expect(retryIn).toBeLessThanOrEqual(1_000);

      // Once due again (Postgres's clock), each goes out at once — not 30 s later.
      await sleep(1_100);
      const sent: string[] = [];
      await relayOutbox(db(), async (events) => sent.push(...events.map((e) => e.id)));
      expect(sent).toContain(key);
      expect((await psp.dispatchDueWebhooks({ deliver: async () => ({ status: 200 }), checkoutIds: [checkout.id], url: "http://app.test/webhooks" })).delivered).toBe(1);
      await db().execute(sql`update emails set available_at = now() where id = ${mail!.id}`);
      const to: string[] = [];
      await deliverEmails(db(), async (m) => to.push(m.to), { from: "StarArena <tickets@stararena.test>", limit: 1_000 });
      expect(to).toContain(address);
    } finally {
      vi.useRealTimers();
    }
  });
});
