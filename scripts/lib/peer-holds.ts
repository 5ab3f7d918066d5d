/**
 * The hold strategies of open-source ticketing peers, as their code documents them, on plain
 * Postgres tables shaped like theirs, for `npm run bench:holds` (same show size, same
 * concurrency, same machine as StarArena's hold):
 *  - pretix (`pretix/base/services/locking.py`, `quotas.py`): take advisory transaction locks on
 *    the quota and seat keys, sorted (deadlock-free), then recount the quota's availability from
 *    the rows, then write the hold;
 *  - alf.io (`TicketRepository.selectFreeTicketsForReservation…`): tickets are pre-created rows;
 *    `SELECT … FOR UPDATE SKIP LOCKED` the next free one(s), then update them;
 *  - Hi.Events (`OrderReservationService` / `AvailableCapacityService`): `pg_advisory_xact_lock(event)`
 *    around a recount of reserved seats, then insert the reservation.
 * Every hold is recorded in `peer_hold_log` (seat, strategy) without a unique constraint, so
 * {@link doubleHeld} can tell whether a strategy ever gave one seat twice.
 */
import type { Sql } from "postgres";

/** A peer's one-seat hold: resolves true when a seat was held, false when none was free. */
export type PeerHold = (sql: Sql, i: number) => Promise<boolean>;

/** (Re)creates the peers' tables for a show of `seats` seats, every seat free. */
export async function preparePeerTables(sql: Sql, seats: number): Promise<void> {
  await sql`drop table if exists peer_seats, peer_quota, peer_reservations, peer_hold_log`;
  await sql`create table peer_seats (id int primary key, event_id int not null, status text not null default 'free', hold_id text)`;
  await sql`create index peer_seats_free on peer_seats (event_id, id) where status = 'free'`;
  await sql`create index peer_seats_status on peer_seats (event_id, status)`;
  await sql`create table peer_quota (id int primary key, size int not null)`;
  await sql`create table peer_reservations (id bigserial primary key, event_id int not null, seat_id int not null, created_at timestamptz not null default now())`;
  await sql`create index peer_reservations_event on peer_reservations (event_id)`;
  await sql`create table peer_hold_log (seat_id int not null, strategy text not null)`;
  await resetPeerTables(sql, seats);
}

/** Frees every seat and empties the reservations and the log (between runs). */
export async function resetPeerTables(sql: Sql, seats: number): Promise<void> {
  await sql`truncate peer_seats, peer_quota, peer_reservations, peer_hold_log`;
  await sql`insert into peer_seats (id, event_id) select g, 1 from generate_series(0, ${seats - 1}) g`;
  await sql`insert into peer_quota (id, size) values (1, ${seats})`;
  await sql`analyze peer_seats`;
}

/** Stable 64-bit advisory lock keys, as pretix derives them from model names and ids. */
const lockKey = (kind: "quota" | "seat" | "event", id: number) => (kind === "quota" ? 1_000_000_000 : kind === "event" ? 2_000_000_000 : 0) + id;

/** pretix: sorted advisory locks (quota, seat), a recount from rows, then the write. Explicit seat `i`. */
export const pretixHold: PeerHold = (sql, i) =>
  sql.begin(async (tx) => {
    for (const key of [lockKey("quota", 1), lockKey("seat", i)].sort((a, b) => a - b)) await tx`select pg_advisory_xact_lock(${key})`;
    const [{ size }] = (await tx`select size from peer_quota where id = 1`) as unknown as [{ size: number }];
    const [{ used }] = (await tx`select count(*)::int as used from peer_seats where event_id = 1 and status = 'held'`) as unknown as [{ used: number }];
    if (used >= size) return false;
    const taken = await tx`update peer_seats set status = 'held', hold_id = ${`p${i}`} where id = ${i} and status = 'free' returning id`;
    if (taken.length === 0) return false;
    await tx`insert into peer_hold_log (seat_id, strategy) values (${i}, 'pretix')`;
    return true;
  }) as Promise<boolean>;

/** alf.io: the next free pre-created seat row, `FOR UPDATE SKIP LOCKED`, then update it (best available). */
export const alfioHold: PeerHold = (sql, i) =>
  sql.begin(async (tx) => {
    const rows = (await tx`select id from peer_seats where event_id = 1 and status = 'free' order by id limit 1 for update skip locked`) as unknown as { id: number }[];
    const seat = rows[0];
    if (!seat) return false;
    await tx`update peer_seats set status = 'held', hold_id = ${`a${i}`} where id = ${seat.id}`;
    await tx`insert into peer_hold_log (seat_id, strategy) values (${seat.id}, 'alfio')`;
    return true;
  }) as Promise<boolean>;

/** Hi.Events: one advisory lock per event around a recount of reservations, then the insert. Explicit seat `i`. */
export const hiEventsHold: PeerHold = (sql, i) =>
  sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${lockKey("event", 1)})`;
    const [{ reserved }] = (await tx`select count(*)::int as reserved from peer_reservations where event_id = 1`) as unknown as [{ reserved: number }];
    const [{ size }] = (await tx`select size from peer_quota where id = 1`) as unknown as [{ size: number }];
    if (reserved >= size) return false;
    await tx`insert into peer_reservations (event_id, seat_id) values (1, ${i})`;
    await tx`insert into peer_hold_log (seat_id, strategy) values (${i}, 'hi.events')`;
    return true;
  }) as Promise<boolean>;

/** Seats a strategy recorded as held more than once (0 when correct). */
export async function doubleHeld(sql: Sql, strategy: string): Promise<number> {
  const [{ n }] = (await sql`select (count(*) - count(distinct seat_id))::int as n from peer_hold_log where strategy = ${strategy}`) as unknown as [{ n: number }];
  return n;
}
