/**
 * The simulator's report path: statistics, the verdict (a broken rule fails the run), and
 * the forged better-auth session the simulator relies on (accepted by better-auth itself).
 */
import { serializeSignedCookie } from "better-call";
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { session as sessionTable } from "@/db/schema";
import { auth } from "@/lib/auth";
import { closeDb, db } from "@/lib/db";
import { env } from "@/lib/env";
import type { InvariantReport } from "@/lib/reconciliation/invariants";
import { chartHtml, fifoViolations, isPermutation, jobViolations, passed, percentile, rhoBound, spearman, violations, type FairnessReport } from "@/lib/simulator/report";
import { SESSION_COOKIE, SESSION_DATA_COOKIE, signSessionData, signSessionToken } from "@/lib/auth/cookie-cache";
import { createFansWithSessions } from "@/lib/simulator/sessions";
import { CLEAN_INVARIANTS } from "@/lib/testing/invariants";

afterAll(async () => {
  await closeDb();
});

const clean: InvariantReport = { ...CLEAN_INVARIANTS };
const fair: FairnessReport = {
  preQueueFans: 1000,
  preQueuePermutation: true,
  preQueueRho: 0.01,
  preQueueRhoBound: rhoBound(1000),
  laterFans: 10,
  fifoViolations: 0,
  laterRho: 1,
  duplicatePositions: 0,
};

describe("simulator statistics", () => {
  it("percentiles by nearest rank", () => {
    const xs = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(xs, 0.5)).toBe(50);
    expect(percentile(xs, 0.99)).toBe(99);
    expect(percentile([], 0.5)).toBeNull();
  });

  it("Spearman: 1 for the same order, -1 reversed, near 0 for a shuffle", () => {
    const n = 20_000;
    const a = Array.from({ length: n }, (_, i) => i);
    expect(spearman(a, a)).toBeCloseTo(1, 10);
    expect(spearman(a, [...a].reverse())).toBeCloseTo(-1, 10);
    const shuffled = [...a].sort(() => Math.random() - 0.5).map((_, i, arr) => arr[i]!);
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
    }
    expect(Math.abs(spearman(a, shuffled))).toBeLessThan(rhoBound(n));
  });

  it("permutations and causal FIFO", () => {
    expect(isPermutation([3, 1, 2])).toBe(true);
    expect(isPermutation([1, 1, 3])).toBe(false);
    // B was sent after A was answered, so B must be behind A; C overlapped A and may go either way.
    const ok = [
      { sentAt: 0, doneAt: 10, position: 2 },
      { sentAt: 5, doneAt: 12, position: 1 },
      { sentAt: 20, doneAt: 30, position: 3 },
    ];
    expect(fifoViolations(ok)).toBe(0);
    expect(fifoViolations([...ok, { sentAt: 40, doneAt: 45, position: 2 }])).toBe(1);
  });

  it("a rule broken on purpose fails the run", () => {
    expect(passed(violations(clean, fair))).toBe(true);
    expect(passed(violations({ ...clean, oversold: 1 }, fair))).toBe(false);
    expect(passed(violations(clean, { ...fair, preQueueRho: 0.9 }))).toBe(false); // join order leaked into the draw
    expect(passed(violations(clean, { ...fair, fifoViolations: 3 }))).toBe(false);
    expect(violations(clean, { ...fair, preQueuePermutation: false }).preQueueNotPermutation).toBe(1);
  });

  it("fails a run that broke nothing but did not do the job", () => {
    const done = { capacity: 500, sold: 500, queueExhausted: false, fansNeverQueued: 0, doorJoinP99Ms: 12, doorP99BoundMs: 100 };
    expect(jobViolations(done)).toEqual({ notSoldOut: 0, fansNeverQueued: 0, doorP99OverBound: 0 });
    // 14,819 of 20,000 sold while fans still waited: 5,181 seats the run failed to sell.
    expect(jobViolations({ ...done, capacity: 20_000, sold: 14_819 }).notSoldOut).toBe(5_181);
    // The same seats unsold after every queued fan had its turn: nobody wanted them — explained.
    expect(jobViolations({ ...done, sold: 480, queueExhausted: true }).notSoldOut).toBe(0);
    expect(jobViolations({ ...done, fansNeverQueued: 36_478 }).fansNeverQueued).toBe(36_478);
    expect(jobViolations({ ...done, doorJoinP99Ms: 100.5 }).doorP99OverBound).toBe(1);
    expect(jobViolations({ ...done, doorJoinP99Ms: null }).doorP99OverBound).toBe(1);
    expect(passed(jobViolations({ ...done, sold: 499 }))).toBe(false);
    // The last seat was held, its hold still running, by a fan who never paid when the time limit
    // stopped the sale: nobody else could have bought it within the sale — explained.
    expect(jobViolations({ ...done, sold: 499, heldAtStopByNonPayers: 1 }).notSoldOut).toBe(0);
    // Only those seats: one more seat unsold (free at the stop, or held by a fan who meant to pay) still fails.
    expect(jobViolations({ ...done, sold: 498, heldAtStopByNonPayers: 1 }).notSoldOut).toBe(1);
    expect(passed(jobViolations({ ...done, sold: 498, heldAtStopByNonPayers: 1 }))).toBe(false);
  });

  it("draws the chart as inline SVG", () => {
    const html = chartHtml("t", [{ t: -5, queueLength: 10, serving: 0, sold: 0, held: 0 }, { t: 10, queueLength: 10, serving: 5, sold: 8, held: 2 }], 8);
    expect(html).toContain("<svg");
    expect(html.match(/<polyline/g)).toHaveLength(5);
    expect(html).toContain("waiting");
    // With the shop's figures: a second panel, fans shopping against the organizer's cap, and a
    // third, the admission rate in force.
    const withShop = chartHtml("t", [{ t: 1, queueLength: 10, serving: 5, sold: 0, held: 2, active: 5, cap: 100, rate: 300 }, { t: 6, queueLength: 10, serving: 9, sold: 2, held: 4, active: 7, cap: 100, rate: 375 }], 8);
    expect(withShop.match(/<svg/g)).toHaveLength(3);
    expect(withShop.match(/<polyline/g)).toHaveLength(8);
    expect(withShop).toContain("organizer's cap");
    expect(withShop).toContain("Admission rate in force");
  });
});

