/** GET the live stats of an organizer's own show (polled by the live view every 2 s). */
import { and, eq } from "drizzle-orm";
import { NextResponse } from "next/server";
import { events } from "@/db/schema";
import { getSessionUser } from "@/lib/auth/session";
import { liveStats } from "@/lib/dashboard/live";
import { db } from "@/lib/db";
import { errorResponse, eventIdSchema, jsonError } from "@/lib/http";

export async function GET(req: Request, ctx: RouteContext<"/api/admin/events/[eventId]/live">) {
  const user = await getSessionUser(req.headers);
  if (!user) return jsonError(401, "Sign in as the show's organizer.");
  if (user.role !== "organizer") return jsonError(403, "Only organizers can see the live view.");
  const id = eventIdSchema.safeParse((await ctx.params).eventId);
  if (!id.success) return jsonError(400, id.error.issues[0]!.message);
  const own = await db().query.events.findFirst({ where: and(eq(events.id, id.data), eq(events.organizerId, user.id)) });
  if (!own) return jsonError(403, "This show is not yours.");
  try {
    return NextResponse.json(await liveStats(db(), id.data), { headers: { "Cache-Control": "private, no-store" } });
  } catch (error) {
    const res = errorResponse(error);
    if (res) return res;
    throw error;
  }
}
