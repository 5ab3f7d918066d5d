/**
 * The door (lib/door/handler.ts) against the real Redis and Postgres, through its
 * `Request → Response` interface exactly as both deployments call it, with an injected clock:
 * one position per fan under concurrent joins, retries answered from the queue ticket
 * without a Redis write, a turn that came always asked about in Redis, the join limit
 * inside the join's own Redis call, and the same refusals as every other route; and, on real
 * time, that doors whose clocks are 30 s ahead and behind admit, time and free slots by Redis's.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, db } from "@/lib/db";
import { createDoor, DOOR_LIMITS, type Door } from "@/lib/door/handler";
import { CLIENT_IP_HEADER } from "@/lib/client-ip";
import { env } from "@/lib/env";
import { redisNowMs } from "@/lib/clock";
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
  fans = await createFansWithSessions(db(), 400, { secret: env().BETTER_AUTH_SECRET, runTag: `door${Date.now().toString(36)}` });
});
afterAll(async () => {
  await closeDb();
  await closeRedis();
});

/** A door on the app's store with a clock the test moves (its own, and the queue's simulated Redis clock). */
function door(clock: { t: number }): Door {
  return createDoor({ store: appRoomStore(db()), secret: env().BETTER_AUTH_SECRET, origins: [ORIGIN], secureCookies: false, now: () => clock.t, queueNow: () => clock.t });
}

const session = (f: SimFan) => `better-auth.session_token=${f.sessionCookie}; better-auth.session_data=${f.sessionDataCookie}`;

/** Sends one request; returns status, JSON body, the cookies set (name → value) and the Server-Timing parts (ms). */
async function send(d: Door, method: string, path: string, opts: { cookie?: string; ip?: string; origin?: string | null } = {}) {
  const headers = new Headers({ [CLIENT_IP_HEADER]: opts.ip ?? "192.0.2.1" });
  if (opts.cookie) headers.set("cookie", opts.cookie);
  if (opts.origin !== null) headers.set("origin", opts.origin ?? ORIGIN);
  const res = (await d(new Request(`http://127.0.0.1:3000${path}`, { method, headers })))!;
  const cookies = Object.fromEntries(res.headers.getSetCookie().map((c) => c.split(";")[0]!.split(/=(.*)/s).slice(0, 2) as [string, string]));
  const timing = Object.fromEntries([...(res.headers.get("server-timing") ?? "").matchAll(/(\w+);dur=([\d.]+)/g)].map((m) => [m[1]!, Number(m[2])]));
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, cookies, timing, retryAfter: res.headers.get("retry-after"), headers: res.headers };
}

/** Joins after the on-sale recorded in Redis (the `tail` counter the JOIN script increments). */
async function tailOf(eventId: string): Promise<number> {
  return Number((await redis().hget(queueKeys(eventId)[3]!, "tail")) ?? 0);
}