describe("simulated fans' sessions", () => {
  it("signs the cookie exactly like better-auth, and better-auth accepts it", async () => {
    const secret = env().BETTER_AUTH_SECRET;
    const reference = await serializeSignedCookie(SESSION_COOKIE, "some-token", secret);
    expect(reference.split(";")[0]).toBe(`${SESSION_COOKIE}=${signSessionToken("some-token", secret)}`);

    const [fan] = await createFansWithSessions(db(), 1, { secret, runTag: `t${Date.now().toString(36)}` });
    const session = await auth().api.getSession({ headers: new Headers({ cookie: `${SESSION_COOKIE}=${fan!.sessionCookie}` }) });
    expect(session?.user.id).toBe(fan!.id);
    const forged = await auth().api.getSession({ headers: new Headers({ cookie: `${SESSION_COOKIE}=${signSessionToken("not-a-session", secret)}` }) });
    expect(forged).toBeNull();
  });

  it("builds the session cookie cache like better-auth: accepted without Postgres, refused when tampered with or expired", async () => {
    const secret = env().BETTER_AUTH_SECRET;
    const [fan] = await createFansWithSessions(db(), 1, { secret, runTag: `c${Date.now().toString(36)}` });
    const both = `${SESSION_COOKIE}=${fan!.sessionCookie}; ${SESSION_DATA_COOKIE}=${fan!.sessionDataCookie}`;
    // Remove the session row: only the cookie cache can still say who this is.
    await db().delete(sessionTable).where(eq(sessionTable.userId, fan!.id));
    expect((await auth().api.getSession({ headers: new Headers({ cookie: `${SESSION_COOKIE}=${fan!.sessionCookie}` }) }))).toBeNull();
    const cached = await auth().api.getSession({ headers: new Headers({ cookie: both }) });
    expect(cached?.user.id).toBe(fan!.id);
    expect((cached?.user as { role?: string } | undefined)?.role).toBe("fan");

    // Another user's id in the payload breaks the signature.
    const decoded = JSON.parse(Buffer.from(fan!.sessionDataCookie, "base64url").toString()) as { session: { user: { id: string } } };
    decoded.session.user.id = "usr_someone_else";
    const tampered = Buffer.from(JSON.stringify(decoded)).toString("base64url");
    expect(await auth().api.getSession({ headers: new Headers({ cookie: `${SESSION_COOKIE}=${fan!.sessionCookie}; ${SESSION_DATA_COOKIE}=${tampered}` }) })).toBeNull();
    // An expired cache falls back to Postgres (where the session is gone).
    const row = { id: "ses_x", token: "t", userId: fan!.id, expiresAt: new Date(Date.now() + 86_400_000), createdAt: new Date(), updatedAt: new Date(), ipAddress: null, userAgent: null };
    const user = { id: fan!.id, email: "x@y.z", name: "x", role: "fan", emailVerified: true, image: null, createdAt: new Date(), updatedAt: new Date() };
    const stale = signSessionData(row, user, secret, { now: Date.now() - 10 * 60_000, maxAgeSeconds: 300 });
    expect(await auth().api.getSession({ headers: new Headers({ cookie: `${SESSION_COOKIE}=${fan!.sessionCookie}; ${SESSION_DATA_COOKIE}=${stale}` }) })).toBeNull();
  });
});
