/** GET the event's seat map geometry (cacheable for minutes: it only changes when the organizer edits the show). */
import { NextResponse } from "next/server";
import { db } from "@/lib/db";
import { eventIdSchema, jsonError, publicCache } from "@/lib/http";
import { getSeatMap } from "@/lib/venues/seat-map";

export async function GET(_req: Request, ctx: RouteContext<"/api/events/[eventId]/seat-map">) {
  const parsed = eventIdSchema.safeParse((await ctx.params).eventId);
  if (!parsed.success) return jsonError(400, parsed.error.issues[0]!.message);
  const map = await getSeatMap(db(), parsed.data);
  if (!map) return jsonError(404, "No show with that id");
  return NextResponse.json(map, { headers: { "Cache-Control": publicCache(300, 3600) } });
}
