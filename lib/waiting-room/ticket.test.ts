/** Queue tickets (lib/waiting-room/ticket.ts): answered from the cookie only while that is certain, never after the on-sale moved. */
import { describe, expect, it } from "vitest";
import type { PublicQueueStatus } from "@/lib/waiting-room/room";
import { issueQueueTicket, readQueueTicket, statusFromTicket } from "@/lib/waiting-room/ticket";

const SECRET = "a-test-secret-that-is-long-enough-000000";
const pub = (onSaleAt: number, servingCounter = 0): PublicQueueStatus =>
  ({ servingCounter, queueLength: 10, ratePerMinute: 60, paused: false, onSaleAt, preQueueSize: 5 }) as PublicQueueStatus;

describe("queue tickets", () => {
  it("round-trip with the on-sale they were issued for", () => {
    const value = issueQueueTicket({ eventId: "evt_1", fanId: "usr_1", position: 0, draw: 0.25, issuedAt: 1_000, onSaleAt: 60_000 }, SECRET);
    expect(readQueueTicket(value, SECRET, { eventId: "evt_1", fanId: "usr_1", now: 2_000 })).toEqual({ eventId: "evt_1", fanId: "usr_1", position: 0, draw: 0.25, issuedAt: 1_000, onSaleAt: 60_000 });
  });

  it("answer 'pre' before the on-sale they name, and ask Redis once the on-sale has moved", () => {
    const ticket = { eventId: "evt_1", fanId: "usr_1", position: 0, draw: 0.25, issuedAt: 1_000, onSaleAt: 60_000 };
    expect(statusFromTicket(ticket, pub(60_000), 2_000)?.state).toBe("pre");
    // npm run demo:reset moved the on-sale and emptied the room: this place no longer exists.
    expect(statusFromTicket(ticket, pub(300_000), 2_000)).toBeNull();
  });

  it("still answer 'waiting' behind the serving counter for tickets without an on-sale (issued before it was recorded)", () => {
    const old = { eventId: "evt_1", fanId: "usr_1", position: 7, draw: null, issuedAt: 1_000 };
    expect(statusFromTicket(old, pub(60_000, 3), 70_000)).toMatchObject({ state: "waiting", position: 7, ahead: 3 });
    expect(statusFromTicket(old, pub(60_000, 7), 70_000)).toBeNull();
  });
});
