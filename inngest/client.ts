/**
 * The Inngest client. Configuration comes from the environment as the SDK reads it
 * (INNGEST_DEV / INNGEST_BASE_URL for a dev server, INNGEST_EVENT_KEY and
 * INNGEST_SIGNING_KEY in production). Without any of them the app runs its local worker
 * instead (lib/jobs/worker.ts), and nothing on a request path ever calls `inngest.send`.
 */
import { Inngest } from "inngest";

export const inngest = new Inngest({ id: "stararena" });
