/**
 * Integration tests of the sandbox PSP against the real Postgres (this run's own database,
 * migrations applied). Webhooks go to a fake `deliver` that records calls; every dispatch is
 * scoped to the test's own checkouts so parallel test files never steal each other's rows.
 * Knobs are set per checkout, never globally (other files may be paying at the same time).
 */
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { closeDb, db } from "@/lib/db";
import { WebhookSignatureError } from "@/lib/payments/provider";
import { DEFAULT_SANDBOX_FAULTS, mergeFaults, readFaultOverrides } from "./faults";
import * as psp from "./psp";
import { SandboxProvider } from "./provider";

afterAll(async () => {
  await closeDb();
});

type Call = { url: string; body: string; headers: Record<string, string> };

/** A fake webhook endpoint: records calls and answers `statuses` in turn (then 200). */
function fakeEndpoint(statuses: (number | Error)[] = []) {
  const calls: Call[] = [];
  const deliver: psp.SandboxWebhookDeliver = async (url, body, headers) => {
    calls.push({ url, body, headers });
    const next = statuses.shift() ?? 200;
    if (next instanceof Error) throw next;
    return { status: next };
  };
  return { calls, deliver, events: () => calls.map((c) => JSON.parse(c.body) as psp.SandboxWebhookPayload) };
}

async function newCheckout(overrides: Partial<psp.SandboxCreateCheckoutInput> = {}) {
  return psp.createCheckout({
    orderId: `ord_test_${randomUUID().slice(0, 8)}`,
    amountMinor: 9_000,
    currency: "EUR",
    description: "2 tickets — Test show",
    expiresAt: new Date(Date.now() + 15 * 60_000),
    returnUrl: "http://localhost:3000/orders/return?from=psp",
    idempotencyKey: `idem_${randomUUID()}`,
    ...overrides,
  });
}

const later = (ms: number) => new Date(Date.now() + ms);

/** Delivers everything of these checkouts that is due within the next minute. */
function dispatchAll(deliver: psp.SandboxWebhookDeliver, checkoutIds: string[], now = later(60_000)) {
  return psp.dispatchDueWebhooks({ deliver, checkoutIds, now, url: "http://app.test/api/payments/webhooks/sandbox" });
}

describe("fault knobs", () => {
  it("merges defaults ← global ← per-checkout and ignores unreadable stored values", () => {
    expect(mergeFaults()).toEqual(DEFAULT_SANDBOX_FAULTS);
    expect(mergeFaults({ webhookDelayMs: 5_000, duplicate: 1 }, { duplicate: 0, decline: true })).toEqual({
      ...DEFAULT_SANDBOX_FAULTS,
      webhookDelayMs: 5_000,
      duplicate: 0,
      decline: true,
    });
    expect(readFaultOverrides({ duplicate: 2, drop: "yes", bogus: 1, webhookDelayMs: -5 })).toEqual({ duplicate: 2 });
  });

  it("stores global knobs and rejects unknown or out-of-range ones", async () => {
    // Setting the default value keeps behaviour unchanged for tests running in parallel.
    const set = await psp.setGlobalFaults({ webhookDelayMs: DEFAULT_SANDBOX_FAULTS.webhookDelayMs });
    expect(set.overrides).toEqual({ webhookDelayMs: DEFAULT_SANDBOX_FAULTS.webhookDelayMs });
    expect((await psp.getGlobalFaults()).effective).toEqual(DEFAULT_SANDBOX_FAULTS);
    await expect(psp.setGlobalFaults({ duplicate: -1 })).rejects.toMatchObject({ code: "invalid_request" });
    await expect(psp.setGlobalFaults({ nope: true } as never)).rejects.toThrow(/unknown knob "nope"/);
    await psp.setGlobalFaults({});
    expect((await psp.getGlobalFaults()).overrides).toEqual({});
  });
});

