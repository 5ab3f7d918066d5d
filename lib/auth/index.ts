/**
 * Accounts: better-auth with its drizzle adapter over our Postgres (tables `user`,
 * `session`, `account`, `verification` in db/schema.ts). Email + password sign-in.
 * Every user has a `role`: "fan" (default, self sign-up) or "organizer" (seeded or
 * granted by an operator; never settable through sign-up).
 */
import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { nextCookies } from "better-auth/next-js";
import * as schema from "@/db/schema";
import { db } from "@/lib/db";
import { env } from "@/lib/env";

function createAuth() {
  const e = env();
  return betterAuth({
    appName: "StarArena",
    baseURL: e.APP_URL,
    secret: e.BETTER_AUTH_SECRET,
    trustedOrigins: [e.APP_URL],
    database: drizzleAdapter(db(), {
      provider: "pg",
      schema: { user: schema.user, session: schema.session, account: schema.account, verification: schema.verification },
    }),
    emailAndPassword: { enabled: true, minPasswordLength: 8, autoSignIn: true },
    user: {
      additionalFields: {
        role: { type: "string", input: false, required: false, defaultValue: "fan" },
      },
    },
    session: { expiresIn: 60 * 60 * 24 * 7, cookieCache: { enabled: true, maxAge: 60 } },
    // better-auth's defaults (3 sign-ins per 10 s per IP) lock out fans behind one NAT or
    // carrier-grade NAT at an on-sale. Per-IP limits stay, looser; per-fan throttling of
    // the hot paths is the waiting room's job (@upstash/ratelimit, Redis-backed).
    rateLimit: {
      enabled: true,
      window: 60,
      max: 600,
      customRules: { "/sign-in/email": { window: 60, max: 30 }, "/sign-up/email": { window: 60, max: 30 } },
    },
    telemetry: { enabled: false },
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
