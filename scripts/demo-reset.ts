/**
 * `npm run demo:reset [-- --minutes 5]`: moves the seeded demo show's on-sale a few minutes
 * (default 3, 1–120) into the future and empties its waiting room, so anyone can watch the
 * on-sale again (lib/events/demo-reset.ts). Orders, tickets and seats are not touched: seats
 * sold stay sold. Works beside a running `npm start` (same .env.local, same database and Redis).
 * Exit codes: 0 done, 1 refused or a dependency is down, 2 bad arguments.
 */
import { loadProjectEnv } from "./load-env";
import { closeDb, db } from "@/lib/db";
import { env, EnvError } from "@/lib/env";
import { asAppError, dependencyOf } from "@/lib/errors";
import { DEMO_RESET_MINUTES, DEMO_SHOW_SLUG, resetDemoOnSale } from "@/lib/events/demo-reset";
import { formatCount, formatInZone, formatTimeInZone } from "@/lib/format";
import { closeRedis, redis } from "@/lib/redis";

const USAGE = `usage: npm run demo:reset [-- --minutes N] [--slug ${DEMO_SHOW_SLUG}]
  Moves the demo show's on-sale N minutes from now (default ${DEMO_RESET_MINUTES.default}, ${DEMO_RESET_MINUTES.min}–${DEMO_RESET_MINUTES.max}) and clears its waiting room.
  Orders, tickets and sold seats are not touched.`;

/** The arguments, or an error line for the usage. */
function parseArgs(argv: string[]): { minutes?: number; slug?: string; help?: true } | { error: string } {
  const out: { minutes?: number; slug?: string; help?: true } = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") continue; // `tsx scripts/demo-reset.ts -- --minutes 5`, as npm would pass it
    if (arg === "--help" || arg === "-h") return { help: true };
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    if (flag !== "--minutes" && flag !== "--slug") return { error: `unknown argument ${JSON.stringify(arg)}` };
    const value = inline ?? argv[++i];
    if (value === undefined || value === "") return { error: `${flag} needs a value` };
    if (flag === "--slug") out.slug = value;
    else {
      if (!/^\d+$/.test(value)) return { error: `--minutes must be a whole number from ${DEMO_RESET_MINUTES.min} to ${DEMO_RESET_MINUTES.max}, not ${JSON.stringify(value)}` };
      out.minutes = Number(value);
    }
  }
  return out;
}

const args = parseArgs(process.argv.slice(2));
if ("error" in args) {
  console.error(`demo:reset: ${args.error}\n${USAGE}`);
  process.exit(2);
}
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}

let exitCode = 0;
let urls: { db?: string; redis?: string } = {};
try {
  loadProjectEnv();
  const e = env();
  urls = { db: e.DATABASE_URL, redis: e.UPSTASH_REDIS_REST_URL ?? e.REDIS_URL };
  const r = await resetDemoOnSale(db(), redis(), { minutes: args.minutes, slug: args.slug });
  const held = r.seatsHeld > 0 ? ` (${formatCount(r.seatsHeld)} held seat${r.seatsHeld === 1 ? " stays" : "s stay"} held until their holds end or are paid)` : "";
  console.log(
    `Demo show ${r.name}: on-sale moved to ${formatTimeInZone(r.onSaleAt, r.timeZone)} (in ${r.minutes} min; was ${formatInZone(r.previousOnSaleAt, r.timeZone)}); ` +
      `waiting room cleared (${formatCount(r.queuePlacesCleared)} place${r.queuePlacesCleared === 1 ? "" : "s"} dropped); ` +
      `${formatCount(r.seatsSold)} seat${r.seatsSold === 1 ? "" : "s"} already sold stay sold${held}.`,
  );
  console.log(
    "Orders, payments and tickets are unchanged. The show page shows the new time within 15 s. " +
      "Fans who queued before must join again (a browser that still shows an old place: use a private window or clear the site's cookies).",
  );
} catch (error) {
  exitCode = 1;
  const known = asAppError(error);
  const down = dependencyOf(error);
  const why = (known?.detail ?? String(error)).replace(/\.+$/, "");
  if (error instanceof EnvError) console.error(`demo:reset: ${error.message}`);
  else if (down === "postgres") console.error(`demo:reset: cannot reach the database (${safeUrl(urls.db)}): ${why}. Is Postgres running? \`npm start\` starts a local one.`);
  else if (down === "redis") console.error(`demo:reset: cannot reach Redis (${safeUrl(urls.redis)}): ${why}. Nothing was changed. Is Redis running?`);
  else if (known) console.error(`demo:reset: ${known.message} (${known.code})`);
  else {
    console.error("demo:reset: failed:", error);
  }
} finally {
  await Promise.allSettled([closeDb(), closeRedis()]);
}
process.exit(exitCode);

/** A connection URL without its password, for messages. */
function safeUrl(url: string | undefined): string {
  if (!url) return "not set";
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "unparseable URL";
  }
}