describe("checkouts", () => {
  it("is idempotent by key, also under concurrency, and refuses a reused key for another amount", async () => {
    const key = `idem_${randomUUID()}`;
    const input = {
      orderId: "ord_idem",
      amountMinor: 4_500,
      currency: "EUR",
      description: "1 ticket",
      expiresAt: later(600_000),
      returnUrl: "http://localhost:3000/r",
      idempotencyKey: key,
    };
    const results = await Promise.all([psp.createCheckout(input), psp.createCheckout(input), psp.createCheckout(input)]);
    expect(results[0]!.id).toMatch(/^sbx_cs_[0-9a-z]+$/);
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    expect(results[0]).toMatchObject({ status: "open", amountMinor: 4_500, paymentId: null });
    await expect(psp.createCheckout({ ...input, amountMinor: 9_999 })).rejects.toMatchObject({ code: "idempotency_conflict" });
    await expect(psp.createCheckout({ ...input, idempotencyKey: `idem_${randomUUID()}`, currency: "eur" })).rejects.toMatchObject({
      code: "invalid_request",
    });
  });

  it("approve captures with a payment id and enqueues one payment.captured delivery", async () => {
    const c = await newCheckout();
    const result = await psp.approve(c.id);
    expect(result.outcome).toBe("captured");
    expect(result.checkout.status).toBe("captured");
    expect(result.checkout.paymentId).toMatch(/^sbx_pay_/);
    expect(result.checkout.capturedAt).toBeInstanceOf(Date);

    const deliveries = await psp.listDeliveries(c.id);
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ type: "payment.captured", dropped: false, deliveredAt: null, attempts: 0 });
    expect(deliveries[0]!.eventId).toMatch(/^sbx_evt_/);
    const payload = deliveries[0]!.payload as unknown as psp.SandboxWebhookPayload;
    expect(payload.data.checkout).toMatchObject({ id: c.id, status: "captured", payment_id: result.checkout.paymentId, amount_minor: 9_000 });

    // Pressing approve again never charges twice.
    expect((await psp.approve(c.id)).outcome).toBe("unchanged");
    expect(await psp.listDeliveries(c.id)).toHaveLength(1);
  });

  it("decline (button or knob) declines with a payment.declined webhook", async () => {
    const pressed = await newCheckout();
    expect((await psp.decline(pressed.id)).outcome).toBe("declined");
    const knob = await newCheckout({ faults: { decline: true } });
    const result = await psp.approve(knob.id);
    expect(result).toMatchObject({ outcome: "declined", checkout: { status: "declined", paymentId: null } });
    expect((await psp.listDeliveries(knob.id)).map((d) => d.type)).toEqual(["payment.declined"]);
    expect((await psp.approve(knob.id)).outcome).toBe("unchanged");
  });

  it("slowApprovalMs delays the capture", async () => {
    const c = await newCheckout({ faults: { slowApprovalMs: 300 } });
    const started = performance.now();
    const result = await psp.approve(c.id);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(result.outcome).toBe("captured");
  });

  it("approving an expired checkout expires it (checkout.expired); captureAfterExpiry captures late", async () => {
    const expiresAt = later(-1_000);
    const refused = await newCheckout({ expiresAt });
    expect(await psp.approve(refused.id)).toMatchObject({ outcome: "expired", checkout: { status: "expired", paymentId: null } });
    expect((await psp.listDeliveries(refused.id)).map((d) => d.type)).toEqual(["checkout.expired"]);

    const late = await newCheckout({ expiresAt, faults: { captureAfterExpiry: true } });
    expect(await psp.approve(late.id)).toMatchObject({ outcome: "captured", checkout: { status: "captured" } });

    // Expired by the PSP's sweep first, then the late payment lands: expired → captured, two webhooks.
    const swept = await newCheckout({ expiresAt, faults: { captureAfterExpiry: true } });
    expect(await psp.expireDueCheckouts({ checkoutIds: [swept.id] })).toBe(1);
    expect((await psp.retrieve(swept.id)).status).toBe("expired");
    expect((await psp.approve(swept.id)).outcome).toBe("captured");
    expect((await psp.listDeliveries(swept.id)).map((d) => d.type)).toEqual(["checkout.expired", "payment.captured"]);
  });

  it("an injected clock past expiry expires an otherwise valid checkout", async () => {
    const c = await newCheckout({ expiresAt: later(60_000) });
    expect((await psp.approve(c.id, { now: later(120_000) })).outcome).toBe("expired");
  });

  it("cancel closes an open checkout and is harmless on a paid one", async () => {
    const open = await newCheckout();
    expect((await psp.cancel(open.id)).outcome).toBe("cancelled");
    expect((await psp.approve(open.id)).outcome).toBe("unchanged");
    expect((await psp.listDeliveries(open.id)).map((d) => d.type)).toEqual(["checkout.expired"]);

    const paid = await newCheckout();
    await psp.approve(paid.id);
    expect((await psp.cancel(paid.id)).outcome).toBe("unchanged");
    expect((await psp.retrieve(paid.id)).status).toBe("captured");
    await expect(psp.retrieve("sbx_cs_doesnotexist")).rejects.toMatchObject({ code: "not_found" });
  });

  it("refund is idempotent and sends one payment.refunded webhook", async () => {
    const c = await newCheckout();
    const { checkout } = await psp.approve(c.id);
    const paymentId = checkout.paymentId!;
    const first = await psp.refund(paymentId, "refund-key-1", { amountMinor: 9_000, currency: "EUR" });
    expect(first.refundId).toMatch(/^sbx_re_/);
    expect(first.checkout).toMatchObject({ status: "refunded", refundId: first.refundId });
    expect((await psp.refund(paymentId, "refund-key-1")).refundId).toBe(first.refundId);
    expect((await psp.refund(paymentId, "refund-key-2")).refundId).toBe(first.refundId);
    expect((await psp.listDeliveries(c.id)).map((d) => d.type)).toEqual(["payment.captured", "payment.refunded"]);

    await expect(psp.refund("sbx_pay_unknown", "k")).rejects.toMatchObject({ code: "not_found" });
    const other = await newCheckout();
    const { checkout: otherPaid } = await psp.approve(other.id);
    await expect(psp.refund(otherPaid.paymentId!, "k", { amountMinor: 9_001 })).rejects.toMatchObject({ code: "invalid_request" });
  });

  it("partial refunds add up, are idempotent per key, and the one that reaches the amount is the full refund", async () => {
    const c = await newCheckout(); // 90.00 EUR
    const { checkout } = await psp.approve(c.id);
    const paymentId = checkout.paymentId!;
    const part = await psp.refund(paymentId, "part-1", { amountMinor: 2_500, currency: "EUR", reason: "one ticket" });
    expect(part.checkout).toMatchObject({ status: "captured", refundedMinor: 2_500 });
    expect((await psp.refund(paymentId, "part-1", { amountMinor: 2_500 })).refundId).toBe(part.refundId); // a retry
    await expect(psp.refund(paymentId, "part-1", { amountMinor: 100 })).rejects.toMatchObject({ code: "idempotency_conflict" });
    await expect(psp.refund(paymentId, "part-2", { amountMinor: 6_501 })).rejects.toMatchObject({ code: "invalid_request" }); // 65.00 remain
    const ledger = async () => (await psp.listPayments({ from: new Date(Date.now() - 60_000), to: new Date(Date.now() + 1_000) })).data.find((p) => p.id === c.id)!;
    expect((await ledger()).refundedMinor).toBe(2_500);
    expect((await psp.listDeliveries(c.id)).map((d) => d.type)).toEqual(["payment.captured"]); // no webhook for a part
    const rest = await psp.refund(paymentId, "part-2", { amountMinor: 6_500 });
    expect(rest.checkout).toMatchObject({ status: "refunded", refundedMinor: 9_000, refundId: rest.refundId });
    expect((await psp.listDeliveries(c.id)).map((d) => d.type)).toEqual(["payment.captured", "payment.refunded"]);
  });
});

