/**
 * Accounts: better-auth with its drizzle adapter over our Postgres (tables `user`,
 * `session`, `account`, `verification` in db/schema.ts). Email + password sign-in.
 * Every user has a `role`: "fan" (default, self sign-up), "organizer" (seeded or
 * granted by an operator; never settable through sign-up) or "door_staff" (made by an
 * organizer, lib/auth/staff.ts; `staffOf` names the organizer). A forgotten password is reset by
 * an e-mailed link (/forgot-password → the mail → /reset-password).
 *
 * A new account confirms its address before it can sign in (ADR 0027): sign-up answers alike
 * for a taken and a new address ("check your inbox", no session either way, better-auth's own
 * enumeration protection); the new address gets one link that confirms it, the owner of a
 * taken one a notice (sign in, or reset the password). The link signs no one in: signing in
 * takes the password too, so whoever opens the link of an account someone else signed up
 * (and knows the password of) is never inside it; they reset the password, which replaces it,
 * confirms the address and ends every session. Accounts made without the form (seed, door
 * staff, simulator, tests) are created confirmed.
 */
import { createHash } from "node:crypto";
import { betterAuth, type User } from "better-auth";
import { eq, sql } from "drizzle-orm";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { nextCookies } from "better-auth/next-js";
import * as schema from "@/db/schema";
import { db } from "@/lib/db";
import { enqueueEmail } from "@/lib/mail/outbox";
import { CLIENT_IP_HEADER } from "@/lib/client-ip";
import { localeOfRequest } from "@/lib/i18n/config";
import { appOrigins, env } from "@/lib/env";

/** How long the signed session cookie cache is trusted without Postgres (seconds; ADR 0007). */
export const SESSION_CACHE_SECONDS = 5 * 60;

/** How long a link that confirms an address works (seconds); the messages say 24 hours. */
export const VERIFY_LINK_SECONDS = 24 * 60 * 60;

/**
 * Every confirmation link lands on /verified, which says so and continues to where the fan
 * was going (the link's own callbackURL, `/` when none).
 */
export function landOnVerified(url: string): string {
  const u = new URL(url);
  const next = u.searchParams.get("callbackURL") || "/";
  if (!next.startsWith("/verified")) u.searchParams.set("callbackURL", `/verified?next=${encodeURIComponent(next)}`);
  return u.toString();
}

/** Queues the confirmation link (better-auth's `url`) through the e-mail outbox, once per token. */
async function sendVerificationEmail({ user, url, token }: { user: User; url: string; token: string }) {
  const key = createHash("sha256").update(token).digest("base64url");
  await enqueueEmail(db(), "email_verification", { url: landOnVerified(url), name: user.name }, user.email, `email_verification:${key}`);
}

/**
 * A sign-up with an address that has an account: its owner is told (sign in, or reset the
 * password), at most once an hour by Postgres's clock. The sign-up itself gets better-auth's
 * success-shaped answer, as a new address does. An account never confirmed gets the same
 * notice, not a new link: the first sign-up chose its password (perhaps someone else, to keep
 * access later), and a reset replaces that password and confirms the address (below).
 */
async function onExistingUserSignUp({ user }: { user: User }) {
  const [row] = (await db().execute(sql`select to_char(date_trunc('hour', now()), 'YYYY-MM-DD"T"HH24') as hour`)) as unknown as { hour: string }[];
  await enqueueEmail(db(), "sign_up_existing", { name: user.name }, user.email, `sign_up_existing:${user.id}:${row!.hour}`);
}

/** A password reset from the e-mailed link proves the mailbox as a confirmation link does. */
async function onPasswordReset({ user }: { user: User }) {
  if (!user.emailVerified) await db().update(schema.user).set({ emailVerified: true }).where(eq(schema.user.id, user.id));
}