describe("the door", () => {
  it("gives 300 fans joining at once 300 distinct places; their retries are answered from the ticket with no Redis write", async () => {
    const clock = { t: Date.now() };
    const { eventId } = await makeStudioShow(db(), { onSaleAt: new Date(clock.t - 60_000), startsAt: new Date(clock.t + 24 * HOUR) });
    const d = door(clock);
    await send(d, "GET", `/api/events/${eventId}/queue`, { origin: null }); // loads the configuration into Redis
    await redis().hset(queueKeys(eventId)[0]!, { rate: 1 }); // 1 fan a minute: nobody's turn comes during the test
    const group = fans.slice(0, 300);
    const first = await Promise.all(group.map((f, i) => send(d, "POST", `/api/events/${eventId}/queue`, { cookie: session(f), ip: `198.51.100.${i % 250}` })));
    expect(first.every((r) => r.status === 200)).toBe(true);
    const positions = first.map((r) => r.body.position as number).sort((a, b) => a - b);
    expect(positions).toEqual(Array.from({ length: 300 }, (_, k) => k + 1));
    expect(await tailOf(eventId)).toBe(300);

    const ticketName = queueTicketCookieName(eventId);
    expect(first.every((r) => typeof r.cookies[ticketName] === "string")).toBe(true);
    const retries = await Promise.all(
      group.map((f, i) => send(d, "POST", `/api/events/${eventId}/queue`, { cookie: `${session(f)}; ${ticketName}=${first[i]!.cookies[ticketName]}`, ip: "203.0.113.9" })),
    );
    // Same answers, no new joins in Redis, and no new ticket needed (the place did not change).
    expect(retries.map((r) => [r.status, r.body.state, r.body.position])).toEqual(first.map((r) => [200, "waiting", r.body.position]));
    expect(await tailOf(eventId)).toBe(300);
    expect(retries.every((r) => r.cookies[ticketName] === undefined)).toBe(true);
    // One address sent 300 retries: the join limit (10 per 10 s) was never consulted, since no join reached Redis.
    expect(retries.some((r) => r.status === 429)).toBe(false);
  });

  it("answers a pre-queue fan from its ticket before the on-sale, and asks Redis once its turn may have come", async () => {
    const clock = { t: Date.now() };
    const onSaleAt = clock.t + 60_000;
    const { eventId } = await makeStudioShow(db(), { onSaleAt: new Date(onSaleAt), startsAt: new Date(onSaleAt + 24 * HOUR) });
    const d = door(clock);
    const fan = fans[300]!;
    const joined = await send(d, "POST", `/api/events/${eventId}/queue`, { cookie: session(fan) });
    expect(joined.body).toMatchObject({ state: "pre", position: 0 });
    const draw = joined.body.draw as number;
    expect(Number.isInteger(draw)).toBe(true);
    const ticket = `${queueTicketCookieName(eventId)}=${joined.cookies[queueTicketCookieName(eventId)]}`;
    const again = await send(d, "GET", `/api/events/${eventId}/queue/me`, { cookie: `${session(fan)}; ${ticket}` });
    expect(again.body).toMatchObject({ state: "pre", draw, etaSeconds: 60 });

    // After the on-sale the fan is the only one in the pre-queue: its turn comes with the first admission.
    clock.t = onSaleAt + 5_000;
    const turn = await send(d, "GET", `/api/events/${eventId}/queue/me`, { cookie: `${session(fan)}; ${ticket}` });
    expect(turn.body).toMatchObject({ state: "admitted", position: 1 });
    await expect(verifyAdmissionToken(turn.body.admissionToken as string, { fanId: fan.id, eventId, now: clock.t })).resolves.toEqual({ position: 1, generation: turn.body.generation });
    expect(turn.timing.redis).toBeGreaterThan(0);
    // Both cookies in one answer: the admission token for the hold path, and the ticket for the new place.
    expect(turn.cookies[admissionCookieName(eventId)]).toBe(turn.body.admissionToken);
    expect(turn.cookies[queueTicketCookieName(eventId)]).toBeTruthy();
    expect(turn.headers.get("content-type")).toBe("application/json");
    expect(turn.headers.get("cache-control")).toBe("private, no-store");
  });

  it("never takes another fan's or another event's ticket: the answer comes from Redis", async () => {
    const clock = { t: Date.now() };
    const { eventId } = await makeStudioShow(db(), { onSaleAt: new Date(clock.t - 60_000), startsAt: new Date(clock.t + 24 * HOUR) });
    const d = door(clock);
    await send(d, "GET", `/api/events/${eventId}/queue`, { origin: null });
    await redis().hset(queueKeys(eventId)[0]!, { rate: 1 });
    const [a, b] = [fans[301]!, fans[302]!];
    // b presents a ticket signed for a, claiming place 1: b still joins at the back.
    await send(d, "POST", `/api/events/${eventId}/queue`, { cookie: session(a) });
    const stolen = issueQueueTicket({ eventId, fanId: a.id, position: 1, draw: null, issuedAt: clock.t }, env().BETTER_AUTH_SECRET);
    const r = await send(d, "POST", `/api/events/${eventId}/queue`, { cookie: `${session(b)}; ${queueTicketCookieName(eventId)}=${stolen}` });
    expect(r.body).toMatchObject({ state: "waiting", position: 2 });
    const forged = issueQueueTicket({ eventId, fanId: b.id, position: 1, draw: null, issuedAt: clock.t }, "another-secret-that-is-long-enough-000");
    const r2 = await send(d, "GET", `/api/events/${eventId}/queue/me`, { cookie: `${session(b)}; ${queueTicketCookieName(eventId)}=${forged}` });
    expect(r2.body).toMatchObject({ state: "waiting", position: 2 });
  });

  it("limits joins per address inside the join's own Redis call, and public status reads per address", async () => {
    const clock = { t: Date.now() };
    const { eventId } = await makeStudioShow(db(), { onSaleAt: new Date(clock.t - 60_000), startsAt: new Date(clock.t + 24 * HOUR) });
    const d = door(clock);
    const group = fans.slice(310, 310 + DOOR_LIMITS.join.max + 1);
    const answers = [];
    for (const f of group) answers.push(await send(d, "POST", `/api/events/${eventId}/queue`, { cookie: session(f), ip: "192.0.2.77" }));
    expect(answers.map((r) => r.status)).toEqual([...Array(DOOR_LIMITS.join.max).fill(200), 429]);
    expect(answers.at(-1)!.body.code).toBe("rate_limited");
    expect(Number(answers.at(-1)!.retryAfter)).toBeGreaterThanOrEqual(1);
    // Another address is not affected.
    expect((await send(d, "POST", `/api/events/${eventId}/queue`, { cookie: session(group.at(-1)!), ip: "192.0.2.78" })).status).toBe(200);

    const first = await send(d, "GET", `/api/events/${eventId}/queue`, { ip: "192.0.2.79", origin: null });
    expect(first.headers.get("content-type")).toBe("application/json");
    expect(first.headers.get("cache-control")).toBe("public, max-age=0, s-maxage=1, stale-while-revalidate=2");
    expect(first.timing.total).toBeGreaterThanOrEqual(0);
    const reads = [first.status];
    for (let k = 1; k <= DOOR_LIMITS.status.max; k++) reads.push((await send(d, "GET", `/api/events/${eventId}/queue`, { ip: "192.0.2.79", origin: null })).status);
    expect(reads.filter((s) => s === 200)).toHaveLength(DOOR_LIMITS.status.max);
    expect(reads.at(-1)).toBe(429);
    clock.t += DOOR_LIMITS.status.windowMs;
    expect((await send(d, "GET", `/api/events/${eventId}/queue`, { ip: "192.0.2.79", origin: null })).status).toBe(200);
  });

  it("refuses what every route refuses, with a code and a message", async () => {
    const clock = { t: Date.now() };
    const { eventId } = await makeStudioShow(db(), { onSaleAt: new Date(clock.t - 60_000), startsAt: new Date(clock.t + 24 * HOUR) });
    const d = door(clock);
    const fan = fans[399]!;
    expect(await send(d, "POST", `/api/events/${eventId}/queue`, { cookie: session(fan), origin: "http://evil.example" })).toMatchObject({ status: 403, body: { code: "cross_origin" } });
    expect(await send(d, "DELETE", `/api/events/${eventId}/queue/me`, { cookie: session(fan), origin: "http://evil.example" })).toMatchObject({ status: 403 });
    expect(await send(d, "POST", `/api/events/${eventId}/queue`, {})).toMatchObject({ status: 401, body: { code: "sign_in_required" } });
    expect(await send(d, "POST", `/api/events/evt_%ZZ/queue`, { cookie: session(fan) })).toMatchObject({ status: 400, body: { code: "invalid_input" } });
    expect(await send(d, "PUT", `/api/events/${eventId}/queue`, { cookie: session(fan) })).toMatchObject({ status: 405, body: { code: "method_not_allowed" } });
    expect(await send(d, "POST", `/api/events/${eventId}/queue?rejoin=yes`, { cookie: session(fan) })).toMatchObject({ status: 400, body: { field: "rejoin" } });
    expect(await d(new Request("http://127.0.0.1:3000/api/events"))).toBeNull();
    const left = await send(d, "DELETE", `/api/events/${eventId}/queue/me`, { cookie: session(fan) });
    expect(left).toMatchObject({ status: 200, body: { left: true, freedSlot: false } });
  });

  it("admits, times and frees slots by Redis's clock whatever the door's own clock says (30 s ahead or behind)", async () => {
    const { eventId } = await makeStudioShow(db(), { onSaleAt: new Date(Date.now() - 60_000), admissionRatePerMinute: 60, activeCap: 100 });
    // Two doors on real time, no simulated queue clock: one 30 s ahead, one 30 s behind.
    const ahead = createDoor({ store: appRoomStore(db()), secret: env().BETTER_AUTH_SECRET, origins: [ORIGIN], secureCookies: false, now: () => Date.now() + 30_000 });
    const behind = createDoor({ store: appRoomStore(db()), secret: env().BETTER_AUTH_SECRET, origins: [ORIGIN], secureCookies: false, now: () => Date.now() - 30_000 });
    const queue = `/api/events/${eventId}/queue`;
    await send(behind, "GET", queue, { origin: null }); // the configuration into Redis
    await redis().hset(queueKeys(eventId)[0]!, { ttl: 2_000 }); // 2-s turns: a slot's end within the test
    const group = fans.slice(330, 335);
    for (const f of group) expect((await send(behind, "POST", queue, { cookie: session(f) })).body).toMatchObject({ state: "waiting" });

    // Read through the door 30 s ahead a moment later: by Redis's clock no time has passed, so
    // nobody is let in (with the door's clock, the 60 s between the two doors' clocks let all 5 in).
    const pub = await send(ahead, "GET", queue, { origin: null });
    expect(pub.body.servingCounter).toBe(0);
    expect(Math.abs((pub.body.now as number) - (await redisNowMs()))).toBeLessThan(1_000);

    // A second later, one admission (60 a minute); its slot ends 2 s after it by Redis's clock.
    await new Promise((r) => setTimeout(r, 1_100));
    const first = await send(ahead, "GET", `${queue}/me`, { cookie: session(group[0]!) });
    expect(first.body).toMatchObject({ state: "admitted", position: 1, servingCounter: 1 });
    const until = first.body.admittedUntil as number;
    expect(Math.abs(until - ((await redisNowMs()) + 2_000))).toBeLessThan(500);
    // The door 30 s ahead does not end it early…
    expect((await send(ahead, "GET", `${queue}/me`, { cookie: session(group[0]!) })).body).toMatchObject({ state: "admitted", admittedUntil: until });
    // …and the door 30 s behind does not keep it past its end.
    while ((await redisNowMs()) <= until) await new Promise((r) => setTimeout(r, until + 20 - Date.now()));
    expect((await send(behind, "GET", `${queue}/me`, { cookie: session(group[0]!) })).body).toMatchObject({ state: "expired" });
    // Every place let in since is still in its turn; place 1's has ended.
    const after = (await send(behind, "GET", queue, { origin: null })).body;
    expect(after.servingCounter).toBeGreaterThanOrEqual(2);
    expect(after.active).toBe((after.servingCounter as number) - 1);

    // The on-sale too: 20 s before it by Redis's clock, a join through the door 30 s ahead goes into the pre-queue.
    const soon = await makeStudioShow(db(), { onSaleAt: new Date(Date.now() + 20_000) });
    const pre = await send(ahead, "POST", `/api/events/${soon.eventId}/queue`, { cookie: session(group[1]!) });
    expect(pre.body).toMatchObject({ state: "pre", position: 0 });
    expect(pre.body.etaSeconds).toBeGreaterThan(15);
  });
});
