/**
 * Secrets for a machine that runs StarArena from a clone (docs/adr/0012). No secret ships
 * with the code: outside local development lib/env.ts refuses to start without them, so
 *   - `npm start` / `npm run dev` write random ones into `.env.local` (git-ignored) the
 *     first time, and keep using them — sessions, admission tokens and ticket codes stay
 *     valid across restarts; and, for a local demo only (APP_URL and HOST on loopback),
 *     `PAYMENT_PROVIDER=sandbox` with a comment saying what that means;
 *   - test servers and the simulator ({@link ensureRunSecrets}) get random ones for the
 *     run, in memory only.
 * Values already in the environment (or in `.env` / `.env.local`, loaded before) win.
 */
import { randomBytes } from "node:crypto";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import path from "node:path";

/** The secrets lib/env.ts requires outside local development. */
const SECRET_NAMES = ["BETTER_AUTH_SECRET", "TICKET_SIGNING_SECRET", "SANDBOX_PSP_WEBHOOK_SECRET"] as const;

/** 32 random bytes, base64url (43 characters). */
const randomSecret = () => randomBytes(32).toString("base64url");

const LOOPBACK = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[?::1\]?)$/;

/** True when the app is served from and bound to loopback addresses only: a local demo. */
function isLocalDemo(source: Record<string, string | undefined> = process.env): boolean {
  let host: string;
  try {
    host = new URL(source.APP_URL || "http://localhost:3000").hostname;
  } catch {
    return false;
  }
  return LOOPBACK.test(host) && (!source.HOST || LOOPBACK.test(source.HOST));
}

/**
 * Makes sure the secrets exist: missing ones are generated, appended to `.env.local` and
 * set in `process.env` (so child processes get them). For a local demo without a payment
 * provider, `PAYMENT_PROVIDER=sandbox` is written too.
 * @returns the names written now (empty when nothing was missing).
 */
export function ensureLocalEnvFile(opts: { root?: string; log?: (line: string) => void } = {}): string[] {
  const file = path.join(opts.root ?? process.cwd(), ".env.local");
  const lines: string[] = [];
  const written: string[] = [];
  for (const name of SECRET_NAMES) {
    if (process.env[name]) continue;
    const value = randomSecret();
    process.env[name] = value;
    lines.push(`${name}=${value}`);
    written.push(name);
  }
  if (!process.env.PAYMENT_PROVIDER && isLocalDemo()) {
    process.env.PAYMENT_PROVIDER = "sandbox";
    lines.push(
      "# The local demo's payment provider: the built-in sandbox PSP. Anyone who can open the app",
      "# can approve their own checkout, so it never runs where real fans buy. For real sales set",
      "# PAYMENT_PROVIDER=stripe with STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET (README, Environment).",
      "PAYMENT_PROVIDER=sandbox",
    );
    written.push("PAYMENT_PROVIDER");
  }
  if (lines.length === 0) return written;
  const fresh = !existsSync(file);
  const header = fresh ? ["# Written by `npm start` on first run: this machine's own secrets. Never commit it (it is git-ignored).", ""] : [""];
  const needsNewline = !fresh && !readFileSync(file, "utf8").endsWith("\n");
  appendFileSync(file, `${needsNewline ? "\n" : ""}${[...header, ...lines].join("\n")}\n`, { mode: 0o600 });
  opts.log?.(`  wrote ${written.join(", ")} to .env.local (generated once for this machine)`);
  return written;
}

/**
 * Random secrets for one run of a test server or the simulator, in memory only (never a
 * file): set in `process.env` where missing, so the processes the run starts share them.
 */
export function ensureRunSecrets(): void {
  for (const name of SECRET_NAMES) process.env[name] ||= randomSecret();
}
