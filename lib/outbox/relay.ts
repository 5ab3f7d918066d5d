/**
 * Relaying the outbox to Inngest: unsent rows (oldest first, locked with SKIP LOCKED so
 * several relays never send the same row), sent as one batch with each row's dedupe key
 * as the Inngest event id (so a resend after a crash is deduplicated by Inngest). A
 * failed send leaves the rows unsent, with an error and a later `available_at`
 * (exponential backoff, 1 s … 5 min); nothing is lost. What is due and the retry's time are
 * Postgres's clock, as `available_at` is written (docs/adr/0024): a worker whose clock runs
 * behind holds nothing back.
 */
import { sql } from "drizzle-orm";
import { sqlNow } from "@/lib/clock";
import type { Db } from "@/lib/db";

/** One event as sent to Inngest. */
export interface RelayedEvent {
  id: string;
  name: string;
  data: Record<string, unknown>;
}

/** What one relay pass did. */
export interface RelayReport {
  sent: number;
  failed: number;
  error?: string;
}

type Row = { id: number; name: string; payload: Record<string, unknown>; dedupe_key: string; attempts: number };

/**
 * Sends up to `limit` due rows with `send`; marks them sent, or schedules a retry.
 * @param send e.g. `(events) => inngest.send(events)`; must throw on failure.
 * @param opts.now a test's simulated clock; without it, Postgres's `now()`.
 */
export async function relayOutbox(db: Db, send: (events: RelayedEvent[]) => Promise<unknown>, opts: { limit?: number; now?: Date } = {}): Promise<RelayReport> {
  const now = sqlNow(opts.now);
  return db.transaction(async (tx) => {
    const rows = (await tx.execute(
      sql`select id, name, payload, dedupe_key, attempts from outbox
          where sent_at is null and available_at <= ${now}
          order by id limit ${opts.limit ?? 100} for update skip locked`,
    )) as unknown as Row[];
    if (rows.length === 0) return { sent: 0, failed: 0 };
    const ids = rows.map((r) => r.id);
    try {
      await send(rows.map((r) => ({ id: r.dedupe_key, name: r.name, data: r.payload })));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await tx.execute(
        sql`update outbox set attempts = attempts + 1, last_error = ${message.slice(0, 500)},
              available_at = ${now} + least(interval '5 minutes', interval '1 second' * power(2, attempts))
            where id = any(${sql.raw(`array[${ids.join(",")}]::bigint[]`)})`,
      );
      return { sent: 0, failed: rows.length, error: message };
    }
    await tx.execute(sql`update outbox set sent_at = ${now}, last_error = null where id = any(${sql.raw(`array[${ids.join(",")}]::bigint[]`)})`);
    return { sent: rows.length, failed: 0 };
  });
}

/**
 * Without an Inngest server the local worker's sweeps do the jobs' work; the outbox rows are
 * then marked handled so they do not pile up. @returns rows marked.
 */
export async function markOutboxHandledLocally(db: Db, now?: Date): Promise<number> {
  const done = (await db.execute(
    sql`update outbox set sent_at = ${sqlNow(now)}, last_error = 'handled by the local worker (no Inngest server)'
        where id in (select id from outbox where sent_at is null order by id limit 1000 for update skip locked) returning id`,
  )) as unknown as unknown[];
  return done.length;
}
