/**
 * A queue that survives losing Redis (docs/adr/0028), through the door as fans call it, against
 * the real Redis and Postgres with an injected clock. The event's waiting-room keys are deleted
 * to stand for Redis coming back empty (only this event's keys: the Redis is shared). Fans who
 * held a place come back with their signed queue tickets and are seated again in the order the
 * tickets prove, before anyone who joined after the loss; a ticket is no use to another fan,
 * cannot be forged, and gives one place however often it is shown. An admission token names its
 * generation: one from the lost queue holds nothing, even where the new queue let another fan
 * in at the same place number.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, db } from "@/lib/db";
import { createDoor, type Door } from "@/lib/door/handler";
import { CLIENT_IP_HEADER } from "@/lib/client-ip";
import { env } from "@/lib/env";
import { rebuildInventory } from "@/lib/inventory/rebuild";
import { holdForFan } from "@/lib/orders/hold-for-fan";
import { closeRedis, redis } from "@/lib/redis";
import { createFansWithSessions, type SimFan } from "@/lib/simulator/sessions";
import { makeStudioShow } from "@/lib/testing/fixtures";
import { queueKeys } from "@/lib/waiting-room/keys";
import { RESEAT_WINDOW_MS } from "@/lib/waiting-room/lua";
import { appRoomStore } from "@/lib/waiting-room/queue";
import { issueQueueTicket, queueTicketCookieName } from "@/lib/waiting-room/ticket";
import { queueStateKey } from "@/lib/waiting-room/keys";
import { admissionCookieName, verifyAdmissionToken } from "@/lib/waiting-room/token";

const ORIGIN = "http://127.0.0.1:3000";
const HOUR = 3_600_000;
let fans: SimFan[];

beforeAll(async () => {
  fans = await createFansWithSessions(db(), 24, { secret: env().BETTER_AUTH_SECRET, runTag: `reseat${Date.now().toString(36)}` });
});
afterAll(async () => {
  await closeDb();
  await closeRedis();
});

const session = (f: SimFan) => `better-auth.session_token=${f.sessionCookie}; better-auth.session_data=${f.sessionDataCookie}`;

let requests = 0;

/** Sends one request (each from its own address: the join limit is not under test); returns status, JSON body and the cookies set (name → value). */
async function send(d: Door, method: string, path: string, cookie: string) {
  const headers = new Headers({ [CLIENT_IP_HEADER]: `198.51.100.${++requests % 250}`, origin: ORIGIN, cookie });
  const res = (await d(new Request(`http://127.0.0.1:3000${path}`, { method, headers })))!;
  const cookies = Object.fromEntries(res.headers.getSetCookie().map((c) => c.split(";")[0]!.split(/=(.*)/s).slice(0, 2) as [string, string]));
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, cookies };
}

