/**
 * GET: the signed-in fan's own place (without joining); when admitted, a fresh admission
 * token (also set as an httpOnly cookie for the hold path).
 * DELETE: leave — frees the fan's admission slot for the next fan.
 */
import { cookies } from "next/headers";
import { NextResponse } from "next/server";
import { getSessionUser } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { errorResponse, eventIdSchema, jsonError } from "@/lib/http";
import { statusWithToken } from "@/lib/waiting-room/admission";
import { freeSlot } from "@/lib/waiting-room/queue";
import { admissionCookieName } from "@/lib/waiting-room/token";

async function caller(req: Request, ctx: RouteContext<"/api/events/[eventId]/queue/me">) {
  const user = await getSessionUser(req.headers);
  if (!user) return { error: jsonError(401, "Sign in to see your place in the queue.") };
  const id = eventIdSchema.safeParse((await ctx.params).eventId);
  if (!id.success) return { error: jsonError(400, id.error.issues[0]!.message) };
  return { user, eventId: id.data };
}

export async function GET(req: Request, ctx: RouteContext<"/api/events/[eventId]/queue/me">) {
  const c = await caller(req, ctx);
  if ("error" in c) return c.error;
  try {
    const status = await statusWithToken(db(), c.eventId, c.user.id);
    if (status.admissionToken && status.admittedUntil) {
      (await cookies()).set(admissionCookieName(c.eventId), status.admissionToken, { httpOnly: true, sameSite: "lax", path: "/", expires: new Date(status.admittedUntil) });
    }
    return NextResponse.json(status, { headers: { "Cache-Control": "private, no-store" } });
  } catch (error) {
    const res = errorResponse(error);
    if (res) return res;
    throw error;
  }
}

export async function DELETE(req: Request, ctx: RouteContext<"/api/events/[eventId]/queue/me">) {
  const c = await caller(req, ctx);
  if ("error" in c) return c.error;
  try {
    const freed = await freeSlot(db(), c.eventId, c.user.id);
    (await cookies()).delete(admissionCookieName(c.eventId));
    return NextResponse.json({ left: true, freedSlot: freed });
  } catch (error) {
    const res = errorResponse(error);
    if (res) return res;
    throw error;
  }
}
