/**
 * GET: the public queue status (serving counter, length, rate), cacheable by a CDN for
 * a second; constant work per request whatever the queue's length.
 * POST: join the queue (signed-in fan); idempotent. `?rejoin=1`: a fan whose turn ended
 * gets a new place at the back.
 * Both answered by the door (lib/door/handler.ts), the same code the standalone door process runs.
 */
import { doorRoute } from "@/lib/door/app";

export const GET = doorRoute;
export const POST = doorRoute;
