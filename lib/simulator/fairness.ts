/**
 * The queue's fairness (I7) from the waiting room's own records in Redis, against what the
 * simulated fans saw: the pre-queue must be a permutation uncorrelated with join order, and
 * later joins first come first served, one position per fan (lib/simulator/report.ts holds
 * the statistics and the verdict).
 */
import { redis } from "@/lib/redis";
import { fifoViolations, isPermutation, rhoBound, spearman, type FairnessReport, type TimedJoin } from "@/lib/simulator/report";
import { queueKeys } from "@/lib/waiting-room/keys";

/**
 * Read in chunks: a reference-case run holds ~200,000 pre-queue fans and ~300,000 positions,
 * and one ZRANGE 0 -1 or HGETALL of that size outlasted the client's deadline on a loaded
 * machine (the 1,000,000-fan run of 2026-12-03 lost its fairness check to it).
 */
const CHUNK = 10_000;

/** The pre-queue's members in draw order (ZRANGE by index, {@link CHUNK} at a time). */
async function preQueueOrder(key: string): Promise<string[]> {
  const out: string[] = [];
  for (let from = 0; ; from += CHUNK) {
    const part = (await redis().zrange<string[]>(key, from, from + CHUNK - 1)) ?? [];
    out.push(...part.map(String));
    if (part.length < CHUNK) return out;
  }
}

/** Every later fan's position (HSCAN, about {@link CHUNK} fields a call). */
async function positions(key: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  let cursor: string | number = 0;
  do {
    const [next, flat]: [string | number, (string | number)[]] = await redis().hscan(key, cursor, { count: CHUNK });
    for (let k = 0; k + 1 < flat.length; k += 2) out.set(String(flat[k]), Number(flat[k + 1]));
    cursor = next;
  } while (String(cursor) !== "0");
  return out;
}

/**
 * The fairness report of one run.
 * @param preJoins pre-queue joins (fan, when the join answered, ms); @param laterJoins joins after the on-sale.
 */
export async function fairnessOf(eventId: string, preJoins: { fanId: string; doneAt: number }[], laterJoins: (TimedJoin & { fanId: string })[]): Promise<FairnessReport> {
  const [, preKey, posKey] = queueKeys(eventId);
  const prePos = new Map((await preQueueOrder(preKey!)).map((id, k) => [id, k + 1]));
  const laterPos = await positions(posKey!);
  const preWithPos = [...preJoins].sort((a, b) => a.doneAt - b.doneAt).filter((p) => prePos.has(p.fanId));
  const laterValues = [...laterPos.values()];
  return {
    preQueueFans: prePos.size,
    preQueuePermutation: isPermutation([...prePos.values()]),
    preQueueRho: spearman(preWithPos.map((_, k) => k), preWithPos.map((p) => prePos.get(p.fanId)!)),
    preQueueRhoBound: rhoBound(preWithPos.length),
    laterFans: laterPos.size,
    fifoViolations: fifoViolations(laterJoins.map((j) => ({ ...j, position: laterPos.get(j.fanId) ?? j.position }))),
    laterRho: spearman(laterJoins.map((j) => j.sentAt), laterJoins.map((j) => laterPos.get(j.fanId) ?? j.position)),
    duplicatePositions: laterValues.length - new Set(laterValues).size + [...laterPos.keys()].filter((id) => prePos.has(id)).length,
  };
}
