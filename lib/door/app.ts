/**
 * The door (./handler.ts) as the Node app deploys it: on the process's Redis client, the
 * queue configuration restored from Postgres, and better-auth as the session fallback. The
 * Next route handlers of /api/events/:id/queue(/me) and the standalone door process
 * (scripts/door.ts) both answer through {@link appDoor}, so the two deployments are one code.
 */
import { getSessionUser } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { appOrigins, env } from "@/lib/env";
import { createDoor, type Door } from "@/lib/door/handler";
import { AppError, toErrorResponse } from "@/lib/errors";
import { redisConfigKey } from "@/lib/redis";
import { appRoomStore } from "@/lib/waiting-room/queue";

const KEY = Symbol.for("stararena.door");
type Holder = { [KEY]?: { key: string; door: Door } };

/** The process's door (built once per configuration). */
export function appDoor(): Door {
  const e = env();
  const key = `${e.BETTER_AUTH_SECRET}|${e.APP_URL}|${redisConfigKey()}`;
  const g = globalThis as Holder;
  if (g[KEY]?.key !== key) {
    g[KEY] = {
      key,
      door: createDoor({
        store: appRoomStore(db()),
        secret: e.BETTER_AUTH_SECRET,
        origins: appOrigins(e),
        fallbackUser: getSessionUser,
        secureCookies: new URL(e.APP_URL).protocol === "https:",
      }),
    };
  }
  return g[KEY].door;
}

/** A Next route handler answering through the door (every path it is mounted on is a door path). */
export async function doorRoute(req: Request): Promise<Response> {
  return (await appDoor()(req)) ?? toErrorResponse(new AppError("not_found", "not_found", "There is nothing at this address."), crypto.randomUUID());
}
