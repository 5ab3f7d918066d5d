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
import { appRoomStore } from "@/lib/waiting-room/queue";
import { issueQueueTicket, queueTicketCookieName } from "@/lib/waiting-room/ticket";
import { admissionCookieName, verifyAdmissionToken } from "@/lib/waiting-room/token";

const ORIGIN = "http://127.0.0.1:3000";
const HOUR = 3_600_000;
let fans: SimFan[];

beforeAll(async () => {
  fans = await createFansWithSessions(db(), 16, { secret: env().BETTER_AUTH_SECRET, runTag: `reseat${Date.now().toString(36)}` });
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
    // The token of the turn lost with Redis holds nothing (403): its fan was seated again through the queue instead.
    await expect(holdForFan(db(), { eventId, fanId: fans[0]!.id, request: { kind: "seats", ordinals: [6] }, admissionToken: first.cookies[admissionCookieName(eventId)]! })).rejects.toMatchObject({
      status: 403,
      code: "admission_slot_ended",
    });
    clock.t = t0 + 6_000;
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
    clock.t = t0 + 3_000;
    const now = await send(d, "GET", `${queue}/me`, session(after));
    expect(now.body).toMatchObject({ state: "admitted", position: 1 });
    expect(now.body.generation).not.toBe(old.body.generation);

    // The token from before the loss names place 1 too, but of the lost generation: 403, as for an ended turn.
    await expect(holdForFan(db(), { eventId, fanId: before.id, request: { kind: "seats", ordinals: [7] }, admissionToken: oldToken })).rejects.toMatchObject({
      status: 403,
      code: "admission_slot_ended",
    });
    // The new place 1's own token holds.
    await expect(holdForFan(db(), { eventId, fanId: after.id, request: { kind: "seats", ordinals: [7] }, admissionToken: now.cookies[admissionCookieName(eventId)]! })).resolves.toMatchObject({
      seats: [{ ordinal: 7 }],
    });
  });
});