describe("ledger list API", () => {
  // A window in 2001: only this test's records are in it (test files share one database).
  const T = Date.parse("2001-01-01T00:00:00Z");
  const H = 3_600_000;
  const at = (ms: number) => ({ now: new Date(T + ms) });
  const window = { from: new Date(T), to: new Date(T + 4 * H) };
  const listAll = async (limit: number, list: typeof psp.listPayments | typeof psp.listLedgerRecords = psp.listPayments) => {
    const pages: string[][] = [];
    let after: string | null = null;
    do {
      const page: psp.SandboxPaymentPage<{ id: string }> = await list({ ...window, limit, after });
      pages.push(page.data.map((c) => c.id));
      after = page.nextAfter;
    } while (after);
    return pages;
  };

  it("lists each payment captured or refunded in the window once, page by page: by capture time, then by latest refund, then refunds without one", async () => {
    const paid = async (capturedAt: number) => (await psp.approve((await newCheckout()).id, at(capturedAt))).checkout;
    const a = await paid(1 * H);
    const b = await paid(2 * H);
    const bTwin = await paid(2 * H); // the same capture time: by id
    const partial = await paid(-24 * H); // captured before the window, part refunded in it
    await psp.refund(partial.paymentId!, "part", { amountMinor: 2_000, ...at(3 * H) });
    const full = await paid(-24 * H); // captured before, refunded in full in it
    await psp.refund(full.paymentId!, "full", at(30 * 60_000));
    const legacy = await paid(-24 * H); // refunded in full in it, no latest-refund time recorded (older records)
    await psp.refund(legacy.paymentId!, "legacy", at(10 * 60_000));
    await db().execute(sql`update sandbox_psp.checkouts set last_refund_at = null where id = ${legacy.id}`);
    const outside = await paid(-24 * H); // refunded before the window
    await psp.refund(outside.paymentId!, "outside", at(-H));
    await paid(4 * H); // captured at the window's end (exclusive)
    await newCheckout(); // never paid

    const [b1, b2] = [b.id, bTwin.id].sort();
    const expected = [a.id, b1!, b2!, full.id, partial.id, legacy.id];
    expect(await listAll(1_000)).toEqual([expected]);
    expect(await listAll(4)).toEqual([expected.slice(0, 4), expected.slice(4)]);
    expect(await listAll(2)).toEqual([expected.slice(0, 2), expected.slice(2, 4), expected.slice(4)]);
    expect((await listAll(1, psp.listLedgerRecords)).flat()).toEqual(expected);

    const entries = await new SandboxProvider().listLedger(window);
    expect(entries.map((e) => [e.checkoutSessionId, e.refundedMinor, e.refundedAt?.toISOString() ?? null])).toEqual([
      [a.id, 0, null],
      [b1, 0, null],
      [b2, 0, null],
      [full.id, 9_000, new Date(T + 30 * 60_000).toISOString()],
      [partial.id, 2_000, null],
      [legacy.id, 9_000, new Date(T + 10 * 60_000).toISOString()],
    ]);
  });

  it("lists a payment refunded again while the pages are read once more, with its latest state; refuses a cursor it did not hand out", async () => {
    const T2 = T + 8 * H; // a window of its own
    const w = { from: new Date(T2), to: new Date(T2 + 4 * H) };
    const paid = async (capturedAt: number) => (await psp.approve((await newCheckout()).id, { now: new Date(capturedAt) })).checkout;
    const first = await paid(T2 + H);
    const partial = await paid(T2 - 24 * H);
    await psp.refund(partial.paymentId!, "one", { amountMinor: 1_000, now: new Date(T2 + 2 * H) });
    const other = await paid(T2 - 24 * H);
    await psp.refund(other.paymentId!, "other", { amountMinor: 500, now: new Date(T2 + 2.5 * H) });
    const page = (after: string | null) => psp.listPayments({ ...w, limit: 1, after });
    const seen: [string, number][] = [];
    let p = await page(null);
    seen.push(...p.data.map((c): [string, number] => [c.id, c.refundedMinor]));
    p = await page(p.nextAfter);
    seen.push(...p.data.map((c): [string, number] => [c.id, c.refundedMinor]));
    await psp.refund(partial.paymentId!, "two", { amountMinor: 1_000, now: new Date(T2 + 3 * H) }); // its latest refund moves later
    while (p.nextAfter) {
      p = await page(p.nextAfter);
      seen.push(...p.data.map((c): [string, number] => [c.id, c.refundedMinor]));
    }
    expect(seen).toEqual([
      [first.id, 0],
      [partial.id, 1_000],
      [other.id, 500],
      [partial.id, 2_000],
    ]);
    await expect(psp.listPayments({ ...w, after: first.id })).rejects.toMatchObject({ code: "invalid_request" });
  });
});

