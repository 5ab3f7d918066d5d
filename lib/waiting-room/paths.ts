/**
 * The waiting room's HTTP paths — join and public status (`/api/events/:eventId/queue`), the
 * fan's own place (`…/queue/me`) — in one place: the door answers them (lib/door/handler.ts),
 * the app's server forwards them to a door process (scripts/serve.ts), and the simulator sends
 * them to one (lib/simulator/client.ts). Runtime-neutral.
 */

/** Matches a door path (query string allowed); group 1 is the raw event id segment, group 2 `/me` when present. */
export const DOOR_PATH = /^\/api\/events\/([^/?]+)\/queue(\/me)?\/?(?:\?|$)/;

/** True when `path` (with or without a query) is one of the door's. */
export const isDoorPath = (path: string): boolean => DOOR_PATH.test(path);
