/**
 * A lease on a job family, so one worker does the background work for a database and a
 * second one never runs beside it unnoticed (docs/adr/0013). The holder renews the lease
 * every third of its time-to-live; another process may take it only once it has expired.
 * The jobs themselves stay idempotent (docs/design.md "Durable jobs"): a lease that changes
 * hands while a pass is still finishing costs a duplicate step, never a wrong one.
 *
 * Stored as a row (`worker_leases`), not a session advisory lock, so it also works through a
 * transaction-mode pooler. Time is the database's clock (`now()`), so hosts' clocks do not matter.
 */
import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Db } from "@/lib/db";

/** How long a lease lasts without renewal (ms). A crashed worker's lease passes on after this. */
export const LEASE_TTL_MS = 15_000;

/** A holder id for this process: `host:pid:random`. */
export function leaseHolderId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
}

/**
 * Takes or renews the lease `name` for `holder`.
 * @returns `{ held: true }` when `holder` has it now (until `expiresAt`), else who does.
 */
export async function claimLease(db: Db, name: string, holder: string, ttlMs = LEASE_TTL_MS): Promise<{ held: boolean; holder: string; expiresAt: Date }> {
  const rows = (await db.execute(sql`
    insert into worker_leases (name, holder, acquired_at, expires_at)
    values (${name}, ${holder}, now(), now() + ${ttlMs} * interval '1 millisecond')
    on conflict (name) do update
      set holder = excluded.holder,
          expires_at = excluded.expires_at,
          acquired_at = case when worker_leases.holder = excluded.holder then worker_leases.acquired_at else excluded.acquired_at end
      where worker_leases.holder = excluded.holder or worker_leases.expires_at < now()
    returning holder, expires_at`)) as unknown as { holder: string; expires_at: Date | string }[];
  if (rows[0]) return { held: true, holder, expiresAt: new Date(rows[0].expires_at) };
  const current = (await db.execute(sql`select holder, expires_at from worker_leases where name = ${name}`)) as unknown as { holder: string; expires_at: Date | string }[];
  return { held: false, holder: current[0]?.holder ?? "unknown", expiresAt: new Date(current[0]?.expires_at ?? Date.now()) };
}

/** Gives the lease up at once (on shutdown), when `holder` has it. */
export async function releaseLease(db: Db, name: string, holder: string): Promise<void> {
  await db.execute(sql`delete from worker_leases where name = ${name} and holder = ${holder}`);
}

/** A lease kept by a timer. */
export interface KeptLease {
  readonly holder: string;
  /** True while this process holds the lease (as of the last renewal). */
  held(): boolean;
  /** Stops renewing and releases the lease. */
  stop(): Promise<void>;
}

/**
 * Keeps trying to take and then renew `name` every `ttlMs / 3`.
 * @param opts.log told when the lease is taken, lost, or held by someone else (once per change)
 */
export function keepLease(db: Db, name: string, opts: { ttlMs?: number; log?: (line: string) => void; holder?: string } = {}): KeptLease & { ready: Promise<void> } {
  const ttlMs = opts.ttlMs ?? LEASE_TTL_MS;
  const holder = opts.holder ?? leaseHolderId();
  const log = opts.log ?? (() => {});
  let held = false;
  let lastReport = "";
  let stopped = false;
  const report = (line: string) => {
    if (line !== lastReport) log(line);
    lastReport = line;
  };
  const renew = async () => {
    try {
      const r = await claimLease(db, name, holder, ttlMs);
      held = r.held;
      report(r.held ? `holding the ${name} lease as ${holder}` : `standing by: ${r.holder} holds the ${name} lease (another worker runs for this database; this one takes over if it stops)`);
    } catch (error) {
      // The database is unreachable: the lease cannot be proven, so do no work until it can.
      held = false;
      report(`cannot renew the ${name} lease (${error instanceof Error ? error.message : String(error)}); pausing work until the database answers`);
    }
  };
  const ready = renew();
  const timer = setInterval(() => void renew(), Math.max(250, Math.floor(ttlMs / 3)));
  timer.unref();
  return {
    holder,
    ready,
    held: () => held && !stopped,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await ready;
      if (held) await releaseLease(db, name, holder).catch(() => {});
      held = false;
    },
  };
}
