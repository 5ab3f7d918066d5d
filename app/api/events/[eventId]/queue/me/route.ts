/**
 * GET: the signed-in fan's own place (without joining); when admitted, a fresh admission
 * token (also set as an httpOnly cookie for the hold path).
 * DELETE: leave — frees the fan's admission slot for the next fan.
 * Both answered by the door (lib/door/handler.ts), the same code the standalone door process runs.
 */
import { doorRoute } from "@/lib/door/app";

export const GET = doorRoute;
export const DELETE = doorRoute;
