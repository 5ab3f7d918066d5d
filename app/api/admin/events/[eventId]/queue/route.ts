/** POST the waiting room's live controls (pause, resume, rate, cap) for an organizer's own show. */
import { z } from "zod";
import { assertOrganizerOfEvent } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { route } from "@/lib/http/route";
import { eventIdSchema } from "@/lib/ids";
import { queueControlsFrom, setQueueControls } from "@/lib/waiting-room/config";
import { publicQueueStatus } from "@/lib/waiting-room/queue";

export const POST = route(
  // The body is any JSON: queueControlsFrom checks it, each refusal a code worded in the organizer's language.
  { who: "organizer", signIn: "Sign in as the show's organizer.", params: z.object({ eventId: eventIdSchema }), badParams: "bad_request", body: z.unknown() },
  async ({ params, body, user }) => {
    await assertOrganizerOfEvent(user, params.eventId);
    await setQueueControls(db(), params.eventId, queueControlsFrom(body));
    return publicQueueStatus(db(), params.eventId);
  },
);