describe("webhook deliveries", () => {
  it("duplicate=2 delivers the same event three times with the same event id", async () => {
    const c = await newCheckout({ faults: { duplicate: 2 } });
    await psp.approve(c.id);
    const deliveries = await psp.listDeliveries(c.id);
    expect(deliveries).toHaveLength(3);
    expect(new Set(deliveries.map((d) => d.eventId)).size).toBe(1);

    const app = fakeEndpoint();
    const result = await dispatchAll(app.deliver, [c.id]);
    expect(result).toMatchObject({ claimed: 3, delivered: 3, failed: 0 });
    expect(new Set(app.events().map((e) => e.id))).toEqual(new Set([deliveries[0]!.eventId]));
    expect(app.calls.every((call) => call.headers["x-sandbox-event-id"] === deliveries[0]!.eventId)).toBe(true);
  });

  it("drop never delivers the capture webhook (but the payment exists)", async () => {
    const c = await newCheckout({ faults: { drop: true } });
    const { checkout } = await psp.approve(c.id);
    expect(checkout.status).toBe("captured");
    const deliveries = await psp.listDeliveries(c.id);
    expect(deliveries.map((d) => [d.type, d.dropped])).toEqual([["payment.captured", true]]);
    const app = fakeEndpoint();
    expect((await dispatchAll(app.deliver, [c.id])).claimed).toBe(0);
    expect(app.calls).toHaveLength(0);
    // A refund is still announced: only the capture is dropped.
    await psp.refund(checkout.paymentId!, "k");
    await dispatchAll(app.deliver, [c.id]);
    expect(app.events().map((e) => e.type)).toEqual(["payment.refunded"]);
  });

  it("webhookDelayMs: nothing is due before deliver_at", async () => {
    const start = new Date();
    const c = await newCheckout({ faults: { webhookDelayMs: 5_000 } });
    await psp.approve(c.id, { now: start });
    const [delivery] = await psp.listDeliveries(c.id);
    expect(delivery!.deliverAt.getTime()).toBe(start.getTime() + 5_000);

    const app = fakeEndpoint();
    const early = await psp.dispatchDueWebhooks({ deliver: app.deliver, checkoutIds: [c.id], now: new Date(start.getTime() + 4_999) });
    expect(early.claimed).toBe(0);
    const due = await psp.dispatchDueWebhooks({ deliver: app.deliver, checkoutIds: [c.id], now: new Date(start.getTime() + 5_000) });
    expect(due.delivered).toBe(1);
    expect((await psp.listDeliveries(c.id))[0]!.deliveredAt).not.toBeNull();
    // Delivered rows are never sent again.
    expect((await dispatchAll(app.deliver, [c.id])).claimed).toBe(0);
    expect(app.calls).toHaveLength(1);
  });

  it("reorder delivers later events first", async () => {
    const start = new Date();
    const c = await newCheckout({ faults: { reorder: true, webhookDelayMs: 10_000 } });
    const { checkout } = await psp.approve(c.id, { now: start });
    await psp.refund(checkout.paymentId!, "k", { now: new Date(start.getTime() + 1_000) });
    const app = fakeEndpoint();
    await psp.dispatchDueWebhooks({ deliver: app.deliver, checkoutIds: [c.id], now: new Date(start.getTime() + 60_000) });
    expect(app.events().map((e) => e.type)).toEqual(["payment.refunded", "payment.captured"]);
  });

  it("without reorder, events of a checkout go out in order", async () => {
    const start = new Date();
    const c = await newCheckout({ faults: { webhookDelayMs: 10_000 } });
    const { checkout } = await psp.approve(c.id, { now: start });
    await psp.refund(checkout.paymentId!, "k", { now: new Date(start.getTime() + 1_000) });
    const app = fakeEndpoint();
    await psp.dispatchDueWebhooks({ deliver: app.deliver, checkoutIds: [c.id], now: new Date(start.getTime() + 60_000) });
    expect(app.events().map((e) => e.type)).toEqual(["payment.captured", "payment.refunded"]);
  });

  it("signs bodies so SandboxProvider accepts them, and rejects tampering, a wrong secret and old timestamps", async () => {
    const c = await newCheckout();
    const { checkout } = await psp.approve(c.id);
    const app = fakeEndpoint();
    await dispatchAll(app.deliver, [c.id]);
    expect(app.calls).toHaveLength(1);
    const { body, headers, url } = app.calls[0]!;
    expect(url).toBe("http://app.test/api/payments/webhooks/sandbox");
    expect(headers["content-type"]).toBe("application/json");
    expect(headers["x-sandbox-signature"]).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);

    const provider = new SandboxProvider();
    const event = await provider.verifyWebhook(body, new Headers(headers));
    expect(event).toMatchObject({
      type: "payment.captured",
      rawType: "payment.captured",
      payment: { checkoutSessionId: c.id, orderId: c.orderId, status: "captured", paymentId: checkout.paymentId, amountMinor: 9_000, currency: "EUR" },
    });
    expect(event.eventId).toMatch(/^sbx_evt_/);
    expect(event.payment!.capturedAt!.toISOString()).toBe(checkout.capturedAt!.toISOString());

    const tampered = body.replace('"amount_minor":9000', '"amount_minor":1');
    expect(tampered).not.toBe(body);
    await expect(provider.verifyWebhook(tampered, new Headers(headers))).rejects.toBeInstanceOf(WebhookSignatureError);

    const wrongSecret = psp.signWebhookBody(body, { secret: "not-the-secret" });
    await expect(provider.verifyWebhook(body, new Headers({ "x-sandbox-signature": wrongSecret }))).rejects.toBeInstanceOf(WebhookSignatureError);
    await expect(new SandboxProvider({ secret: "other" }).verifyWebhook(body, new Headers(headers))).rejects.toBeInstanceOf(WebhookSignatureError);

    const old = psp.signWebhookBody(body, { timestampSeconds: Math.floor(Date.now() / 1000) - 6 * 60 });
    await expect(provider.verifyWebhook(body, new Headers({ "x-sandbox-signature": old }))).rejects.toBeInstanceOf(WebhookSignatureError);
    const recent = psp.signWebhookBody(body, { timestampSeconds: Math.floor(Date.now() / 1000) - 4 * 60 });
    await expect(provider.verifyWebhook(body, new Headers({ "x-sandbox-signature": recent }))).resolves.toMatchObject({ type: "payment.captured" });

    for (const bad of ["", "t=abc,v1=00", "v1=" + "0".repeat(64), `t=${Math.floor(Date.now() / 1000)}`, `t=${Math.floor(Date.now() / 1000)},v1=zz`]) {
      await expect(provider.verifyWebhook(body, new Headers(bad ? { "x-sandbox-signature": bad } : {}))).rejects.toBeInstanceOf(WebhookSignatureError);
    }
  });

  it("a failing endpoint is retried later with backoff (1 s, 2 s, …) until it answers 2xx", async () => {
    const c = await newCheckout();
    await psp.approve(c.id);
    const t0 = later(1_000);
    const app = fakeEndpoint([500, new Error("connect ECONNREFUSED")]);

    const first = await psp.dispatchDueWebhooks({ deliver: app.deliver, checkoutIds: [c.id], now: t0 });
    expect(first.attempts[0]).toMatchObject({ ok: false, status: 500, attempt: 1 });
    expect(first.attempts[0]!.retryAt!.getTime()).toBe(t0.getTime() + 1_000);
    let [row] = await psp.listDeliveries(c.id);
    expect(row).toMatchObject({ attempts: 1, lastStatus: 500, deliveredAt: null });

    expect((await psp.dispatchDueWebhooks({ deliver: app.deliver, checkoutIds: [c.id], now: new Date(t0.getTime() + 999) })).claimed).toBe(0);
    const second = await psp.dispatchDueWebhooks({ deliver: app.deliver, checkoutIds: [c.id], now: new Date(t0.getTime() + 1_000) });
    expect(second.attempts[0]).toMatchObject({ ok: false, status: null, attempt: 2 });
    expect(second.attempts[0]!.error).toMatch(/ECONNREFUSED/);
    expect(second.attempts[0]!.retryAt!.getTime()).toBe(t0.getTime() + 1_000 + 2_000);

    const third = await psp.dispatchDueWebhooks({ deliver: app.deliver, checkoutIds: [c.id], now: new Date(t0.getTime() + 3_000) });
    expect(third.attempts[0]).toMatchObject({ ok: true, status: 200, attempt: 3 });
    [row] = await psp.listDeliveries(c.id);
    expect(row).toMatchObject({ attempts: 3, lastStatus: 200, lastError: null });
    expect(row!.deliveredAt).not.toBeNull();
    expect(app.calls.map((call) => call.headers["x-sandbox-delivery-attempt"])).toEqual(["1", "2", "3"]);
  });

  it("failWebhookTimes skips the first N attempts without calling the app", async () => {
    const c = await newCheckout({ faults: { failWebhookTimes: 2 } });
    await psp.approve(c.id);
    const app = fakeEndpoint();
    const t0 = later(1_000);
    const a1 = await psp.dispatchDueWebhooks({ deliver: app.deliver, checkoutIds: [c.id], now: t0 });
    expect(a1.attempts[0]).toMatchObject({ ok: false, attempt: 1 });
    expect(a1.attempts[0]!.error).toMatch(/failWebhookTimes/);
    const a2 = await psp.dispatchDueWebhooks({ deliver: app.deliver, checkoutIds: [c.id], now: new Date(t0.getTime() + 1_000) });
    expect(a2.attempts[0]).toMatchObject({ ok: false, attempt: 2 });
    expect(app.calls).toHaveLength(0);
    const a3 = await psp.dispatchDueWebhooks({ deliver: app.deliver, checkoutIds: [c.id], now: new Date(t0.getTime() + 3_000) });
    expect(a3.attempts[0]).toMatchObject({ ok: true, attempt: 3 });
    expect(app.calls).toHaveLength(1);
  });

  it("backoff doubles from 1 s and is capped at 60 s", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 20].map(psp.webhookRetryDelayMs)).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000]);
  });

  it("parallel dispatchers never deliver the same row twice", async () => {
    const c = await newCheckout({ faults: { duplicate: 4 } });
    await psp.approve(c.id);
    const app = fakeEndpoint();
    const results = await Promise.all([dispatchAll(app.deliver, [c.id]), dispatchAll(app.deliver, [c.id]), dispatchAll(app.deliver, [c.id])]);
    expect(results.reduce((n, r) => n + r.claimed, 0)).toBe(5);
    expect(app.calls).toHaveLength(5);
  });
});

