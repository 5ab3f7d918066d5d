/**
 * Pipelines keep their order only when every query starts when Promise.all calls `then`
 * (lib/db.ts `lazyQuery`): shown against the real Postgres with a transaction-local setting
 * that the first statement sets and the second reads.
 */
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { closeDb, db, lazyQuery } from "@/lib/db";

afterAll(closeDb);

const setFirst = sql`select set_config('stararena.pipeline_test', 'set', true)`;
const readSecond = sql`select coalesce(current_setting('stararena.pipeline_test', true), '') as v`;
const value = (rows: unknown) => (rows as { v: string }[])[0]!.v;

describe("pipelined queries on a transaction", () => {
  it("a lazy query runs in its place: it sees the setting sent before it", async () => {
    const seen = await db().transaction(async (tx) => {
      const [, v] = await Promise.all([tx.execute(setFirst), lazyQuery(() => tx.execute(readSecond).then(value))]);
      return v;
    });
    expect(seen).toBe("set");
  });

  it("an async function's query overtakes the builder before it (why lazyQuery exists)", async () => {
    const seen = await db().transaction(async (tx) => {
      const eager = async () => value(await tx.execute(readSecond));
      const [, v] = await Promise.all([tx.execute(setFirst), eager()]);
      return v;
    });
    expect(seen).toBe("");
  });
});
