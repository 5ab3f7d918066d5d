/**
 * `npm run door`: the door (lib/door/handler.ts) as its own Node process — join, public
 * status and the fan's own status without Next.js, for on-sale rates (docs/adr/0014). It
 * answers only /api/events/:id/queue and /api/events/:id/queue/me (404 for anything else);
 * route those paths to it at the reverse proxy or CDN (docs/scaling.md has the rule), or
 * let the app forward them (scripts/serve.ts with DOOR_URL, as `npm start` does).
 *
 * Like scripts/serve.ts it resolves the client address from the socket and TRUSTED_PROXY_HOPS
 * (lib/client-ip.ts) and writes it into `x-stararena-client-ip`, replacing what the caller sent.
 * Flags: `-p PORT` (DOOR_PORT, 3001), `-H HOST` (as serve.ts). Exits with its parent process.
 */
import { FastResponse, serve } from "srvx";
import type { IncomingMessage } from "node:http";
import { serverSettings } from "./lib/server-settings";
import { exitWithParent } from "./lib/processes";
import { CLIENT_IP_HEADER, resolveClientIp } from "@/lib/client-ip";
import { appDoor } from "@/lib/door/app";
import { closeDb } from "@/lib/db";
import { closeRedis } from "@/lib/redis";
import { checkHealth } from "@/lib/health";
import { AppError, toErrorResponse } from "@/lib/errors";

const { e, port, host } = serverSettings((env) => env.DOOR_PORT);
// srvx's Response writes straight to the Node response (no Web stream in between); the handler
// calls the global `Response`, so this process gives it that one.
globalThis.Response = FastResponse as unknown as typeof Response;
const door = appDoor();
const notHere = () => toErrorResponse(new AppError("not_found", "not_found", "There is nothing at this address: this is StarArena's door (the waiting room's API)."), crypto.randomUUID());

const server = serve({
  port,
  hostname: host,
  silent: true,
  fetch: async (req) => {
    // srvx builds the Request lazily from the Node request: write the resolved address first.
    const incoming = (req as { runtime?: { node?: { req?: IncomingMessage } } }).runtime?.node?.req;
    if (incoming) incoming.headers[CLIENT_IP_HEADER] = resolveClientIp(incoming.socket?.remoteAddress, incoming.headers["x-forwarded-for"], e.TRUSTED_PROXY_HOPS);
    return (await door(req)) ?? notHere();
  },
});
await server.ready();
// As scripts/serve.ts does: both dependencies are asked once a second (bounded: lib/health.ts), so a
// stalled Postgres is known here within about a second and queries behind the session fallback or
// a configuration restore get the short deadline (lib/db.ts) — a fast 503, never a 30-s wait.
const probe = setInterval(() => void checkHealth().catch(() => {}), 1_000);
probe.unref();
console.log(`▶ StarArena door listening on http://${host}:${port}`);

let closing = false;
async function shutdown(code: number) {
  if (closing) return;
  closing = true;
  setTimeout(() => process.exit(code), 3_000).unref();
  await server.close(true).catch(() => {});
  await Promise.allSettled([closeRedis(), closeDb()]);
  process.exit(code);
}
process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));
exitWithParent(() => void shutdown(0));
