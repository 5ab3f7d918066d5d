/** GET the live stats of an organizer's own show (polled by the live view every 2 s). */
import { z } from "zod";
import { assertOrganizerOfEvent } from "@/lib/auth/session";
import { liveStats } from "@/lib/dashboard/live";
import { db } from "@/lib/db";
import { route } from "@/lib/http/route";
import { eventIdSchema } from "@/lib/ids";

export const GET = route({ who: "organizer", signIn: "Sign in as the show's organizer.", params: z.object({ eventId: eventIdSchema }), badParams: "bad_request" }, async ({ params, user }) => {
  await assertOrganizerOfEvent(user, params.eventId);
  return liveStats(db(), params.eventId);
});
