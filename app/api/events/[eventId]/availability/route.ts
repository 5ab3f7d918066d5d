/** GET which seats are free right now, as a bitset (cacheable for about a second). */
import { NextResponse } from "next/server";
import { db } from "@/lib/db";
import { eventIdSchema, jsonError, publicCache } from "@/lib/http";
import { getAvailability } from "@/lib/inventory/availability";

export async function GET(_req: Request, ctx: RouteContext<"/api/events/[eventId]/availability">) {
  const parsed = eventIdSchema.safeParse((await ctx.params).eventId);
  if (!parsed.success) return jsonError(400, parsed.error.issues[0]!.message);
  const availability = await getAvailability(db(), parsed.data);
  if (!availability) return jsonError(404, "No show with that id");
  return NextResponse.json(availability, { headers: { "Cache-Control": publicCache(1, 5) } });
}
