/**
 * The hold path's admission check and the cookie that carries the token. Once the
 * on-sale has passed, the queue is active and every hold needs a valid admission token
 * for this fan and event (docs/design.md, "Admission token").
 */
import type { Db } from "@/lib/db";
import { fanQueueStatus } from "@/lib/waiting-room/queue";
import type { FanQueueStatus } from "@/lib/waiting-room/room";
import { issueAdmissionToken, verifyAdmissionToken } from "@/lib/waiting-room/token";

/**
 * Throws unless `token` is a valid admission token of `fanId` for `eventId` now. Whether
 * its slot is still running — in the queue's current generation — is checked by the hold's
 * Redis claim itself (one call), with the position and generation returned here.
 * @returns the queue position and generation the token names.
 * @throws {AdmissionTokenError} 401/403 with a message for the fan.
 */
export async function assertAdmitted(eventId: string, fanId: string, token: string | undefined, now = Date.now()): Promise<{ position: number; generation: string }> {
  return verifyAdmissionToken(token, { fanId, eventId, now });
}

/**
 * The fan's queue status plus, when admitted, a freshly signed token valid until the slot frees.
 */
export async function statusWithToken(db: Db, eventId: string, fanId: string, status?: FanQueueStatus): Promise<FanQueueStatus & { admissionToken: string | null }> {
  const s = status ?? (await fanQueueStatus(db, eventId, fanId));
  const admissionToken =
    s.state === "admitted" && s.admittedUntil ? await issueAdmissionToken({ fanId, eventId, position: s.position, generation: s.generation, expiresAt: s.admittedUntil }) : null;
  return { ...s, admissionToken };
}
