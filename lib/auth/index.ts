/**
 * Accounts: better-auth with its drizzle adapter over our Postgres (tables `user`,
 * `session`, `account`, `verification` in db/schema.ts). Email + password sign-in.
 * Every user has a `role`: "fan" (default, self sign-up), "organizer" (seeded or
 * granted by an operator; never settable through sign-up) or "door_staff" (made by an
 * organizer, lib/auth/staff.ts; `staffOf` names the organizer). A forgotten password is reset by
 * an e-mailed link (/forgot-password → the mail → /reset-password).
 */
import { betterAuth } from "better-auth";
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
      autoSignIn: true,
      // The reset link goes out through the e-mail outbox (lib/mail/outbox.ts): queued here, sent by the worker.
      sendResetPassword: async ({ user, url, token }) => {
        await enqueueEmail(db(), "password_reset", { url, name: user.name }, user.email, `password_reset:${token}`);
      },
      // better-auth's default (1 h), said in the message.
      resetPasswordTokenExpiresIn: 60 * 60,
      revokeSessionsOnPasswordReset: true,
    },
    user: {
      additionalFields: {
        role: { type: "string", input: false, required: false, defaultValue: "fan" },
        // Door staff's organizer (lib/auth/staff.ts sets it): in the session, so check-in needs no extra read.
        staffOf: { type: "string", input: false, required: false },
        // The language the person signed up in (lib/i18n), for their e-mails; the switcher changes it.
        locale: { type: "string", input: false, required: false },
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
