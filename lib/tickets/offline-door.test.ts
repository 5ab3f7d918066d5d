/**
 * The door without the network (./offline-door.ts), with genuine codes signed as issuance signs
 * them and an in-memory localStorage: a ticket this device let in or saw used is refused at once
 * on a second scan (by its signed or its short code), an unseen genuine one is accepted and
 * queued once, and a code's stored label reads back into the parts of every seat of every plan.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { translator } from "@/lib/i18n/translate";
import { ticketKeys, signTicketCode } from "@/lib/tickets/codes";
import { decideOffline, forgetOtherShows, readQueue, recall, rememberVerdict, seatPartsOfLabel, type OfflineDoor } from "@/lib/tickets/offline-door";
import type { DoorVerdict, VerdictTicket } from "@/lib/tickets/verdict";
import { arenaPlan, smallArenaPlan, studioPlan } from "@/lib/venues/plan";
import { seatLabel, type SeatWords } from "@/lib/venues/seat-label";
import en from "@/lib/i18n/messages/en.json";

/** A Storage over a Map: what the browser's localStorage does, for Node. */
class MemoryStorage implements Storage {
  private items = new Map<string, string>();
  get length() {
    return this.items.size;
  }
  clear() {
    this.items.clear();
  }
  getItem(key: string) {
    return this.items.get(key) ?? null;
  }
  key(i: number) {
    return [...this.items.keys()][i] ?? null;
  }
  removeItem(key: string) {
    this.items.delete(key);
  }
  setItem(key: string, value: string) {
    this.items.set(key, String(value));
  }
}

const SECRET = "offline-door-test-secret-0123456789abcdef";
const words = { seated: en.Seat.seated, standing: en.Seat.standing };
const door: OfflineDoor = {
  organizerId: "usr_org0000000000001",
  jwk: { ...ticketKeys(SECRET).publicKeyJwk },
  shows: [
    { id: "evt_show000000000001", name: "Night One", timeZone: "Europe/Berlin" },
    { id: "evt_show000000000002", name: "Night Two", timeZone: "Asia/Shanghai" },
  ],
  words,
};
const code = (ticketId: string, seat = "Sec 104 · Row 7 · Seat 12", eventId = door.shows[0]!.id) => signTicketCode({ ticketId, eventId, seatLabel: seat, orderId: "ord_x000000000000001" }, SECRET);

beforeEach(() => {
  (globalThis as { localStorage?: Storage }).localStorage = new MemoryStorage();
});

