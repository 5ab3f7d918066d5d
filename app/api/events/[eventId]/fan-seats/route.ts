/**
 * GET the signed-in fan's seats for this show against its per-fan limit (I6):
 * `{ limit, have, left }`. `have` is the count the hold path itself checks the limit against —
 * the inventory's per-fan live-seat count in Redis (held + sold; lib/inventory/lua.ts, the
 * `fan` hash behind FAN_LIMIT) — so the buy panel's quantity menu offers exactly what a hold
 * would accept. Private, never cached: it changes with the fan's own holds.
 */
import { z } from "zod";
import { db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { cachedEvent } from "@/lib/events/cache";
import { route } from "@/lib/http/route";
import { eventIdSchema } from "@/lib/ids";
import { inventoryKeys } from "@/lib/inventory/keys";
import { redis } from "@/lib/redis";

export const GET = route({ who: "user", signIn: "Sign in to see your tickets for this show.", params: z.object({ eventId: eventIdSchema }) }, async ({ params, user }) => {
  const [show, live] = await Promise.all([cachedEvent(db(), params.eventId), redis().hget<string | number>(inventoryKeys(params.eventId).fan, user.id)]);
  if (!show) throw new AppError("not_found", "no_such_show", "No show with that id");
  const limit = show.event.perFanLimit;
  const have = Number(live ?? 0);
  return { limit, have, left: Math.max(0, limit - have) };
});
