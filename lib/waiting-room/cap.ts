/**
 * The cap admission applies now (docs/design.md "Waiting room", ADR 0015): the organizer's
 * active cap, or the admission pacer's when it is lower — what the admission Lua computes as
 * `room` (./lua.ts). Pure, so the live view in the browser and the simulator share it.
 */
import type { PublicQueueStatus } from "@/lib/waiting-room/room";

/** The cap in force (fans), and whether the pacer set it. */
export function capInForce(status: Pick<PublicQueueStatus, "activeCap" | "pacedCap">): { cap: number; paced: boolean } {
  const paced = status.pacedCap !== null && status.pacedCap < status.activeCap;
  return { cap: paced ? status.pacedCap! : status.activeCap, paced };
}
