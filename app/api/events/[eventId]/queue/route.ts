/**
 * GET: the public queue status (serving counter, length, rate), cacheable by a CDN for
 * a second; constant work per request whatever the queue's length.
 * POST: join the queue (signed-in fan); idempotent. `?rejoin=1`: a fan whose turn ended
 * gets a new place at the back.
 */
import { cookies } from "next/headers";
import { z } from "zod";
import { db } from "@/lib/db";
import { publicCache } from "@/lib/http/cache";
import { route } from "@/lib/http/route";
import { eventIdSchema } from "@/lib/ids";
import { statusWithToken } from "@/lib/waiting-room/admission";
import { enforceLimit } from "@/lib/waiting-room/limits";
import { joinQueue, publicQueueStatus } from "@/lib/waiting-room/queue";
import { admissionCookieName } from "@/lib/waiting-room/token";

const params = z.object({ eventId: eventIdSchema });

export const GET = route({ params, badParams: "bad_request" }, async ({ ip, params }) => {
  await enforceLimit("status", ip);
  const status = await publicQueueStatus(db(), params.eventId);
  return Response.json(status, { headers: { "Cache-Control": publicCache(1, 2) } });
});

export const POST = route(
  { who: "user", signIn: "Sign in to join the queue.", params, badParams: "bad_request", query: z.object({ rejoin: z.literal("1").optional() }).loose() },
  async ({ ip, params, query, user }) => {
    await enforceLimit("join", ip);
    const status = await statusWithToken(db(), params.eventId, user.id, await joinQueue(db(), params.eventId, user.id, { rejoin: query.rejoin === "1" }));
    if (status.admissionToken && status.admittedUntil) {
      (await cookies()).set(admissionCookieName(params.eventId), status.admissionToken, { httpOnly: true, sameSite: "lax", path: "/", expires: new Date(status.admittedUntil) });
    }
    return status;
  },
);
