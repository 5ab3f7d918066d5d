/**
 * The admission rate in force (docs/design.md "Waiting room", ADR 0015): the organizer's
 * rate, or the admission pacer's when it is lower — what the admission Lua computes as
 * `pace` (./lua.ts). Pure, so the live view, the queue page and the simulator share it.
 */
import type { PublicQueueStatus } from "@/lib/waiting-room/room";

/** The rate in force (fans per minute), and whether the pacer set it. */
export function rateInForce(status: Pick<PublicQueueStatus, "ratePerMinute" | "pacedRate">): { rate: number; paced: boolean } {
  const paced = status.pacedRate !== null && status.pacedRate < status.ratePerMinute;
  return { rate: paced ? status.pacedRate! : status.ratePerMinute, paced };
}
