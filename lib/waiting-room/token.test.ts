/** Admission tokens: each bad case refused with the right status and a clear message. */
import { createHash } from "node:crypto";
import { SignJWT } from "jose";
import { afterAll, describe, expect, it } from "vitest";
import { closeRedis } from "@/lib/redis";
import { env } from "@/lib/env";
import { RateLimitedError } from "@/lib/errors";
import { enforceLimit } from "@/lib/waiting-room/limits";
import { ADMISSION_CLOCK_TOLERANCE_MS, AdmissionTokenError, issueAdmissionToken, verifyAdmissionToken } from "@/lib/waiting-room/token";

afterAll(async () => {
  await closeRedis();
});

const now = Date.UTC(2027, 0, 1, 12, 0, 0);
const valid = () => issueAdmissionToken({ fanId: "usr_a", eventId: "evt_one", position: 7, generation: "1733580000000123", expiresAt: now + 600_000, now });

async function refusal(token: string | undefined, expected: { fanId: string; eventId: string; now?: number }) {
  const error = await verifyAdmissionToken(token, { now, ...expected }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(AdmissionTokenError);
  return error as AdmissionTokenError;
}

describe("admission tokens", () => {
  it("admit the fan they were issued to, for their event, until they expire", async () => {
    expect(await verifyAdmissionToken(await valid(), { fanId: "usr_a", eventId: "evt_one", now: now + 599_000 })).toEqual({ position: 7, generation: "1733580000000123" });
  });

  it("missing → 401", async () => {
    const e = await refusal(undefined, { fanId: "usr_a", eventId: "evt_one" });
    expect([e.status, e.reason]).toEqual([401, "missing"]);
    expect(e.message).toMatch(/join the queue/);
  });

  it("forged (signed with another key, tampered, or garbage) → 401", async () => {
    const other = await new SignJWT({ evt: "evt_one", pos: 1 })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer("stararena/waiting-room")
      .setSubject("usr_a")
      .setExpirationTime(Math.floor(now / 1000) + 600)
      .sign(new TextEncoder().encode("x".repeat(32)));
    const token = await valid();
    const [h, p, sig] = token.split(".");
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p!, "base64url").toString()), sub: "usr_b" })).toString("base64url")}.${sig}`;
    for (const bad of [other, tampered, "not-a-token", `${h}.${p}.`]) {
      const e = await refusal(bad, { fanId: "usr_a", eventId: "evt_one" });
      expect([e.status, e.reason]).toEqual([401, "forged"]);
    }
  });

  it("checked by a process whose clock runs 30 s ahead of the issuer's → still valid (the slot's end is Redis's to decide)", async () => {
    expect(await verifyAdmissionToken(await valid(), { fanId: "usr_a", eventId: "evt_one", now: now + 600_000 + 30_000 })).toEqual({ position: 7, generation: "1733580000000123" });
  });

  it("expired beyond any clock skew → 401 with a message to rejoin", async () => {
    const e = await refusal(await valid(), { fanId: "usr_a", eventId: "evt_one", now: now + 600_000 + ADMISSION_CLOCK_TOLERANCE_MS + 1_000 });
    expect([e.status, e.reason]).toEqual([401, "expired"]);
    expect(e.message).toMatch(/Join the queue again/);
  });

  it("are the very bytes jose's SignJWT writes for the same claims and key", async () => {
    const key = createHash("sha256").update(`${env().BETTER_AUTH_SECRET}:admission-tokens`).digest();
    for (const c of [
      { fanId: "usr_a", eventId: "evt_one", position: 7, generation: "1733580000000123", expiresAt: now + 600_000, now },
      { fanId: "usr_0123456789abcdefghijklmn", eventId: "evt_zz9", position: 0, generation: "1", expiresAt: now + 1_234_567, now: now + 999 },
      { fanId: "usr_ü", eventId: "evt_x", position: -3, generation: "1733580000999999", expiresAt: now, now },
    ]) {
      const jose = await new SignJWT({ evt: c.eventId, pos: c.position, gen: c.generation })
        .setProtectedHeader({ alg: "HS256" })
        .setIssuer("stararena/waiting-room")
        .setSubject(c.fanId)
        .setIssuedAt(Math.floor(c.now / 1000))
        .setExpirationTime(Math.floor(c.expiresAt / 1000))
        .sign(key);
      expect(await issueAdmissionToken(c)).toBe(jose);
    }
  });

  it("another fan's → 403; another event's → 403", async () => {
    const fan = await refusal(await valid(), { fanId: "usr_b", eventId: "evt_one" });
    expect([fan.status, fan.reason]).toEqual([403, "other_fan"]);
    const event = await refusal(await valid(), { fanId: "usr_a", eventId: "evt_two" });
    expect([event.status, event.reason]).toEqual([403, "other_event"]);
  });
});

describe("rate limits", () => {
  it("the 11th hold attempt within 10 s is refused with a Retry-After of 1–10 s", async () => {
    const fan = `usr_rl${Date.now()}`;
    for (let i = 0; i < 10; i++) await enforceLimit("hold", fan);
    const error = await enforceLimit("hold", fan).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    const r = error as RateLimitedError;
    expect(r.status).toBe(429);
    expect(r.retryAfter).toBeGreaterThanOrEqual(1);
    expect(r.retryAfter).toBeLessThanOrEqual(10);
    // Another fan is not affected.
    await expect(enforceLimit("hold", `${fan}x`)).resolves.toBeUndefined();
  });
});
