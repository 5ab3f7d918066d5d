/**
 * "Origin work per status request is constant, whatever the queue length": measured as
 * the commands Redis executes (INFO commandstats, scripts' inner calls included) for one
 * status read, on a private redis-server so no other test's traffic is counted.
 */
import { spawn, type ChildProcess } from "node:child_process";
import IORedis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, db } from "@/lib/db";
import { closeRedis } from "@/lib/redis";
import { makeStudioShow } from "@/lib/testing/fixtures";
import { queueKeys } from "@/lib/waiting-room/keys";
import { joinQueue, publicQueueStatus } from "@/lib/waiting-room/queue";

const port = 41_000 + Math.floor(Math.random() * 5_000);
process.env.REDIS_URL = `redis://127.0.0.1:${port}`;
let server: ChildProcess;
let probe: IORedis;

beforeAll(async () => {
  server = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  probe = new IORedis(port, "127.0.0.1", { maxRetriesPerRequest: 20, retryStrategy: (n) => Math.min(n * 50, 500) });
  probe.on("error", () => {}); // refused until the server has started; retried

  await probe.ping();
});

afterAll(async () => {
  await closeRedis();
  await closeDb();
  probe.disconnect();
  server.kill();
});

/** Total commands executed so far (all command types except the INFO probes themselves). */
async function commandsExecuted(): Promise<number> {
  const info = await probe.info("commandstats");
  let total = 0;
  for (const m of info.matchAll(/^cmdstat_([a-z|_-]+):calls=(\d+)/gm)) if (m[1] !== "info") total += Number(m[2]);
  return total;
}

async function statusCost(queued: number): Promise<{ commands: number; serving: number; length: number }> {
  const onSaleAt = Date.now() + 3_600_000;
  const { eventId } = await makeStudioShow(db(), { onSaleAt: new Date(onSaleAt), startsAt: new Date(onSaleAt + 86_400_000), admissionRatePerMinute: 600, activeCap: 100 });
  await joinQueue(db(), eventId, "usr_first", { now: onSaleAt - 10_000 }); // loads config and script
  // The rest of the pre-queue straight into its sorted set (what joins would have written).
  const pre = queueKeys(eventId)[1]!;
  for (let i = 1; i < queued; i += 10_000) {
    const args: (string | number)[] = [];
    for (let j = i; j < Math.min(queued, i + 10_000); j++) args.push(Math.random() * 2 ** 48, `usr_q${j}`);
    await probe.zadd(pre, ...args);
  }
  await publicQueueStatus(db(), eventId, onSaleAt + 500); // warm-up read: admits 5 (0.5 s at 10 fans/s)
  const before = await commandsExecuted();
  const s = await publicQueueStatus(db(), eventId, onSaleAt + 2_000);
  return { commands: (await commandsExecuted()) - before, serving: s.servingCounter, length: s.queueLength };
}

describe("public status cost", () => {
  it("is the same with 100,000 queued fans as with 30", async () => {
    const small = await statusCost(30);
    const large = await statusCost(100_000);
    expect(small.length).toBe(30);
    expect(large.length).toBe(100_000);
    // 600 fans/min for 2 s after the on-sale = 20 admitted in both, 15 of them in the measured read.
    expect(small.serving).toBe(20);
    expect(large.serving).toBe(20);
    expect(small.commands).toBeGreaterThan(0);
    expect(large.commands).toBe(small.commands);
  });
});
