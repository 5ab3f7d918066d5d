/** GET the event's seat map geometry (cacheable for minutes: it only changes when the organizer edits the show). */
import { z } from "zod";
import { db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { publicCache } from "@/lib/http/cache";
import { route } from "@/lib/http/route";
import { eventIdSchema } from "@/lib/ids";
import { getSeatMap } from "@/lib/venues/seat-map";

export const GET = route({ params: z.object({ eventId: eventIdSchema }), badParams: "bad_request" }, async ({ params }) => {
  const map = await getSeatMap(db(), params.eventId);
  if (!map) throw new AppError("not_found", "no_such_show", "No show with that id");
  return Response.json(map, { headers: { "Cache-Control": publicCache(300, 3600) } });
});
