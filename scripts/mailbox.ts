/**
 * `npm run mailbox`: the local development mailbox (lib/mail/dev-mailbox.ts), a real SMTP
 * server on 127.0.0.1:MAILBOX_PORT (2525) storing what it receives for /dev/mailbox and the
 * tests. `npm start` runs it when no SMTP_URL is configured (for local development only), and
 * points the worker at it; so does the e2e server.
 */
import { loadProjectEnv } from "./load-env";
import { exitWithParent } from "./lib/processes";
import { closeDb, db } from "@/lib/db";
import { startDevMailbox } from "@/lib/mail/dev-mailbox";

loadProjectEnv();
const port = Number(process.env.MAILBOX_PORT ?? 2525);
const mailbox = await startDevMailbox(db(), { port, log: (line) => console.log(`[mailbox] ${line}`) });
console.log(`▶ development mailbox (SMTP) on 127.0.0.1:${mailbox.port}: messages at /dev/mailbox`);
const shutdown = async () => {
  await mailbox.stop();
  await closeDb();
  process.exit(0);
};
process.on("SIGINT", () => void shutdown());
process.on("SIGTERM", () => void shutdown());
exitWithParent(() => void shutdown());
