/** GET which seats are free right now, as a bitset (cacheable for about a second). */
import { z } from "zod";
import { db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { publicCache } from "@/lib/http/cache";
import { route } from "@/lib/http/route";
import { eventIdSchema } from "@/lib/ids";
import { getAvailability } from "@/lib/inventory/availability";

export const GET = route({ params: z.object({ eventId: eventIdSchema }), badParams: "bad_request" }, async ({ params }) => {
  const availability = await getAvailability(db(), params.eventId);
  if (!availability) throw new AppError("not_found", "no_such_show", "No show with that id");
  return Response.json(availability, { headers: { "Cache-Control": publicCache(1, 5) } });
});
