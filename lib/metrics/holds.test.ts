/** measureHold: what it records for a hold, and how it runs the caller's follow-up beside the recording. Real Redis. */
import { afterAll, describe, expect, it } from "vitest";
import { holdStats, measureHold } from "@/lib/metrics/holds";
import { closeRedis } from "@/lib/redis";

afterAll(async () => {
  await closeRedis();
});

const eventId = () => `evt_measure${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
const refusedOrError = () => "refused" as const;

describe("measureHold", () => {
  it("records a held attempt and runs the follow-up with the hold's result, beside the recording", async () => {
    const id = eventId();
    const seen: string[] = [];
    const result = await measureHold(id, async () => "ord_1", refusedOrError, async (placed) => {
      seen.push(placed);
    });
    expect(result).toBe("ord_1");
    expect(seen).toEqual(["ord_1"]);
    const stats = await holdStats(id, 1);
    expect(stats).toMatchObject({ attempts: 1, held: 1, refused: 0, errors: 0 });
  });

  it("a follow-up that fails fails the call, and the hold still counts as held (it was made)", async () => {
    const id = eventId();
    const failure = new Error("slot store unreachable");
    await expect(measureHold(id, async () => "ord_2", refusedOrError, async () => Promise.reject(failure))).rejects.toBe(failure);
    expect(await holdStats(id, 1)).toMatchObject({ attempts: 1, held: 1, refused: 0, errors: 0 });
  });

  it("a refused hold is classified, recorded as such, and never reaches the follow-up", async () => {
    const id = eventId();
    let followed = false;
    const refusal = new Error("seat taken");
    await expect(
      measureHold(id, async () => Promise.reject(refusal), refusedOrError, async () => {
        followed = true;
      }),
    ).rejects.toBe(refusal);
    expect(followed).toBe(false);
    expect(await holdStats(id, 1)).toMatchObject({ attempts: 1, held: 0, refused: 1, errors: 0 });
  });
});
