/**
 * The invariant checker (docs/design.md I1–I6), read from the database, Redis and the PSP's
 * own records. Returns counts of violations; zero everywhere is the goal the tests and
 * the simulator assert.
 *
 * I2–I4 are computed twice: from the app's rows, and against the PSP's ledger
 * (PaymentProvider.listLedger — for the sandbox its own schema, for Stripe its list APIs),
 * so money the app forgot or believed wrongly is counted too (docs/adr/0010).
 *
 * Some states are legitimately in flight (a hold not yet expired, a payment just
 * captured and not yet ticketed); `graceMs` excludes things younger than that, so the
 * checker is meant to run after the sweeps have had a chance to converge.
 */
import { inArray, sql } from "drizzle-orm";
import { orders, payments } from "@/db/schema";
import { databaseNow, redisNowMs } from "@/lib/clock";
import type { Db } from "@/lib/db";
import { holdKey, inventoryKeys } from "@/lib/inventory/keys";
import { IN_FLIGHT_HOLD_MS } from "@/lib/inventory/rebuild";
import { keptCaptureSql } from "@/lib/payments/kept";
import type { LedgerEntry } from "@/lib/payments/provider";
import { LEDGER_EVENT_WINDOW_MS, ledgerProviders, ledgerWindow } from "@/lib/reconciliation/ledger";
import { readInventory, readInventoryAt } from "@/lib/reconciliation/redis-reads";
import { redis } from "@/lib/redis";

/** Violation counts per invariant. */
export interface InvariantReport {
  /** I1: seats with more than one live claim (Postgres), or whose Redis state contradicts Postgres. */
  oversold: number;
  redisMismatches: number;
  /** I2: captured payments whose order is neither ticketed nor refunded (money without tickets)… */
  paidWithoutTickets: number;
  /** …and refunded payments whose order still has valid tickets (both). */
  refundedWithTickets: number;
  /** I3: orders charged more than once (captured payments not refunded; a mismatched capture counts until its refund is made). */
  doubleCharged: number;
  /** I4: valid tickets whose order has no kept payment (captured and not mismatched: lib/payments/kept.ts). */
  ticketsWithoutPayment: number;
  /** I5: holds past their expiry (plus grace) still live. */
  holdsNotEnded: number;
  /** I6: fans with more live seats than the show's per-fan limit. */
  overFanLimit: number;
  /**
   * I2/I4 per ticket (docs/adr/0020): ticketed orders whose money kept (the captured payment
   * less its partial refunds) is not the price of their live (valid or used) tickets.
   */
  keptMoneyMismatch: number;
  /** The same against the PSP: what the PSP keeps for a ticketed order (captured − refunded) against its live tickets' prices. */
  pspKeptMoneyMismatch: number;
  /** I2 against the PSP: money the PSP holds (captured, not refunded) for an order of ours that is not ticketed. */
  pspCapturedWithoutTickets: number;
  /** I3 against the PSP: orders for which the PSP holds more than one capture. */
  pspDoubleCharged: number;
  /** I4 against the PSP: orders with live tickets for which the PSP holds no money. */
  pspTicketsWithoutCapture: number;
}

/** A ledger entry with the provider that listed it. */
export type ProviderLedgerEntry = LedgerEntry & { provider: string };

/**
 * The PSP's records of one event's payments (from its creation on), or of every event's
 * over the last week, from every configured provider.
 * @throws {PaymentProviderError} when a ledger cannot be listed.
 */
async function loadLedger(db: Db, opts: { eventId?: string; now?: Date } = {}): Promise<ProviderLedgerEntry[]> {
  const out: ProviderLedgerEntry[] = [];
  for (const provider of ledgerProviders()) {
    const window = opts.eventId
      ? await ledgerWindow(db, provider.name, opts)
      : { from: new Date(Date.now() - LEDGER_EVENT_WINDOW_MS), to: new Date(Math.max(opts.now?.getTime() ?? 0, Date.now()) + 1_000) };
    for (const e of await provider.listLedger(window)) out.push({ ...e, provider: provider.name });
  }
  return out;
}