describe("a queue that survives losing Redis", () => {
  it("seats fans again from their tickets in the tickets' order, before fans who joined after the loss; a ticket gives one place, to its own fan only", async () => {
    const t0 = Date.now();
    const clock = { t: t0 };
    // 60 fans a minute: one admission a second once the clock moves.
    const { eventId } = await makeStudioShow(db(), { onSaleAt: new Date(t0 - 60_000), startsAt: new Date(t0 + 24 * HOUR), admissionRatePerMinute: 60, activeCap: 100 });
    await rebuildInventory(db(), eventId);
    const d = createDoor({ store: appRoomStore(db()), secret: env().BETTER_AUTH_SECRET, origins: [ORIGIN], secureCookies: false, now: () => clock.t, queueNow: () => clock.t });
    const queue = `/api/events/${eventId}/queue`;
    const ticketName = queueTicketCookieName(eventId);
    const withTicket = (f: SimFan, ticket: string) => `${session(f)}; ${ticketName}=${ticket}`;

    await send(d, "GET", queue, ""); // the room's configuration into Redis; admissions counted from now
    // Eight fans join in order: places 1..8.
    const before: string[] = [];
    for (const [i, f] of fans.slice(0, 8).entries()) {
      const r = await send(d, "POST", queue, session(f));
      expect(r.body).toMatchObject({ state: "waiting", position: i + 1 });
      before.push(r.cookies[ticketName]!);
    }
    // A second later place 1 is admitted (and takes its token); places 2..8 wait.
    clock.t = t0 + 1_000;
    const first = await send(d, "GET", `${queue}/me`, withTicket(fans[0]!, before[0]!));
    expect(first.body).toMatchObject({ state: "admitted", position: 1 });

    // Redis comes back empty.
    await redis().del(...queueKeys(eventId));

    // Three fans join after the loss: a new queue's places 1..3.
    clock.t = t0 + 2_000;
    const fresh = fans.slice(10, 13);
    const freshTickets: string[] = [];
    for (const [i, f] of fresh.entries()) {
      const r = await send(d, "POST", queue, session(f));
      expect(r.body).toMatchObject({ state: "waiting", position: i + 1 });
      freshTickets.push(r.cookies[ticketName]!);
    }

    // The fan who had place 6 reads its status with its old ticket: seated again at once, nobody ahead yet.
    const six = await send(d, "GET", `${queue}/me`, withTicket(fans[5]!, before[5]!));
    expect(six.status).toBe(200);
    expect(six.body.state).toBe("waiting");
    expect(six.body.position).toBeLessThan(0);
    expect(six.body.ahead).toBe(0);
    const sixTicket = six.cookies[ticketName]!;
    expect(sixTicket).toBeDefined(); // a ticket of the new generation
    // The fan who had place 3 comes back after it (a join, as the page does), and goes ahead of it.
    const three = await send(d, "POST", queue, withTicket(fans[2]!, before[2]!));
    expect(three.body).toMatchObject({ state: "waiting", ahead: 0 });
    // So does the fan who had been admitted (its slot was lost with Redis): its place was 1.
    const one = await send(d, "POST", queue, withTicket(fans[0]!, before[0]!));
    expect(one.body).toMatchObject({ state: "waiting", ahead: 0 });

    // Showing the old ticket again (or joining with it) gives no second place.
    const replay = await send(d, "GET", `${queue}/me`, withTicket(fans[5]!, before[5]!));
    expect(replay.body).toMatchObject({ state: "waiting", position: six.body.position, ahead: 2 });
    const replayJoin = await send(d, "POST", queue, withTicket(fans[5]!, before[5]!));
    expect(replayJoin.body).toMatchObject({ state: "waiting", position: six.body.position, ahead: 2 });

    // Another fan presenting place 3's ticket, and a fan with a forged ticket for place 2, get nothing from them.
    const stranger = fans[14]!;
    expect((await send(d, "GET", `${queue}/me`, withTicket(stranger, before[2]!))).body).toMatchObject({ state: "none", position: 0 });
    const forger = fans[15]!;
    const forged = issueQueueTicket(
      { eventId, fanId: forger.id, position: 2, draw: null, issuedAt: clock.t, onSaleAt: t0 - 60_000, generation: "1" },
      "another-secret-that-is-long-enough-000",
    );
    expect((await send(d, "GET", `${queue}/me`, withTicket(forger, forged))).body).toMatchObject({ state: "none", position: 0 });
    // Joining with them: at the back, behind the fans who joined after the loss.
    const strangerJoin = await send(d, "POST", queue, withTicket(stranger, before[2]!));
    expect(strangerJoin.body).toMatchObject({ state: "waiting", position: 4 });

    // A fan who joined after the loss sees the three re-seated fans ahead of it (its ticket answers; the public status is fresh).
    clock.t = t0 + 2_400;
    expect((await send(d, "GET", `${queue}/me`, withTicket(fresh[0]!, freshTickets[0]!))).body).toMatchObject({ state: "waiting", position: 1, ahead: 3 });

    // One admission a second: the old places 1, 3, 6 in that order, then the new place 1.
    const me = async (f: SimFan, ticket: string) => (await send(d, "GET", `${queue}/me`, withTicket(f, ticket))).body;
    const states = async () => [(await me(fans[0]!, one.cookies[ticketName]!)).state, (await me(fans[2]!, three.cookies[ticketName]!)).state, (await me(fans[5]!, sixTicket)).state, (await me(fresh[0]!, freshTickets[0]!)).state];
    clock.t = t0 + 3_000;
    expect(await states()).toEqual(["admitted", "waiting", "waiting", "waiting"]);
    clock.t = t0 + 4_000;
    expect(await states()).toEqual(["admitted", "admitted", "waiting", "waiting"]);
    clock.t = t0 + 5_000;
    expect(await states()).toEqual(["admitted", "admitted", "admitted", "waiting"]);
    // The token of the turn lost with Redis holds nothing (403, its own code: the page goes back to the queue): its fan was seated again through the queue instead.
    await expect(holdForFan(db(), { eventId, fanId: fans[0]!.id, request: { kind: "seats", ordinals: [6] }, admissionToken: first.cookies[admissionCookieName(eventId)]! })).rejects.toMatchObject({
      status: 403,
      code: "admission_queue_restarted",
    });
    // The fans who joined after the loss wait for the re-seat window (45 s from the new generation) while the old ones come back.
    clock.t = t0 + 6_000;
    expect(await states()).toEqual(["admitted", "admitted", "admitted", "waiting"]);
    clock.t = t0 + 2_000 + RESEAT_WINDOW_MS - 1;
    expect(await states()).toEqual(["admitted", "admitted", "admitted", "waiting"]);
    // Then admission resumes at the rate (one a second after the last held look), with no burst of the time it held.
    clock.t = t0 + 2_000 + RESEAT_WINDOW_MS + 999;
    expect(await states()).toEqual(["admitted", "admitted", "admitted", "admitted"]);

    // The fan who had place 6, admitted 3 s after the loss, holds with its new token; its old ticket still gives no second place.
    const admitted = await send(d, "GET", `${queue}/me`, withTicket(fans[5]!, before[5]!));
    expect(admitted.body).toMatchObject({ state: "admitted", position: six.body.position });
    const token = admitted.cookies[admissionCookieName(eventId)]!;
    expect(await verifyAdmissionToken(token, { fanId: fans[5]!.id, eventId, now: clock.t })).toEqual({ position: six.body.position, generation: admitted.body.generation });
    await expect(holdForFan(db(), { eventId, fanId: fans[5]!.id, request: { kind: "seats", ordinals: [5] }, admissionToken: token })).resolves.toMatchObject({ seats: [{ ordinal: 5 }] });
  });

  it("puts a pre-queue fan back with its draw: its turn after the on-sale comes where the draw put it, ahead of later joiners", async () => {
    const t0 = Date.now();
    const clock = { t: t0 };
    const onSaleAt = t0 + 60_000;
    const { eventId } = await makeStudioShow(db(), { onSaleAt: new Date(onSaleAt), startsAt: new Date(t0 + 24 * HOUR), admissionRatePerMinute: 60, activeCap: 100 });
    const d = createDoor({ store: appRoomStore(db()), secret: env().BETTER_AUTH_SECRET, origins: [ORIGIN], secureCookies: false, now: () => clock.t, queueNow: () => clock.t });
    const queue = `/api/events/${eventId}/queue`;
    const ticketName = queueTicketCookieName(eventId);
    const [a, b, late] = [fans[0]!, fans[1]!, fans[2]!];
    const ja = await send(d, "POST", queue, session(a));
    const jb = await send(d, "POST", queue, session(b));
    expect([ja.body.state, jb.body.state]).toEqual(["pre", "pre"]);

    await redis().del(...queueKeys(eventId));

    clock.t = t0 + 1_000;
    const ra = await send(d, "GET", `${queue}/me`, `${session(a)}; ${ticketName}=${ja.cookies[ticketName]}`);
    const rb = await send(d, "POST", queue, `${session(b)}; ${ticketName}=${jb.cookies[ticketName]}`);
    // The same draws as before the loss (a fresh join would have drawn again).
    expect([ra.body.state, ra.body.draw, rb.body.state, rb.body.draw]).toEqual(["pre", ja.body.draw, "pre", jb.body.draw]);
    clock.t = onSaleAt + 100;
    expect((await send(d, "POST", queue, session(late))).body).toMatchObject({ state: "waiting", position: 3 });
    const places = [await send(d, "GET", `${queue}/me`, `${session(a)}; ${ticketName}=${ra.cookies[ticketName]}`), await send(d, "GET", `${queue}/me`, `${session(b)}; ${ticketName}=${rb.cookies[ticketName]}`)];
    const drawOrder = (ja.body.draw as number) < (jb.body.draw as number) ? [1, 2] : [2, 1];
    expect(places.map((r) => r.body.position)).toEqual(drawOrder);
  });

  it("refuses an admission token from before the loss once the new queue has let another fan in at the same place number", async () => {
    const t0 = Date.now();
    const clock = { t: t0 };
    const { eventId } = await makeStudioShow(db(), { onSaleAt: new Date(t0 - 60_000), startsAt: new Date(t0 + 24 * HOUR), admissionRatePerMinute: 60, activeCap: 100 });
    await rebuildInventory(db(), eventId);
    const d = createDoor({ store: appRoomStore(db()), secret: env().BETTER_AUTH_SECRET, origins: [ORIGIN], secureCookies: false, now: () => clock.t, queueNow: () => clock.t });
    const queue = `/api/events/${eventId}/queue`;
    const [before, after] = [fans[6]!, fans[7]!];
    await send(d, "GET", queue, "");
    expect((await send(d, "POST", queue, session(before))).body).toMatchObject({ state: "waiting", position: 1 });
    clock.t = t0 + 1_000;
    const old = await send(d, "GET", `${queue}/me`, session(before));
    expect(old.body).toMatchObject({ state: "admitted", position: 1 });
    const oldToken = old.cookies[admissionCookieName(eventId)]!;

    await redis().del(...queueKeys(eventId));

    // A fan who joins the new queue gets its place 1 and is let in: slot 1 runs again, in another generation.
    clock.t = t0 + 2_000;
    expect((await send(d, "POST", queue, session(after))).body).toMatchObject({ state: "waiting", position: 1 });
    clock.t = t0 + 3_000 + RESEAT_WINDOW_MS;
    const now = await send(d, "GET", `${queue}/me`, session(after));
    expect(now.body).toMatchObject({ state: "admitted", position: 1 });
    expect(now.body.generation).not.toBe(old.body.generation);

    // The token from before the loss names place 1 too, but of the lost generation: 403 `admission_queue_restarted`
    // (not "your turn has ended": the fan did nothing; its queue ticket re-seats it).
    await expect(holdForFan(db(), { eventId, fanId: before.id, request: { kind: "seats", ordinals: [7] }, admissionToken: oldToken })).rejects.toMatchObject({
      status: 403,
      code: "admission_queue_restarted",
      message: expect.stringMatching(/waiting room was restarted.*place is kept/),
    });
    // The new place 1's own token holds.
    await expect(holdForFan(db(), { eventId, fanId: after.id, request: { kind: "seats", ordinals: [7] }, admissionToken: now.cookies[admissionCookieName(eventId)]! })).resolves.toMatchObject({
      seats: [{ ordinal: 7 }],
    });
  });

  it("lets a fan who held a place back in within a minute of Redis coming back empty, ahead of fans who joined after it, though its page comes back last", async () => {
    const t0 = Date.now();
    const clock = { t: t0 };
    const { eventId } = await makeStudioShow(db(), { onSaleAt: new Date(t0 - 60_000), startsAt: new Date(t0 + 24 * HOUR), admissionRatePerMinute: 60, activeCap: 100 });
    const d = createDoor({ store: appRoomStore(db()), secret: env().BETTER_AUTH_SECRET, origins: [ORIGIN], secureCookies: false, now: () => clock.t, queueNow: () => clock.t });
    const queue = `/api/events/${eventId}/queue`;
    const ticketName = queueTicketCookieName(eventId);
    const [old, fresh] = [fans[16]!, fans[17]!];
    await send(d, "GET", queue, "");
    const joined = await send(d, "POST", queue, session(old));
    expect(joined.body).toMatchObject({ state: "waiting", position: 1, ahead: 0 });

    await redis().del(...queueKeys(eventId)); // Redis comes back empty before the fan's turn

    // A fan joins the new queue a second later and keeps asking; the old fan's page is backing off (503s) and comes back 30 s later.
    clock.t = t0 + 1_000;
    const f = await send(d, "POST", queue, session(fresh));
    expect(f.body).toMatchObject({ state: "waiting", position: 1 });
    const freshMe = async () => (await send(d, "GET", `${queue}/me`, `${session(fresh)}; ${ticketName}=${f.cookies[ticketName]}`)).body;
    for (const at of [2_000, 10_000, 30_000]) {
      clock.t = t0 + at;
      expect(await freshMe()).toMatchObject({ state: "waiting", position: 1 });
    }
    clock.t = t0 + 31_000;
    const back = await send(d, "GET", `${queue}/me`, `${session(old)}; ${ticketName}=${joined.cookies[ticketName]}`);
    expect(back.body).toMatchObject({ state: "waiting", ahead: 0 });
    expect(back.body.position).toBeLessThan(0);
    clock.t = t0 + 31_300; // past the door's 250-ms memo of the public status
    expect(await freshMe()).toMatchObject({ state: "waiting", ahead: 1 });
    clock.t = t0 + 32_000;
    expect((await send(d, "GET", `${queue}/me`, `${session(old)}; ${ticketName}=${back.cookies[ticketName]}`)).body).toMatchObject({ state: "admitted" });
    expect(await freshMe()).toMatchObject({ state: "waiting" });
    // The window ends 45 s after the new generation was made (t0 + 1 s): then the fans who joined after the loss go in.
    clock.t = t0 + 1_000 + RESEAT_WINDOW_MS;
    expect(await freshMe()).toMatchObject({ state: "admitted", position: 1 });
    const st = await redis().hgetall<Record<string, string>>(queueStateKey(eventId));
    expect(Number(st!.backUntil)).toBe(t0 + 1_000 + RESEAT_WINDOW_MS);
  });

  it("holds no one when a queue is first used after its on-sale: no earlier generation, no window", async () => {
    const t0 = Date.now();
    const clock = { t: t0 };
    const { eventId } = await makeStudioShow(db(), { onSaleAt: new Date(t0 - 60_000), startsAt: new Date(t0 + 24 * HOUR), admissionRatePerMinute: 60, activeCap: 100 });
    const d = createDoor({ store: appRoomStore(db()), secret: env().BETTER_AUTH_SECRET, origins: [ORIGIN], secureCookies: false, now: () => clock.t, queueNow: () => clock.t });
    const queue = `/api/events/${eventId}/queue`;
    expect((await send(d, "POST", queue, session(fans[18]!))).body).toMatchObject({ state: "waiting", position: 1 });
    clock.t = t0 + 1_000;
    expect((await send(d, "GET", `${queue}/me`, session(fans[18]!))).body).toMatchObject({ state: "admitted", position: 1 });
    expect(await redis().hget(queueStateKey(eventId), "backUntil")).toBeNull();
  });

  it("gives back places Redis lost while it kept the queue (the last second's writes): a lost number beyond the end is the fan's again, one another fan took since comes when the counter reaches it", async () => {
    const t0 = Date.now();
    const clock = { t: t0 };
    const { eventId } = await makeStudioShow(db(), { onSaleAt: new Date(t0 - 60_000), startsAt: new Date(t0 + 24 * HOUR), admissionRatePerMinute: 60, activeCap: 100 });
    const d = createDoor({ store: appRoomStore(db()), secret: env().BETTER_AUTH_SECRET, origins: [ORIGIN], secureCookies: false, now: () => clock.t, queueNow: () => clock.t });
    const queue = `/api/events/${eventId}/queue`;
    const ticketName = queueTicketCookieName(eventId);
    const [a, b, c, dd, e, f, g] = fans.slice(16, 23) as [SimFan, SimFan, SimFan, SimFan, SimFan, SimFan, SimFan];
    const tickets = new Map<SimFan, string>();
    const join = async (x: SimFan) => {
      const r = await send(d, "POST", queue, session(x));
      tickets.set(x, r.cookies[ticketName]!);
      return r.body;
    };
    const me = async (x: SimFan) => {
      const r = await send(d, "GET", `${queue}/me`, `${session(x)}; ${ticketName}=${tickets.get(x)}`);
      if (r.cookies[ticketName]) tickets.set(x, r.cookies[ticketName]);
      return r.body;
    };
    await send(d, "GET", queue, "");
    for (const [i, x] of [a, b, c].entries()) expect(await join(x)).toMatchObject({ position: i + 1 });
    // What survives: the queue as it was after the first three joins (AOF everysec: the last second is lost).
    const [cfgKey, , posKey, stKey] = queueKeys(eventId) as [string, string, string, string];
    const kept = { cfg: (await redis().hgetall(cfgKey))!, pos: (await redis().hgetall(posKey))!, st: (await redis().hgetall(stKey))! };
    const generation = String(kept.st.gen);
    expect(await join(dd)).toMatchObject({ position: 4 });
    expect(await join(e)).toMatchObject({ position: 5 });
    await redis().del(...queueKeys(eventId));
    await redis().hset(cfgKey, kept.cfg);
    await redis().hset(posKey, kept.pos);
    await redis().hset(stKey, kept.st);

    // The generation survived; a fan joining now is given the lost number 4.
    clock.t = t0 + 300;
    expect(await join(f)).toMatchObject({ position: 4, generation });
    // Number 5 is beyond the queue's end: asking gives it back to its fan, and the next joiner comes after it.
    clock.t = t0 + 600;
    expect(await me(e)).toMatchObject({ state: "waiting", position: 5 });
    clock.t = t0 + 700;
    expect(await join(g)).toMatchObject({ state: "waiting", position: 6 });
    // Number 4 is another fan's now: the fan who lost it waits for the counter to reach it.
    clock.t = t0 + 800;
    expect(await me(dd)).toMatchObject({ state: "waiting", position: 4 });

    // One admission a second: 1, 2, 3, the new 4, then the fan who lost 4 (re-seated at the front), then 5, then 6.
    const order: SimFan[] = [];
    for (let s = 1; s <= 8; s++) {
      clock.t = t0 + s * 1_000;
      for (const x of [a, b, c, f, dd, e, g]) if (!order.includes(x) && (await me(x)).state === "admitted") order.push(x);
    }
    expect(order.map((x) => [a, b, c, dd, e, f, g].indexOf(x))).toEqual([0, 1, 2, 5, 3, 4, 6]);
  });

  it("re-seats a pre-queue fan whose page slept through the loss and shows its ticket after the on-sale: in its draw's order, ahead of fans who joined after the loss", async () => {
    const t0 = Date.now();
    const clock = { t: t0 };
    const onSaleAt = t0 + 60_000;
    const { eventId } = await makeStudioShow(db(), { onSaleAt: new Date(onSaleAt), startsAt: new Date(t0 + 24 * HOUR), admissionRatePerMinute: 60, activeCap: 100 });
    const d = createDoor({ store: appRoomStore(db()), secret: env().BETTER_AUTH_SECRET, origins: [ORIGIN], secureCookies: false, now: () => clock.t, queueNow: () => clock.t });
    const queue = `/api/events/${eventId}/queue`;
    const ticketName = queueTicketCookieName(eventId);
    const [x, y, late] = [fans[19]!, fans[20]!, fans[21]!];
    const jx = await send(d, "POST", queue, session(x));
    const jy = await send(d, "POST", queue, session(y));
    expect([jx.body.state, jy.body.state]).toEqual(["pre", "pre"]);

    await redis().del(...queueKeys(eventId));

    // Just after the on-sale a fan joins the new queue; the pre-queue fans' pages wake (on-sale + ≤ 2 s) and show their tickets.
    clock.t = onSaleAt + 100;
    expect((await send(d, "POST", queue, session(late))).body).toMatchObject({ state: "waiting", position: 1 });
    clock.t = onSaleAt + 1_500;
    const rx = await send(d, "GET", `${queue}/me`, `${session(x)}; ${ticketName}=${jx.cookies[ticketName]}`);
    const ry = await send(d, "GET", `${queue}/me`, `${session(y)}; ${ticketName}=${jy.cookies[ticketName]}`);
    expect([rx.body.position, ry.body.position].every((p) => (p as number) < 0)).toBe(true);
    // The lower draw first, whichever page came back first.
    const [first, second] = (jx.body.draw as number) < (jy.body.draw as number) ? [{ fan: x, r: rx }, { fan: y, r: ry }] : [{ fan: y, r: ry }, { fan: x, r: rx }];
    const me = async (who: { fan: SimFan; r: typeof rx } | SimFan) =>
      "r" in who ? (await send(d, "GET", `${queue}/me`, `${session(who.fan)}; ${ticketName}=${who.r.cookies[ticketName]}`)).body : (await send(d, "GET", `${queue}/me`, session(who))).body;
    expect([await me(first), await me(second)]).toMatchObject([
      { state: "waiting", ahead: 0, draw: null },
      { state: "waiting", ahead: 1 },
    ]);
    clock.t = onSaleAt + 2_500;
    expect([(await me(first)).state, (await me(second)).state, (await me(late)).state]).toEqual(["admitted", "waiting", "waiting"]);
    clock.t = onSaleAt + 3_500;
    expect([(await me(second)).state, (await me(late)).state]).toEqual(["admitted", "waiting"]);
  });

  it("draws a pre-queue fan's place once per on-sale: joining afresh after a loss (or without the cookie) draws the same", async () => {
    const t0 = Date.now();
    const clock = { t: t0 };
    const onSaleAt = t0 + 60_000;
    const { eventId } = await makeStudioShow(db(), { onSaleAt: new Date(onSaleAt), startsAt: new Date(t0 + 24 * HOUR), admissionRatePerMinute: 60, activeCap: 100 });
    const other = await makeStudioShow(db(), { onSaleAt: new Date(onSaleAt), startsAt: new Date(t0 + 24 * HOUR) });
    const d = createDoor({ store: appRoomStore(db()), secret: env().BETTER_AUTH_SECRET, origins: [ORIGIN], secureCookies: false, now: () => clock.t, queueNow: () => clock.t });
    const fan = fans[22]!;
    const first = await send(d, "POST", `/api/events/${eventId}/queue`, session(fan));
    expect(first.body.state).toBe("pre");
    await redis().del(...queueKeys(eventId));
    const again = await send(d, "POST", `/api/events/${eventId}/queue`, session(fan));
    expect(again.body).toMatchObject({ state: "pre", draw: first.body.draw });
    // Another fan, or another show, draws otherwise.
    expect((await send(d, "POST", `/api/events/${eventId}/queue`, session(fans[23]!))).body.draw).not.toBe(first.body.draw);
    expect((await send(d, "POST", `/api/events/${other.eventId}/queue`, session(fan))).body.draw).not.toBe(first.body.draw);
  });
});
