/** GET the live stats of an organizer's own show (polled by the live view every 2 s). */
import { NextResponse } from "next/server";
import { organizerOfEventForRequest } from "@/lib/auth/session";
import { liveStats } from "@/lib/dashboard/live";
import { db } from "@/lib/db";
import { errorResponse, jsonError } from "@/lib/http";

export async function GET(req: Request, ctx: RouteContext<"/api/admin/events/[eventId]/live">) {
  const who = await organizerOfEventForRequest(req.headers, (await ctx.params).eventId);
  if (!who.ok) return jsonError(who.status, who.message);
  try {
    return NextResponse.json(await liveStats(db(), who.eventId), { headers: { "Cache-Control": "private, no-store" } });
  } catch (error) {
    const res = errorResponse(error);
    if (res) return res;
    throw error;
  }
}