const count = async (db: Db, query: ReturnType<typeof sql>) => Number(((await db.execute(query)) as unknown as { n: number }[])[0]?.n ?? 0);

/**
 * Checks every invariant for one event (or all events).
 * @param opts.graceMs in-flight allowance (default 60 s).
 * @param opts.ledger the PSP's records to check I2–I4 against (default: {@link loadLedger}).
 */
export async function checkInvariants(db: Db, opts: { eventId?: string; graceMs?: number; now?: Date; ledger?: ProviderLedgerEntry[] } = {}): Promise<InvariantReport> {
  const now = await databaseNow(db, opts.now);
  const cutoff = new Date(now.getTime() - (opts.graceMs ?? 60_000)).toISOString();
  const evt = opts.eventId ? sql`and o.event_id = ${opts.eventId}` : sql``;
  const evtLi = opts.eventId ? sql`and li.event_id = ${opts.eventId}` : sql``;

  const report: InvariantReport = {
    oversold: await count(
      db,
      sql`select count(*)::int as n from (select 1 from line_items li where li.status in ('held','sold') ${evtLi} group by li.event_id, li.seat_id having count(*) > 1) x`,
    ),
    redisMismatches: 0,
    paidWithoutTickets: await count(
      db,
      sql`select count(*)::int as n from payments p join orders o on o.id = p.order_id
          where p.status = 'captured' and o.status <> 'ticketed' and coalesce(p.captured_at, p.updated_at) < ${cutoff} ${evt}`,
    ),
    refundedWithTickets: await count(
      db,
      sql`select count(distinct o.id)::int as n from payments p join orders o on o.id = p.order_id join tickets t on t.order_id = o.id
          where p.status = 'refunded' and t.status = 'valid'
            and not exists (select 1 from payments k where k.order_id = o.id and ${keptCaptureSql("k")}) ${evt}`,
    ),
    doubleCharged: await count(
      db,
      sql`select count(*)::int as n from (select p.order_id from payments p join orders o on o.id = p.order_id where p.status = 'captured' ${evt} group by p.order_id having count(*) > 1) x`,
    ),
    ticketsWithoutPayment: await count(
      db,
      sql`select count(*)::int as n from tickets t join orders o on o.id = t.order_id
          where t.status <> 'void' and not exists (select 1 from payments p where p.order_id = o.id and ${keptCaptureSql("p")}) ${evt}`,
    ),
    keptMoneyMismatch: await count(
      db,
      sql`select count(*)::int as n from orders o join payments p on p.order_id = o.id and p.status = 'captured'
          where o.status = 'ticketed' and coalesce(p.captured_at, p.updated_at) < ${cutoff} ${evt}
            and not exists (select 1 from refunds r where r.order_id = o.id and r.status = 'requested' and r.created_at >= ${cutoff})
            and p.amount_minor - coalesce((select sum(r.amount_minor) from refunds r where r.payment_id = p.id and r.status = 'succeeded'), 0)
                <> coalesce((select sum(li.price_minor) from tickets t join line_items li on li.id = t.line_item_id where t.order_id = o.id and t.status <> 'void'), 0)`,
    ),
    holdsNotEnded: await count(
      db,
      sql`select count(*)::int as n from orders o where o.status = 'pending_payment' and o.hold_expires_at < ${cutoff} ${evt}`,
    ),
    overFanLimit: await count(
      db,
      sql`select count(*)::int as n from (
            select o.fan_id from line_items li join orders o on o.id = li.order_id join events e on e.id = o.event_id
            where li.status in ('held','sold') ${evt} group by o.event_id, o.fan_id, e.per_fan_limit having count(*) > e.per_fan_limit) x`,
    ),
    ...(await pspSide(db, opts.ledger ?? (await loadLedger(db, opts)), { eventId: opts.eventId, cutoff: new Date(cutoff), now })),
  };
  report.redisMismatches = await redisMismatches(db, opts.eventId);
  return report;
}

/**
 * Only the PSP-side counts (I2–I4 against the PSP's ledger), for callers that poll for
 * convergence (the simulator) and need not pay for the whole check each time.
 */
