/**
 * Queue tickets (lib/waiting-room/ticket.ts): answered from the cookie only while that is certain,
 * never after the on-sale moved or in another generation of the queue (Redis lost it: the ticket
 * is then the proof a fan is re-seated by); a ticket verified once is remembered, and that never lets a
 * tampered, foreign-secret, other fan's or other event's, or too old ticket through.
 */
import { describe, expect, it } from "vitest";
import type { PublicQueueStatus } from "@/lib/waiting-room/room";
import { DRAW_RANGE } from "@/lib/waiting-room/draw";
import { issueQueueTicket, QUEUE_TICKET_TTL_MS, readQueueTicket, reseatProof, statusFromTicket } from "@/lib/waiting-room/ticket";

const SECRET = "a-test-secret-that-is-long-enough-000000";
const pub = (onSaleAt: number, servingCounter = 0, more: Partial<PublicQueueStatus> = {}): PublicQueueStatus =>
  ({ servingCounter, queueLength: 10, ratePerMinute: 60, paused: false, onSaleAt, preQueueSize: 5, generation: "g1", returning: 0, ...more }) as PublicQueueStatus;

describe("queue tickets", () => {
  it("round-trip with the on-sale they were issued for", () => {
    const value = issueQueueTicket({ eventId: "evt_1", fanId: "usr_1", position: 0, draw: 0.25, issuedAt: 1_000, onSaleAt: 60_000, generation: "g1" }, SECRET);
    expect(readQueueTicket(value, SECRET, { eventId: "evt_1", fanId: "usr_1", now: 2_000 })).toEqual({ eventId: "evt_1", fanId: "usr_1", position: 0, draw: 0.25, issuedAt: 1_000, onSaleAt: 60_000, generation: "g1" });
    const reseated = issueQueueTicket({ eventId: "evt_1", fanId: "usr_1", position: -2, draw: null, issuedAt: 1_000, onSaleAt: 60_000, generation: "g2", order: DRAW_RANGE + 6 }, SECRET);
    expect(readQueueTicket(reseated, SECRET, { eventId: "evt_1", fanId: "usr_1", now: 2_000 })).toMatchObject({ position: -2, generation: "g2", order: DRAW_RANGE + 6 });
  });

  it("answer 'pre' before the on-sale they name, and ask Redis once the on-sale has moved", () => {
    const ticket = { eventId: "evt_1", fanId: "usr_1", position: 0, draw: 0.25, issuedAt: 1_000, onSaleAt: 60_000, generation: "g1" };
    expect(statusFromTicket(ticket, { ...pub(60_000), now: 2_000 })?.state).toBe("pre");
    // npm run demo:reset moved the on-sale and emptied the room: this place no longer exists.
    expect(statusFromTicket(ticket, { ...pub(300_000), now: 2_000 })).toBeNull();
  });

  it("answer 'waiting' behind the serving counter, counting the re-seated fans let in before it", () => {
    const ticket = { eventId: "evt_1", fanId: "usr_1", position: 7, draw: null, issuedAt: 1_000, onSaleAt: 60_000, generation: "g1" };
    expect(statusFromTicket(ticket, { ...pub(60_000, 3), now: 70_000 })).toMatchObject({ state: "waiting", position: 7, ahead: 3, generation: "g1" });
    expect(statusFromTicket(ticket, { ...pub(60_000, 3, { returning: 2 }), now: 70_000 })).toMatchObject({ state: "waiting", position: 7, ahead: 5 });
    expect(statusFromTicket(ticket, { ...pub(60_000, 7), now: 70_000 })).toBeNull();
  });

  it("ask Redis in another generation of the queue, for a re-seated place, and for tickets issued before generations were recorded", () => {
    const ticket = { eventId: "evt_1", fanId: "usr_1", position: 7, draw: null, issuedAt: 1_000, onSaleAt: 60_000, generation: "g1" };
    expect(statusFromTicket(ticket, { ...pub(60_000, 3, { generation: "g2" }), now: 70_000 })).toBeNull();
    expect(statusFromTicket({ ...ticket, position: -3, generation: "g2" }, { ...pub(60_000, 3, { generation: "g2" }), now: 70_000 })).toBeNull();
    expect(statusFromTicket({ eventId: "evt_1", fanId: "usr_1", position: 7, draw: null, issuedAt: 1_000, onSaleAt: 60_000 }, { ...pub(60_000, 3), now: 70_000 })).toBeNull();
  });

  it("prove the order a lost place is re-seated by: a pre-queue draw ahead of every later joiner's position", () => {
    const base = { eventId: "evt_1", fanId: "usr_1", issuedAt: 1_000, onSaleAt: 60_000, generation: "g1" };
    expect(reseatProof({ ...base, position: 0, draw: 12_345 })).toEqual({ generation: "g1", order: 12_345, onSaleAt: 60_000, position: 0 });
    expect(reseatProof({ ...base, position: 4, draw: DRAW_RANGE - 1 })).toEqual({ generation: "g1", order: DRAW_RANGE - 1, onSaleAt: 60_000, position: 4 });
    expect(reseatProof({ ...base, position: 1, draw: null })).toEqual({ generation: "g1", order: DRAW_RANGE + 1, onSaleAt: 60_000, position: 1 });
    // A re-seated place keeps the order it was re-seated by.
    expect(reseatProof({ ...base, position: -2, draw: null, order: DRAW_RANGE + 6 })).toEqual({ generation: "g1", order: DRAW_RANGE + 6, onSaleAt: 60_000, position: -2 });
    // No place proven: not in the queue, or no generation / on-sale on the ticket.
    expect(reseatProof({ ...base, position: 0, draw: null })).toBeNull();
    expect(reseatProof({ eventId: "evt_1", fanId: "usr_1", issuedAt: 1_000, onSaleAt: 60_000, position: 7, draw: null })).toBeNull();
    expect(reseatProof({ eventId: "evt_1", fanId: "usr_1", issuedAt: 1_000, generation: "g1", position: 7, draw: null })).toBeNull();
  });
});

