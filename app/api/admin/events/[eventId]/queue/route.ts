/** POST the waiting room's live controls (pause, resume, rate, cap) for an organizer's own show. */
import { NextResponse } from "next/server";
import { z } from "zod";
import { organizerOfEventForRequest } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { errorResponse, jsonError } from "@/lib/http";
import { setQueueControls } from "@/lib/waiting-room/queue";

const controlsSchema = z
  .strictObject({
    paused: z.boolean().optional(),
    ratePerMinute: z.number().int("The rate must be a whole number of fans per minute").min(1, "The rate must be at least 1 fan per minute").max(1_000_000).optional(),
    activeCap: z.number().int("The cap must be a whole number").min(1, "The cap must be at least 1").max(1_000_000).optional(),
  })
  .refine((c) => Object.keys(c).length > 0, "Send at least one of paused, ratePerMinute, activeCap");

export async function POST(req: Request, ctx: RouteContext<"/api/admin/events/[eventId]/queue">) {
  const who = await organizerOfEventForRequest(req.headers, (await ctx.params).eventId);
  if (!who.ok) return jsonError(who.status, who.message);
  const body = controlsSchema.safeParse(await req.json().catch(() => null));
  if (!body.success) return jsonError(400, body.error.issues[0]!.message);
  try {
    return NextResponse.json(await setQueueControls(db(), who.eventId, body.data));
  } catch (error) {
    const res = errorResponse(error);
    if (res) return res;
    throw error;
  }
}