export async function checkPspInvariants(db: Db, opts: { eventId?: string; graceMs?: number; now?: Date } = {}) {
  const now = await databaseNow(db, opts.now);
  return pspSide(db, await loadLedger(db, opts), { eventId: opts.eventId, cutoff: new Date(now.getTime() - (opts.graceMs ?? 60_000)), now });
}

/**
 * I2–I4 against the PSP's records. Each ledger entry is matched to our order by its
 * checkout (our payment row), else by the order id the PSP recorded; entries for no order
 * of ours are not StarArena's money and are left out (reconciliation records them).
 * Captures and tickets younger than `cutoff` are in flight and not counted.
 */
async function pspSide(
  db: Db,
  ledger: ProviderLedgerEntry[],
  opts: { eventId?: string; cutoff: Date; now: Date },
): Promise<Pick<InvariantReport, "pspCapturedWithoutTickets" | "pspDoubleCharged" | "pspTicketsWithoutCapture" | "pspKeptMoneyMismatch">> {
  const orderOf = new Map<string, string>(); // provider:checkout → order id
  const checkoutIds = [...new Set(ledger.map((e) => e.checkoutSessionId))];
  for (let i = 0; i < checkoutIds.length; i += 1_000) {
    const rows = await db
      .select({ provider: payments.provider, checkout: payments.checkoutSessionId, orderId: payments.orderId })
      .from(payments)
      .where(inArray(payments.checkoutSessionId, checkoutIds.slice(i, i + 1_000)));
    for (const r of rows) orderOf.set(`${r.provider}:${r.checkout}`, r.orderId);
  }
  const orderIds = [...new Set(ledger.map((e) => orderOf.get(`${e.provider}:${e.checkoutSessionId}`) ?? e.orderId).filter((id) => /^ord_[0-9a-z]{1,32}$/.test(id)))];
  const status = new Map<string, { status: string; eventId: string }>();
  for (let i = 0; i < orderIds.length; i += 1_000) {
    const rows = await db.select({ id: orders.id, status: orders.status, eventId: orders.eventId }).from(orders).where(inArray(orders.id, orderIds.slice(i, i + 1_000)));
    for (const r of rows) status.set(r.id, r);
  }
  const kept = new Map<string, number>(); // order id → captures the PSP keeps
  const keptMinor = new Map<string, number>(); // ticketed order id → minor units the PSP keeps for it (settled captures only)
  let pspCapturedWithoutTickets = 0;
  for (const e of ledger) {
    const orderId = orderOf.get(`${e.provider}:${e.checkoutSessionId}`) ?? e.orderId;
    const order = status.get(orderId);
    if (!order || (opts.eventId && order.eventId !== opts.eventId) || e.refundedAt) continue;
    kept.set(orderId, (kept.get(orderId) ?? 0) + 1);
    if (e.capturedAt < opts.cutoff && order.status !== "ticketed") pspCapturedWithoutTickets++;
    if (e.capturedAt < opts.cutoff && order.status === "ticketed") keptMinor.set(orderId, (keptMinor.get(orderId) ?? 0) + e.amountMinor - e.refundedMinor);
  }
  // What the PSP keeps for a ticketed order is what its live tickets cost (partial refunds included,
  // docs/adr/0020); orders with a partial refund in flight (younger than the cutoff) are skipped.
  let pspKeptMoneyMismatch = 0;
  const keptIds = [...keptMinor.keys()];
  for (let i = 0; i < keptIds.length; i += 1_000) {
    const ids = keptIds.slice(i, i + 1_000);
    const live = (await db.execute(
      sql`select o.id, coalesce((select sum(li.price_minor) from tickets t join line_items li on li.id = t.line_item_id where t.order_id = o.id and t.status <> 'void'), 0)::int as minor,
                 exists (select 1 from refunds r where r.order_id = o.id and r.status = 'requested' and r.created_at >= ${opts.cutoff.toISOString()}) as in_flight
          from orders o where o.id in (${sql.join(ids.map((id) => sql`${id}`), sql`, `)})`,
    )) as unknown as { id: string; minor: number; in_flight: boolean }[];
    for (const l of live) if (!l.in_flight && keptMinor.get(l.id) !== Number(l.minor)) pspKeptMoneyMismatch++;
  }
  const pspDoubleCharged = [...kept.values()].filter((n) => n > 1).length;
  // Orders with live tickets issued inside the ledger's window, before the cutoff.
  const since = opts.eventId ? new Date(0) : new Date(opts.now.getTime() - LEDGER_EVENT_WINDOW_MS);
  const ticketed = (await db.execute(
    sql`select distinct t.order_id from tickets t join orders o on o.id = t.order_id
        where t.status <> 'void' and t.issued_at >= ${since.toISOString()} and t.issued_at < ${opts.cutoff.toISOString()}
        ${opts.eventId ? sql`and o.event_id = ${opts.eventId}` : sql``}`,
  )) as unknown as { order_id: string }[];
  const pspTicketsWithoutCapture = ticketed.filter((t) => !kept.has(t.order_id)).length;
  return { pspCapturedWithoutTickets, pspDoubleCharged, pspTicketsWithoutCapture, pspKeptMoneyMismatch };
}