describe("SandboxProvider", () => {
  it("creates sessions on the hosted page, retrieves snapshots, cancels and refunds", async () => {
    const provider = new SandboxProvider();
    const request = {
      orderId: `ord_${randomUUID().slice(0, 8)}`,
      amountMinor: 12_900,
      currency: "EUR",
      description: "3 tickets",
      expiresAt: later(15 * 60_000),
      returnUrl: "http://localhost:3000/orders/x",
      idempotencyKey: `idem_${randomUUID()}`,
    };
    const session = await provider.createCheckoutSession(request);
    expect(session.id).toMatch(/^sbx_cs_/);
    expect(session.url).toMatch(new RegExp(`/sandbox-psp/checkout/${session.id}$`));
    expect((await provider.createCheckoutSession(request)).id).toBe(session.id);
    expect(await provider.retrievePayment(session.id)).toEqual({
      checkoutSessionId: session.id,
      orderId: request.orderId,
      status: "open",
      paymentId: null,
      amountMinor: 12_900,
      currency: "EUR",
      capturedAt: null,
    });

    await psp.approve(session.id);
    const paid = await provider.retrievePayment(session.id);
    expect(paid.status).toBe("captured");
    const refund = await provider.refund(paid.paymentId!, { amountMinor: 12_900, currency: "EUR", reason: "test", idempotencyKey: "r1" });
    expect((await provider.refund(paid.paymentId!, { amountMinor: 12_900, currency: "EUR", reason: "test", idempotencyKey: "r1" })).refundId).toBe(refund.refundId);
    expect((await provider.retrievePayment(session.id)).status).toBe("refunded");

    const other = await provider.createCheckoutSession({ ...request, idempotencyKey: `idem_${randomUUID()}` });
    await provider.cancelCheckout(other.id);
    await provider.cancelCheckout(other.id);
    expect((await provider.retrievePayment(other.id)).status).toBe("cancelled");

    await expect(provider.retrievePayment("sbx_cs_nope")).rejects.toMatchObject({ name: "PaymentProviderError", retryable: false });
    await expect(provider.createCheckoutSession({ ...request, amountMinor: 1 })).rejects.toMatchObject({ name: "PaymentProviderError", retryable: false });
  });

  it("maps checkout.expired and payment.declined webhooks", async () => {
    const provider = new SandboxProvider();
    const expired = await newCheckout();
    await psp.expire(expired.id);
    const declined = await newCheckout();
    await psp.decline(declined.id);
    const app = fakeEndpoint();
    await dispatchAll(app.deliver, [expired.id, declined.id]);
    const events = await Promise.all(app.calls.map((call) => provider.verifyWebhook(call.body, new Headers(call.headers))));
    expect(events.map((e) => [e.type, e.payment?.status]).sort()).toEqual([
      ["checkout.expired", "expired"],
      ["payment.declined", "declined"],
    ]);
  });
});

describe("startSandboxDispatcher", () => {
  it("delivers in the background and stops cleanly", async () => {
    const c = await newCheckout({ faults: { webhookDelayMs: 0 } });
    await psp.approve(c.id);
    const app = fakeEndpoint();
    // Scoped to this test's checkout: other files' webhooks are not ours to deliver.
    const stop = psp.startSandboxDispatcher({ intervalMs: 20, deliver: app.deliver, checkoutIds: [c.id] });
    const deadline = Date.now() + 10_000;
    while (app.calls.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await stop();
    expect(app.calls).toHaveLength(1);
  });
});
