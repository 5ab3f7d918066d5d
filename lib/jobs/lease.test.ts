import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { closeDb, db } from "@/lib/db";
import { claimLease, keepLease, releaseLease } from "@/lib/jobs/lease";

afterAll(() => closeDb());
const name = () => `test-lease-${randomUUID().slice(0, 8)}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the worker lease", () => {
  it("many processes racing for a free lease: exactly one holds it", async () => {
    const lease = name();
    const holders = Array.from({ length: 20 }, (_, i) => `worker-${i}`);
    const results = await Promise.all(holders.map((h) => claimLease(db(), lease, h, 10_000)));
    const winners = results.filter((r) => r.held);
    expect(winners).toHaveLength(1);
    // Everyone else is told who holds it.
    for (const r of results.filter((x) => !x.held)) expect(r.holder).toBe(winners[0]!.holder);
  });

  it("the holder renews; another takes over only after it expires or is released", async () => {
    const lease = name();
    expect((await claimLease(db(), lease, "a", 400)).held).toBe(true);
    expect((await claimLease(db(), lease, "b", 400)).held).toBe(false);
    expect((await claimLease(db(), lease, "a", 400)).held).toBe(true);
    await sleep(600);
    expect((await claimLease(db(), lease, "b", 400)).held).toBe(true);
    expect((await claimLease(db(), lease, "a", 400)).held).toBe(false);
    await releaseLease(db(), lease, "b");
    expect((await claimLease(db(), lease, "a", 400)).held).toBe(true);
  });

  it("keepLease: a second worker stands by and says so, and takes over when the first stops", async () => {
    const lease = name();
    const logA: string[] = [];
    const logB: string[] = [];
    const a = keepLease(db(), lease, { ttlMs: 600, holder: "worker-a", log: (l) => logA.push(l) });
    await a.ready;
    const b = keepLease(db(), lease, { ttlMs: 600, holder: "worker-b", log: (l) => logB.push(l) });
    await b.ready;
    expect(a.held()).toBe(true);
    expect(b.held()).toBe(false);
    expect(logB.join("\n")).toMatch(/standing by: worker-a holds the .* lease/);
    await sleep(900);
    // Renewals keep it with a.
    expect(a.held()).toBe(true);
    expect(b.held()).toBe(false);
    await a.stop();
    // b renews every ttl/3 = 200 ms: it has the released lease within a few renewals.
    for (let i = 0; i < 20 && !b.held(); i++) await sleep(100);
    expect(b.held()).toBe(true);
    expect(logB.at(-1)).toMatch(/holding the .* lease as worker-b/);
    await b.stop();
  });
});