/**
 * Seats whose Redis state contradicts Postgres: free in Redis but live in Postgres (could
 * be sold twice through Redis), or owned in Redis by a hold Postgres does not have live.
 * Events whose Redis inventory is not built are skipped (the next hold rebuilds it).
 * During a sale a hold is briefly in Redis before its Postgres write commits (and a
 * release briefly in one before the other): callers that act on the result compare two
 * looks a moment apart ({@link persistentRedisMismatches}).
 * Postgres is read first, then Redis in one script call (lib/reconciliation/redis-reads.ts):
 * a pass used to spend most of its time reading Redis command by command (see there).
 * @param ordinals only these seats (the second look of {@link persistentRedisMismatches});
 *   default every seat. The entries found for a seat do not depend on the other seats.
 * @returns one entry per contradiction, e.g. "free:17" or "owner:17:h:hld_…".
 */
export async function redisMismatchSet(db: Db, eventId: string, ordinals?: number[]): Promise<Set<string>> {
  const found = new Set<string>();
  if ((await redis().hget(inventoryKeys(eventId).meta, "ready")) === null) return found;
  const live = await liveHoldsBySeat(db, eventId, ordinals);
  const look = ordinals ? await readInventoryAt(eventId, ordinals) : await readInventory(eventId);
  if (!look) return found;
  for (const [ordinal] of live) if (look.isFree(Number(ordinal))) found.add(`free:${ordinal}`);
  for (const [ordinal, tag] of look.owners) {
    if (live.get(ordinal) !== tag.slice(2)) found.add(`owner:${ordinal}:${tag}`);
  }
  return found;
}

/**
 * The event's live seats in Postgres (held or sold line items): ordinal (as text, the way
 * Redis names the seat in its owner hash) → the hold id of its order. Sent back as one text
 * (ordinal, space, hold id; one seat a line) rather than a row per seat: a row per seat cost
 * the worker twice the CPU (7 against 3 ms at 5,000 live seats).
 * @param ordinals only these seats.
 */
async function liveHoldsBySeat(db: Db, eventId: string, ordinals?: number[]): Promise<Map<string, string>> {
  const only = ordinals ? sql`and s.ordinal = any(${sql.param(ordinals)}::int[])` : sql``;
  const [row] = (await db.execute(
    sql`select count(*)::int as n, coalesce(string_agg(s.ordinal::text || ' ' || o.hold_id, E'\n'), '') as seats
        from line_items li join seats s on s.id = li.seat_id join orders o on o.id = li.order_id
        where li.event_id = ${eventId} and li.status in ('held','sold') ${only}`,
  )) as unknown as { n: number; seats: string }[];
  const lines = row && row.n > 0 ? row.seats.split("\n") : [];
  const live = new Map<string, string>();
  for (const line of lines) {
    const space = line.indexOf(" ");
    live.set(line.slice(0, space), line.slice(space + 1));
  }
  // A hold id with a newline in it (ids are newId's, never) would split wrongly: read row by row then.
  if (lines.length !== (row?.n ?? 0)) {
    live.clear();
    const rows = (await db.execute(
      sql`select s.ordinal, o.hold_id from line_items li join seats s on s.id = li.seat_id join orders o on o.id = li.order_id
          where li.event_id = ${eventId} and li.status in ('held','sold') ${only}`,
    )) as unknown as { ordinal: number; hold_id: string }[];
    for (const r of rows) live.set(String(r.ordinal), r.hold_id);
  }
  return live;
}

