/**
 * GET the signed-in fan's seats for this show against its per-fan limit (I6): `{ limit, have, left }`.
 * `have` is the count the hold path itself checks (lib/inventory/hold.ts `fanLiveSeats`), so the buy
 * panel's quantity menu offers exactly what a hold would accept. Private, never cached.
 */
import { z } from "zod";
import { db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { cachedEvent } from "@/lib/events/cache";
import { route } from "@/lib/http/route";
import { eventIdSchema } from "@/lib/ids";
import { fanLiveSeats } from "@/lib/inventory/hold";

export const GET = route({ who: "user", signIn: "Sign in to see your tickets for this show.", params: z.object({ eventId: eventIdSchema }) }, async ({ params, user }) => {
  const [show, live] = await Promise.all([cachedEvent(db(), params.eventId), fanLiveSeats(params.eventId, user.id)]);
  if (!show) throw new AppError("not_found", "no_such_show", "No show with that id");
  const limit = show.event.perFanLimit;
  const have = live;
  return { limit, have, left: Math.max(0, limit - have) };
});
