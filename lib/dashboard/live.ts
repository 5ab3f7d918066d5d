/**
 * The organizer's live view of one show's on-sale: the waiting room, holds, sales,
 * revenue, payments and the hold path's health, in one read. Money in minor units;
 * rates are fractions (0–1) over the last `windowMinutes`.
 */
import { sql } from "drizzle-orm";
import type { Db } from "@/lib/db";
import { holdStats, type HoldStats } from "@/lib/metrics/holds";
import { publicQueueStatus } from "@/lib/waiting-room/queue";
import type { PublicQueueStatus } from "@/lib/waiting-room/room";

/** One point of the sales chart: seats sold in the minute starting at `minute` (ISO), and seats given back in it (refunds — partial ones too —, voided orders). */
export interface SalesPoint {
  minute: string;
  seats: number;
  returned: number;
}

/** Everything the live view shows. */
export interface LiveStats {
  at: string;
  queue: PublicQueueStatus;
  /** Fans in the queue not yet admitted: joined (the queue's length) minus the serving counter, never below 0. */
  waiting: number;
  capacity: number;
  sold: number;
  held: number;
  liveHolds: number;
  /** Money kept (minor units): captured payments less their partial refunds. */
  revenueMinor: number;
  currency: string | null;
  /** Seats sold per minute over the last hour (oldest first; minutes without sales included as 0). */
  sales: SalesPoint[];
  windowMinutes: number;
  holdsStarted: number;
  holdsExpired: number;
  /** holdsExpired / holdsStarted over the window; null when no hold started in it (shown as "—", not 0 %). */
  holdExpiryRate: number | null;
  paymentsCaptured: number;
  paymentsDeclined: number;
  /** Captured / (captured + declined) over the window; null when there were no payments. */
  paymentSuccessRate: number | null;
  /** Declined / (captured + declined) over the window; null when there were no payments. */
  paymentDeclineRate: number | null;
  holdPath: HoldStats;
}

const one = async <T>(db: Db, q: ReturnType<typeof sql>) => ((await db.execute(q)) as unknown as T[])[0]!;

/** Reads the live stats of `eventId`. @throws {NoSuchQueueError} for an unknown or unpublished show's queue. */
export async function liveStats(db: Db, eventId: string, opts: { windowMinutes?: number; now?: Date } = {}): Promise<LiveStats> {
  const now = opts.now ?? new Date();
  const windowMinutes = opts.windowMinutes ?? 5;
  const since = new Date(now.getTime() - windowMinutes * 60_000).toISOString();
  const hourAgo = new Date(now.getTime() - 60 * 60_000);

  const inv = await one<{ capacity: number; sold: number; held: number }>(
    db,
    sql`select count(*)::int as capacity, (count(*) filter (where status = 'sold'))::int as sold, (count(*) filter (where status = 'held'))::int as held
        from event_seats where event_id = ${eventId}`,
  );
  const holds = await one<{ live: number }>(db, sql`select count(*)::int as live from orders where event_id = ${eventId} and status = 'pending_payment'`);
  const revenue = await one<{ minor: number; currency: string | null }>(
    db,
    // Kept money: captured payments less their partial refunds (docs/adr/0020).
    sql`select coalesce(sum(p.amount_minor - coalesce((select sum(r.amount_minor) from refunds r where r.payment_id = p.id and r.status = 'succeeded'), 0)), 0)::int as minor,
               min(p.currency) as currency
        from payments p join orders o on o.id = p.order_id where o.event_id = ${eventId} and p.status = 'captured'`,
  );
  // Sold: an order's move to paid. Given back: a paid or ticketed order's move to refunded, or to
  // cancelled (its payment voided: docs/adr/0010) — so the chart goes down where "Sold" does.
  // A partial refund gives its seats back when it succeeds; an order ended later gives back only
  // the seats no partial refund gave back before (docs/adr/0020).
  const salesRows = (await db.execute(
    sql`select minute, sum(seats)::int as seats, sum(returned)::int as returned from (
          select date_trunc('minute', t.at) as minute,
                 (case when t.to_status = 'paid' then n.seats else 0 end) as seats,
                 (case when t.to_status <> 'paid' then n.seats - n.partly else 0 end) as returned
          from order_transitions t join orders o on o.id = t.order_id
          cross join lateral (
            select count(*) as seats,
                   coalesce((select sum(jsonb_array_length(r.line_item_ids)) from refunds r where r.order_id = t.order_id and r.status = 'succeeded'), 0) as partly
            from line_items li where li.order_id = t.order_id) n
          where o.event_id = ${eventId} and t.entity = 'order' and t.at >= ${hourAgo.toISOString()}
            and (t.to_status = 'paid' or (t.to_status in ('refunded', 'cancelled') and t.from_status in ('paid', 'ticketed')))
          union all
          select date_trunc('minute', r.completed_at), 0, jsonb_array_length(r.line_item_ids)
          from refunds r join orders o on o.id = r.order_id
          where o.event_id = ${eventId} and r.status = 'succeeded' and r.completed_at >= ${hourAgo.toISOString()}
        ) x group by 1 order by 1`,
  )) as unknown as { minute: string | Date; seats: number | null; returned: number | null }[];
  const byMinute = new Map(salesRows.map((r) => [new Date(r.minute).toISOString(), r]));
  const sales: SalesPoint[] = [];
  const start = Math.floor(hourAgo.getTime() / 60_000) * 60_000;
  for (let t = start; t <= now.getTime(); t += 60_000) {
    const key = new Date(t).toISOString();
    const row = byMinute.get(key);
    sales.push({ minute: key, seats: row?.seats ?? 0, returned: row?.returned ?? 0 });
  }
  const flow = await one<{ started: number; expired: number; captured: number; declined: number }>(
    db,
    sql`select
          (count(*) filter (where t.entity = 'order' and t.from_status is null))::int as started,
          (count(*) filter (where t.entity = 'order' and t.to_status = 'expired'))::int as expired,
          (count(*) filter (where t.entity = 'payment' and t.to_status = 'captured'))::int as captured,
          (count(*) filter (where t.entity = 'payment' and t.to_status = 'declined'))::int as declined
        from order_transitions t join orders o on o.id = t.order_id
        where o.event_id = ${eventId} and t.at >= ${since}`,
  );
  const payments = flow.captured + flow.declined;
  const queue = await publicQueueStatus(db, eventId, opts.now?.getTime());
  return {
    at: now.toISOString(),
    queue,
    waiting: Math.max(0, queue.queueLength - queue.servingCounter),
    capacity: inv.capacity,
    sold: inv.sold,
    held: inv.held,
    liveHolds: holds.live,
    revenueMinor: revenue.minor,
    currency: revenue.currency,
    sales,
    windowMinutes,
    holdsStarted: flow.started,
    holdsExpired: flow.expired,
    holdExpiryRate: flow.started ? flow.expired / flow.started : null,
    paymentsCaptured: flow.captured,
    paymentsDeclined: flow.declined,
    paymentSuccessRate: payments ? flow.captured / payments : null,
    paymentDeclineRate: payments ? flow.declined / payments : null,
    holdPath: await holdStats(eventId, windowMinutes, now.getTime()),
  };
}
