/**
 * GET: the signed-in fan's own place (without joining); when admitted, a fresh admission
 * token (also set as an httpOnly cookie for the hold path).
 * DELETE: leave — frees the fan's admission slot for the next fan.
 */
import { cookies } from "next/headers";
import { z } from "zod";
import { db } from "@/lib/db";
import { route } from "@/lib/http/route";
import { eventIdSchema } from "@/lib/ids";
import { statusWithToken } from "@/lib/waiting-room/admission";
import { freeSlot } from "@/lib/waiting-room/queue";
import { admissionCookieName } from "@/lib/waiting-room/token";

const spec = { who: "user", signIn: "Sign in to see your place in the queue.", params: z.object({ eventId: eventIdSchema }), badParams: "bad_request" } as const;

export const GET = route(spec, async ({ params, user }) => {
  const status = await statusWithToken(db(), params.eventId, user.id);
  if (status.admissionToken && status.admittedUntil) {
    (await cookies()).set(admissionCookieName(params.eventId), status.admissionToken, { httpOnly: true, sameSite: "lax", path: "/", expires: new Date(status.admittedUntil) });
  }
  return status;
});

export const DELETE = route(spec, async ({ params, user }) => {
  const freed = await freeSlot(db(), params.eventId, user.id);
  (await cookies()).delete(admissionCookieName(params.eventId));
  return { left: true, freedSlot: freed };
});
