/**
 * GET: the public queue status (serving counter, length, rate), cacheable by a CDN for
 * a second; constant work per request whatever the queue's length.
 * POST: join the queue (signed-in fan); idempotent.
 */
import { cookies } from "next/headers";
import { NextResponse } from "next/server";
import { getSessionUser } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { errorResponse, eventIdSchema, jsonError, publicCache } from "@/lib/http";
import { statusWithToken } from "@/lib/waiting-room/admission";
import { clientIp, enforceLimit } from "@/lib/waiting-room/limits";
import { joinQueue, publicQueueStatus } from "@/lib/waiting-room/queue";
import { admissionCookieName } from "@/lib/waiting-room/token";

export async function GET(req: Request, ctx: RouteContext<"/api/events/[eventId]/queue">) {
  const id = eventIdSchema.safeParse((await ctx.params).eventId);
  if (!id.success) return jsonError(400, id.error.issues[0]!.message);
  try {
    await enforceLimit("status", clientIp(req.headers));
    const status = await publicQueueStatus(db(), id.data);
    return NextResponse.json(status, { headers: { "Cache-Control": publicCache(1, 2) } });
  } catch (error) {
    const res = errorResponse(error);
    if (res) return res;
    throw error;
  }
}

export async function POST(req: Request, ctx: RouteContext<"/api/events/[eventId]/queue">) {
  const user = await getSessionUser(req.headers);
  if (!user) return jsonError(401, "Sign in to join the queue.");
  const id = eventIdSchema.safeParse((await ctx.params).eventId);
  if (!id.success) return jsonError(400, id.error.issues[0]!.message);
  const rejoin = new URL(req.url).searchParams.get("rejoin") === "1";
  try {
    await enforceLimit("join", clientIp(req.headers));
    const status = await statusWithToken(db(), id.data, user.id, await joinQueue(db(), id.data, user.id, { rejoin }));
    if (status.admissionToken && status.admittedUntil) {
      (await cookies()).set(admissionCookieName(id.data), status.admissionToken, { httpOnly: true, sameSite: "lax", path: "/", expires: new Date(status.admittedUntil) });
    }
    return NextResponse.json(status, { headers: { "Cache-Control": "private, no-store" } });
  } catch (error) {
    const res = errorResponse(error);
    if (res) return res;
    throw error;
  }
}