function createAuth() {
  const e = env();
  return betterAuth({
    appName: "StarArena",
    baseURL: e.APP_URL,
    secret: e.BETTER_AUTH_SECRET,
    trustedOrigins: appOrigins(e),
    database: drizzleAdapter(db(), {
      provider: "pg",
      schema: { user: schema.user, session: schema.session, account: schema.account, verification: schema.verification },
    }),
    emailAndPassword: {
      enabled: true,
      minPasswordLength: 8,
      // No session until the address is confirmed; sign-up then answers a taken address as it
      // answers a new one (better-auth's synthetic user, no second account) and sign-in with
      // the right password answers 403 EMAIL_NOT_VERIFIED (sending nothing: see below).
      requireEmailVerification: true,
      onExistingUserSignUp,
      // The reset link goes out through the e-mail outbox (lib/mail/outbox.ts): queued here, sent by the worker.
      sendResetPassword: async ({ user, url, token }) => {
        await enqueueEmail(db(), "password_reset", { url, name: user.name }, user.email, `password_reset:${token}`);
      },
      // better-auth's default (1 h), said in the message.
      resetPasswordTokenExpiresIn: 60 * 60,
      revokeSessionsOnPasswordReset: true,
      onPasswordReset,
    },
    // The link proves the mailbox, the password proves who signed up: confirming signs no one
    // in (account pre-hijacking: someone may sign up with another person's address, and the
    // owner's click would put them into an account whose password the squatter knows). The
    // one link goes out at sign-up; nobody can make StarArena mail an owner more at will
    // (sendOnSignIn off, /send-verification-email disabled below). A fan who lost it resets the
    // password, which confirms the address (onPasswordReset).
    emailVerification: {
      sendVerificationEmail,
      sendOnSignUp: true,
      sendOnSignIn: false,
      autoSignInAfterVerification: false,
      expiresIn: VERIFY_LINK_SECONDS,
    },
    disabledPaths: ["/send-verification-email"],
    user: {
      additionalFields: {
        role: { type: "string", input: false, required: false, defaultValue: "fan" },
        // Door staff's organizer (lib/auth/staff.ts sets it): in the session, so check-in needs no extra read.
        staffOf: { type: "string", input: false, required: false },
        // The language the person signed up in (lib/i18n), for their e-mails; the switcher changes it.
        // Never in an answer: sign-up's answer for a taken address (which cannot know it) must look like a new one's.
        locale: { type: "string", input: false, required: false, returned: false },
      },
    },
    // The signed session cookie cache answers "who is this?" without Postgres for 5 minutes
    // after each look-up: a fan's queue polls, hold, checkout and order page during an on-sale
    // cost one session read, not one each (ADR 0007). A revoked session may act for ≤ 5 min.
    session: { expiresIn: 60 * 60 * 24 * 7, cookieCache: { enabled: true, maxAge: SESSION_CACHE_SECONDS } },
    // better-auth's defaults (3 sign-ins per 10 s per IP) lock out fans behind one NAT or
    // carrier-grade NAT at an on-sale. Per-IP limits stay, looser; per-fan throttling of
    // the hot paths is the waiting room's job (@upstash/ratelimit, Redis-backed).
    rateLimit: {
      enabled: true,
      window: 60,
      max: 600,
      customRules: { "/sign-in/email": { window: 60, max: e.AUTH_RATE_LIMIT_PER_MINUTE }, "/sign-up/email": { window: 60, max: e.AUTH_RATE_LIMIT_PER_MINUTE } },
    },
    // Its per-IP limits key on the address our HTTP server resolved from the socket and the
    // trusted proxy hops (lib/client-ip.ts), never on X-Forwarded-For as the caller wrote it.
    advanced: { ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] } },
    telemetry: { enabled: false },
    // No OpenTelemetry spans around every auth call: they cost CPU on each request and no tracer is configured.
    experimental: { instrumentation: { enabled: false } },
    // A new account speaks the language its sign-up page was in (the cookie, else Accept-Language).
    databaseHooks: { user: { create: { before: async (u, ctx) => ({ data: { ...u, locale: ctx?.request ? localeOfRequest(ctx.request.headers) : ctx?.headers ? localeOfRequest(ctx.headers) : null } }) } } },
    plugins: [nextCookies()],
  });
}

export type Auth = ReturnType<typeof createAuth>;

const globalForAuth = globalThis as unknown as { __stararenaAuth?: Auth };

/** The process-wide better-auth instance. */
export function auth(): Auth {
  globalForAuth.__stararenaAuth ??= createAuth();
  return globalForAuth.__stararenaAuth;
}