describe("a stored seat label read back into its parts", () => {
  it("gives exactly the parts of every seat of every venue plan", () => {
    const english = translator("en", "Seat") as unknown as SeatWords;
    let checked = 0;
    for (const plan of [arenaPlan(), studioPlan(), smallArenaPlan(500)]) {
      for (const section of plan.sections) {
        for (const row of section.rows) {
          for (const seat of row.seats) {
            const standing = section.kind === "general_admission";
            const parts = seatPartsOfLabel(seat.label, words);
            const expected = standing ? { section: "", standing, row: "", number: seat.number } : { section: section.code, standing, row: row.label, number: seat.number };
            if (JSON.stringify(parts) !== JSON.stringify(expected)) throw new Error(`${seat.label}: ${JSON.stringify(parts)}`);
            if (seatLabel(english, parts!) !== seat.label) throw new Error(`${seat.label} does not compose back`);
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(20_500);
  });

  it("is null for a label of another shape (shown as stored)", () => {
    expect(seatPartsOfLabel("Box 4 · Table 2", words)).toBeNull();
    expect(seatPartsOfLabel("Sec 104 · Row 7 · Seat twelve", words)).toBeNull();
    expect(seatPartsOfLabel("Floor GA · Unit 153", words)).toEqual({ section: "", standing: true, row: "", number: 153 });
  });
});

describe("deciding without the network", () => {
  it("accepts an unseen genuine ticket once, queued; a second scan is refused at once as admitted here", async () => {
    const c = await code("tkt_a000000000000001");
    const first = await decideOffline(door, `  ${c}\n`, Date.UTC(2027, 0, 30, 19, 31));
    expect(first).toMatchObject({ kind: "admitted", offline: true, at: Date.UTC(2027, 0, 30, 19, 31), ticket: { ticketId: "tkt_a000000000000001", eventName: "Night One", seat: { section: "104", row: "7", number: 12 } } });
    expect(readQueue(door.organizerId)).toHaveLength(1);

    const second = await decideOffline(door, c, Date.UTC(2027, 0, 30, 19, 45));
    expect(second).toMatchObject({ kind: "used", here: true, at: Date.UTC(2027, 0, 30, 19, 31) });
    expect(readQueue(door.organizerId)).toHaveLength(1);
  });

  it("refuses tickets seen online: let in here, used elsewhere, refunded — by the signed code and by the short code", async () => {
    const ticket = (ticketId: string, shortCode: string): VerdictTicket => ({
      ticketId,
      eventId: door.shows[1]!.id,
      eventName: "Night Two",
      timeZone: "Asia/Shanghai",
      seat: { section: "MAIN", standing: false, row: "B", number: 4 },
      seatLabel: "Sec MAIN · Row B · Seat 4",
      shortCode,
    });
    const at = Date.UTC(2027, 0, 30, 12, 0);
    rememberVerdict(door.organizerId, { kind: "admitted", ticket: ticket("tkt_b000000000000001", "7K3QDM9XW2"), at, offline: false });
    rememberVerdict(door.organizerId, { kind: "used", ticket: ticket("tkt_b000000000000002", "8K3QDM9XW2"), at: at - 60_000, here: false });
    rememberVerdict(door.organizerId, { kind: "refunded", ticket: ticket("tkt_b000000000000003", "9K3QDM9XW2") });
    // The server later calls the ticket this device let in "used" (its own check-in): it stays "admitted here".
    rememberVerdict(door.organizerId, { kind: "used", ticket: ticket("tkt_b000000000000001", "7K3QDM9XW2"), at, here: false });

    const signed = await code("tkt_b000000000000001", "Sec MAIN · Row B · Seat 4", door.shows[1]!.id);
    expect(await decideOffline(door, signed)).toMatchObject({ kind: "used", here: true, at });
    expect(await decideOffline(door, "7k3qd-m9xw2")).toMatchObject({ kind: "used", here: true, at, ticket: { eventName: "Night Two", seat: { section: "MAIN", row: "B", number: 4 } } });
    expect(await decideOffline(door, "8K3QD M9XW2")).toMatchObject({ kind: "used", here: false, at: at - 60_000 });
    expect(await decideOffline(door, "9K3QD-M9XW2")).toMatchObject({ kind: "refunded" });
    expect(await decideOffline(door, "AAAAA-AAAAA")).toEqual({ kind: "needs_network" });
    expect(readQueue(door.organizerId)).toEqual([]);
  });

  it("refuses forged, malformed and other shows' codes, and accepts nothing twice", async () => {
    const c = await code("tkt_c000000000000001");
    const [h, p, s] = c.split(".");
    expect(await decideOffline(door, [h, p, (s![0] === "A" ? "B" : "A") + s!.slice(1)].join("."))).toEqual({ kind: "not_genuine", reason: "forged" });
    expect(await decideOffline(door, "hello")).toEqual({ kind: "not_genuine", reason: "malformed" });
    expect(await decideOffline(door, await code("tkt_c000000000000002", "Sec 1 · Row 1 · Seat 1", "evt_other00000000001"))).toEqual({ kind: "wrong_show" });
    expect(await decideOffline(door, "   ")).toEqual({ kind: "empty" });
    const verdicts: DoorVerdict[] = [];
    for (let i = 0; i < 3; i++) verdicts.push(await decideOffline(door, c));
    expect(verdicts.map((v) => v.kind)).toEqual(["admitted", "used", "used"]);
    expect(readQueue(door.organizerId).map((q) => q.ticketId)).toEqual(["tkt_c000000000000001"]);
  });

  it("forgets the shows the page no longer lists, and keeps the others", async () => {
    await decideOffline(door, await code("tkt_d000000000000001"));
    expect(recall(door.organizerId, door.shows[0]!.id, "tkt_d000000000000001")).toMatchObject({ state: "admitted" });
    forgetOtherShows(door.organizerId, [door.shows[1]!]);
    expect(recall(door.organizerId, door.shows[0]!.id, "tkt_d000000000000001")).toBeNull();
    forgetOtherShows(door.organizerId, door.shows);
  });
});