/** The number of contradictions now (see {@link redisMismatchSet}), over one event or all with live seats. */
export async function redisMismatches(db: Db, eventId?: string): Promise<number> {
  const eventIds = eventId
    ? [eventId]
    : ((await db.execute(sql`select distinct event_id as id from line_items where status in ('held','sold')`)) as unknown as { id: string }[]).map((r) => r.id);
  let bad = 0;
  for (const id of eventIds) bad += (await redisMismatchSet(db, id)).size;
  return bad;
}

/**
 * Contradictions still there `recheckMs` later: the ones a repair may act on, as entries
 * in {@link redisMismatchSet}'s form ("free:17", "owner:17:h:hld_…"). Holds and
 * releases in flight (a few milliseconds to seconds under load) resolve in between; a
 * Redis hold made within {@link IN_FLIGHT_HOLD_MS} that no order names yet is in flight
 * however long the recheck (its order may be waiting for a connection), so it is not
 * counted.
 */
export async function persistentRedisMismatches(db: Db, eventId: string, recheckMs = 3_000): Promise<string[]> {
  const first = await redisMismatchSet(db, eventId);
  if (first.size === 0) return [];
  await new Promise((r) => setTimeout(r, recheckMs));
  // The second look needs only the seats the first one named: an entry names its seat, and a
  // seat's entries depend on that seat alone, so this is the whole second look's part that
  // the intersection below keeps — read for a few seats instead of every live one.
  // (An owner field that is not a seat number as lib/inventory writes one — it never writes
  // such a field — sends the second look over every seat, as before.)
  const fields = [...new Set([...first].map((m) => m.split(":")[1]!))];
  const seats = fields.every((f) => /^(0|[1-9]\d{0,8})$/.test(f)) ? fields.map(Number) : undefined;
  const second = await redisMismatchSet(db, eventId, seats);
  const lasting = [...first].filter((m) => second.has(m));
  // In flight: a Redis hold made (its 'at', ms) within IN_FLIGHT_HOLD_MS that no order names yet.
  // 'at' is Redis's clock (the hold Lua's TIME), so the age is measured with it too.
  const youngFrom = (await redisNowMs()) - IN_FLIGHT_HOLD_MS;
  const holdOf = new Map<string, string>(); // entry → hold id, for the owner entries
  for (const m of lasting) {
    const holdId = /^owner:\d+:h:(.+)$/.exec(m)?.[1];
    if (holdId) holdOf.set(m, holdId);
  }
  const holdIds = [...new Set(holdOf.values())];
  // Sent together: the client pipelines them (one awaited read apiece cost a round trip each).
  const madeAt = await Promise.all(holdIds.map((id) => redis().hget(holdKey(eventId, id), "at")));
  const youngHolds = new Set(holdIds.filter((_, i) => Number(madeAt[i]) >= youngFrom));
  const young = new Map([...holdOf].filter(([, holdId]) => youngHolds.has(holdId)));
  const named = young.size
    ? new Set((await db.select({ holdId: orders.holdId }).from(orders).where(inArray(orders.holdId, [...new Set(young.values())]))).map((o) => o.holdId))
    : new Set<string>();
  return lasting.filter((m) => !young.has(m) || named.has(young.get(m)!));
}

/** Total violations in a report. */
export function totalViolations(r: InvariantReport): number {
  return Object.values(r).reduce((n, v) => n + v, 0);
}
