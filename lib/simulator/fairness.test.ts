import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { closeRedis, redis } from "@/lib/redis";
import { fairnessOf } from "@/lib/simulator/fairness";
import { queueKeys } from "@/lib/waiting-room/keys";

afterAll(async () => {
  await closeRedis();
});

describe("fairnessOf", () => {
  it("reads a pre-queue and a position hash larger than one chunk whole (25,000 and 23,456 fans)", async () => {
    const eventId = `evt_fair${randomBytes(6).toString("hex")}`;
    const [, preKey, posKey] = queueKeys(eventId);
    const pre = Array.from({ length: 25_000 }, (_, k) => `usr_pre${k}`);
    const later = Array.from({ length: 23_456 }, (_, k) => `usr_later${k}`);
    // The pre-queue's draw: scores in reverse of the join order, so the members read back reversed.
    for (let k = 0; k < pre.length; k += 5_000) {
      const part = pre.slice(k, k + 5_000);
      await redis().zadd(preKey!, ...(part.map((member, j) => ({ score: pre.length - (k + j), member })) as [{ score: number; member: string }]));
      const fields = Object.fromEntries(later.slice(k, k + 5_000).map((id, j) => [id, k + j + 1]));
      if (Object.keys(fields).length > 0) await redis().hset(posKey!, fields);
    }
    const preJoins = pre.map((fanId, k) => ({ fanId, doneAt: k }));
    const laterJoins = later.map((fanId, k) => ({ fanId, sentAt: k, doneAt: k + 1, position: k + 1 }));
    const r = await fairnessOf(eventId, preJoins, laterJoins);
    await redis().del(preKey!, posKey!);
    // Worked out from the set-up: every fan read back, positions 1..n once each, served in join order.
    expect(r.preQueueFans).toBe(25_000);
    expect(r.preQueuePermutation).toBe(true);
    expect(r.preQueueRho).toBeCloseTo(-1, 6); // the draw is exactly the reverse of the join order
    expect(r.laterFans).toBe(23_456);
    expect(r.fifoViolations).toBe(0);
    expect(r.duplicatePositions).toBe(0);
    expect(r.laterRho).toBeCloseTo(1, 6);
  });
});
