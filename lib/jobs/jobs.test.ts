/**
 * Durable jobs: the outbox survives an unreachable Inngest, and each Inngest function runs
 * its idempotent lib/ step against the real database (@inngest/test; steps are real, only
 * the sleep is skipped by the engine).
 */
import { InngestTestEngine } from "@inngest/test";
import { eq, inArray } from "drizzle-orm";
import { Inngest } from "inngest";
import { afterAll, describe, expect, it } from "vitest";
import { orders, outbox, tickets } from "@/db/schema";
import { orderLifecycle } from "@/inngest/order-lifecycle";
import { ledgerReconciliation } from "@/inngest/ledger-reconciliation";
import { reconciliation } from "@/inngest/reconciliation";
import { ticketIssuance } from "@/inngest/ticket-issuance";
import { closeDb, db } from "@/lib/db";
import { rebuildInventory } from "@/lib/inventory/rebuild";
import { placeOrder } from "@/lib/orders/place-order";
import { relayOutbox } from "@/lib/outbox/relay";
import { transitionOrder } from "@/lib/orders/state-machine";
import { closeRedis } from "@/lib/redis";
import { makeFans, makeStudioShow } from "@/lib/testing/fixtures";

afterAll(async () => {
  await closeDb();
  await closeRedis();
});

async function order(ordinals: number[], ageMs = 0) {
  const show = await makeStudioShow(db(), { onSaleAt: new Date(Date.now() - 86_400_000) });
  await rebuildInventory(db(), show.eventId);
  const [fan] = await makeFans(db(), 1);
  return placeOrder(db(), { eventId: show.eventId, fanId: fan!, request: { kind: "seats", ordinals }, now: new Date(Date.now() - ageMs) });
}

describe("outbox relay", () => {
  it("keeps events while Inngest is unreachable and sends them later, each once", async () => {
    const placed = await order([3]);
    const key = `order/created:${placed.orderId}`;
    // A real Inngest client whose server does not answer.
    const unreachable = new Inngest({ id: "stararena-test", baseUrl: "http://127.0.0.1:9", eventKey: "test-key", isDev: false });
    const now = new Date();
    const failed = await relayOutbox(db(), (events) => unreachable.send(events), { now, limit: 1000 });
    expect(failed.sent).toBe(0);
    expect(failed.failed).toBeGreaterThanOrEqual(1);
    const [row] = await db().select().from(outbox).where(eq(outbox.dedupeKey, key));
    expect(row!.sentAt).toBeNull();
    expect(row!.attempts).toBe(1);
    expect(row!.lastError).toBeTruthy();
    expect(row!.availableAt.getTime()).toBeGreaterThan(now.getTime());

    // Later, Inngest answers: the event goes out, with its dedupe key as the event id.
    const sent: { id: string; name: string }[] = [];
    await relayOutbox(db(), async (events) => sent.push(...events), { now: new Date(now.getTime() + 10 * 60_000), limit: 1000 });
    expect(sent.filter((e) => e.id === key)).toEqual([{ id: key, name: "order/created", data: expect.objectContaining({ orderId: placed.orderId }) }]);
    const [after] = await db().select().from(outbox).where(eq(outbox.dedupeKey, key));
    expect(after!.sentAt).not.toBeNull();
    // A second relay sends nothing again.
    const again: unknown[] = [];
    await relayOutbox(db(), async (events) => again.push(...events), { now: new Date(now.getTime() + 20 * 60_000), limit: 1000 });
    expect(again.filter((e) => (e as { id: string }).id === key)).toEqual([]);
  }, 30_000);
});

describe("Inngest functions", () => {
  it("order lifecycle: after the hold's expiry the order is settled (expired, seats released)", async () => {
    const placed = await order([7], 16 * 60_000);
    // The sleep is mocked (it would wait until the hold's expiry); the settle step runs for real.
    const t = new InngestTestEngine({ function: orderLifecycle, steps: [{ id: "wait-for-hold-expiry", handler: () => undefined }] });
    const { result } = await t.execute({
      events: [{ name: "order/created", data: { orderId: placed.orderId, eventId: "x", holdExpiresAt: placed.holdExpiresAt.toISOString() } }],
    });
    expect(result).toBe("expired");
    expect((await db().query.orders.findFirst({ where: eq(orders.id, placed.orderId) }))!.status).toBe("expired");
    // Running it again (a fresh run, as after a retry or a replayed event) is harmless.
    const again = await new InngestTestEngine({ function: orderLifecycle, steps: [{ id: "wait-for-hold-expiry", handler: () => undefined }] }).execute({ events: [{ name: "order/created", data: { orderId: placed.orderId, eventId: "x", holdExpiresAt: placed.holdExpiresAt.toISOString() } }] });
    expect(again.result).toBe("not_pending");
  });

  it("ticket issuance: a paid order gets its tickets", async () => {
    const placed = await order([8, 9]);
    await db().transaction(async (tx) => transitionOrder(tx, placed.orderId, "pending_payment", "paid", { actor: "test", reason: "paid" }));
    await db().update((await import("@/db/schema")).lineItems).set({ status: "sold" }).where(eq((await import("@/db/schema")).lineItems.orderId, placed.orderId));
    const t = new InngestTestEngine({ function: ticketIssuance });
    const { result } = await t.execute({ events: [{ name: "order/paid", data: { orderId: placed.orderId, eventId: "x" } }] });
    expect(result).toEqual({ orderId: placed.orderId, tickets: 2 });
    expect(await db().select().from(tickets).where(inArray(tickets.orderId, [placed.orderId]))).toHaveLength(2);
  });

  it("reconciliation: the cron runs one pass and reports the invariants", async () => {
    const t = new InngestTestEngine({ function: reconciliation });
    const { result } = await t.execute({ events: [{ name: "inngest/scheduled.timer", data: {} }] });
    expect(result).toMatchObject({ invariants: { oversold: 0, doubleCharged: 0 }, ledger: [{ provider: "sandbox" }] });
  }, 60_000);

  it("PSP ledger: the minute cron reconciles each provider's ledger from its cursor", async () => {
    const t = new InngestTestEngine({ function: ledgerReconciliation });
    const { result } = await t.execute({ events: [{ name: "inngest/scheduled.timer", data: {} }] });
    expect(result).toEqual([expect.objectContaining({ provider: "sandbox", errors: [] })]);
    const [cursor] = await db().select().from((await import("@/db/schema")).pspLedgerCursors).where(eq((await import("@/db/schema")).pspLedgerCursors.provider, "sandbox"));
    expect(cursor!.reconciledThrough.getTime()).toBeGreaterThan(Date.now() - 60_000);
  }, 60_000);
});