describe("verified tickets, remembered", () => {
  it("still refuse anything but the exact ticket, and a ticket past its age", () => {
    const ticket = { eventId: "evt_memo", fanId: "usr_memo", position: 42, draw: null, issuedAt: 1_000, onSaleAt: 500 };
    const value = issueQueueTicket(ticket, SECRET);
    const expected = { eventId: "evt_memo", fanId: "usr_memo", now: 2_000 };
    const read = readQueueTicket(value, SECRET, expected);
    expect(read).toEqual(ticket);
    expect(readQueueTicket(value, SECRET, expected)).toEqual(ticket); // from memory
    expect(Object.isFrozen(read)).toBe(true);

    // Another position in the same signature's payload, and the signature of another payload.
    const [payload, signature] = value.split(".") as [string, string];
    const forgedPayload = Buffer.from(Buffer.from(payload, "base64url").toString().replace('"p":42', '"p":1')).toString("base64url");
    expect(readQueueTicket(`${forgedPayload}.${signature}`, SECRET, expected)).toBeNull();
    const other = issueQueueTicket({ ...ticket, position: 1 }, SECRET);
    expect(readQueueTicket(`${payload}.${other.split(".")[1]}`, SECRET, expected)).toBeNull();
    // The remembered ticket under another secret, for another fan or event, and once too old.
    expect(readQueueTicket(value, "another-secret-that-is-long-enough-0000", expected)).toBeNull();
    expect(readQueueTicket(value, SECRET, { ...expected, fanId: "usr_other" })).toBeNull();
    expect(readQueueTicket(value, SECRET, { ...expected, eventId: "evt_other" })).toBeNull();
    expect(readQueueTicket(value, SECRET, { ...expected, now: 1_000 + QUEUE_TICKET_TTL_MS + 1 })).toBeNull();
    expect(readQueueTicket(value, SECRET, expected)).toEqual(ticket);
  });
});
