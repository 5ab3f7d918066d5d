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
 * The fairness report of one run.
 * @param preJoins pre-queue joins (fan, when the join answered, ms); @param laterJoins joins after the on-sale.
 */
export async function fairnessOf(eventId: string, preJoins: { fanId: string; doneAt: number }[], laterJoins: (TimedJoin & { fanId: string })[]): Promise<FairnessReport> {
  const [, preKey, posKey] = queueKeys(eventId);
  const preMembers = (await redis().zrange<string[]>(preKey!, 0, -1)) ?? [];
  const prePos = new Map(preMembers.map((id, k) => [id, k + 1]));
  const laterPos = new Map(Object.entries((await redis().hgetall<Record<string, string | number>>(posKey!)) ?? {}).map(([k, v]) => [k, Number(v)]));
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
