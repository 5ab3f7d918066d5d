/**
 * StarArena's environment, validated once with zod.
 *
 * Every variable has a default that works on a development machine with Postgres on
 * 127.0.0.1:5432 (user postgres, trust auth) and Redis on 127.0.0.1:6379, so nothing
 * is needed to start. A malformed value stops start-up with an {@link EnvError} whose
 * message names the variable. `.env.example` documents each one.
 */
import { z } from "zod";

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);
/** Used only when BETTER_AUTH_SECRET is unset and the app is served from a local address. */
const DEV_AUTH_SECRET = "stararena-local-development-secret-do-not-use-in-production";

const boolish = z
  .enum(["0", "1", "true", "false", ""])
  .optional()
  .transform((v) => v === "1" || v === "true");

const schema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
    DATABASE_URL: z
      .url({ protocol: /^postgres(ql)?$/, error: "must be a postgres:// URL, e.g. postgres://postgres@127.0.0.1:5432/stararena" })
      .default("postgres://postgres@127.0.0.1:5432/stararena"),
    DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
    REDIS_URL: z
      .url({ protocol: /^rediss?$/, error: "must be a redis:// URL, e.g. redis://127.0.0.1:6379" })
      .default("redis://127.0.0.1:6379"),
    UPSTASH_REDIS_REST_URL: z.url({ error: "must be an https:// URL of an Upstash REST endpoint" }).optional(),
    UPSTASH_REDIS_REST_TOKEN: z.string().min(1).optional(),
    REDIS_KEY_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9:_-]*$/, "may only contain letters, digits, ':', '_' and '-'")
      .default("sa:"),
    APP_URL: z.url({ error: "must be the public base URL of the app, e.g. http://localhost:3000" }).default("http://localhost:3000"),
    PORT: z.coerce.number().int().min(1).max(65535).default(3000),
    BETTER_AUTH_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
    DEMO_ONSALE_DELAY_MINUTES: z.coerce.number().min(0).max(60 * 24 * 30).default(5),
    PAYMENT_PROVIDER: z.enum(["sandbox", "stripe"]).default("sandbox"),
    STRIPE_SECRET_KEY: z.string().startsWith("sk_", "must be a Stripe secret key (sk_…)").optional(),
    STRIPE_WEBHOOK_SECRET: z.string().startsWith("whsec_", "must be a Stripe webhook signing secret (whsec_…)").optional(),
    SANDBOX_PSP_WEBHOOK_SECRET: z.string().min(16).default("sandbox-psp-local-webhook-secret"),
    TICKET_SIGNING_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
    INNGEST_DEV: boolish,
    INNGEST_BASE_URL: z.url().optional(),
    INNGEST_EVENT_KEY: z.string().min(1).optional(),
    INNGEST_SIGNING_KEY: z.string().min(1).optional(),
  })
  .superRefine((v, ctx) => {
    if (Boolean(v.UPSTASH_REDIS_REST_URL) !== Boolean(v.UPSTASH_REDIS_REST_TOKEN)) {
      ctx.addIssue({
        code: "custom",
        path: [v.UPSTASH_REDIS_REST_URL ? "UPSTASH_REDIS_REST_TOKEN" : "UPSTASH_REDIS_REST_URL"],
        message: "UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN must be set together",
      });
    }
    if (v.PAYMENT_PROVIDER === "stripe" && (!v.STRIPE_SECRET_KEY || !v.STRIPE_WEBHOOK_SECRET)) {
      ctx.addIssue({
        code: "custom",
        path: [v.STRIPE_SECRET_KEY ? "STRIPE_WEBHOOK_SECRET" : "STRIPE_SECRET_KEY"],
        message: "is required when PAYMENT_PROVIDER=stripe",
      });
    }
    if (!v.BETTER_AUTH_SECRET && !LOCAL_HOSTS.has(new URL(v.APP_URL).hostname)) {
      ctx.addIssue({
        code: "custom",
        path: ["BETTER_AUTH_SECRET"],
        message: "is required when APP_URL is not a local address (generate one with `openssl rand -base64 32`)",
      });
    }
  })
  .transform((v) => {
    const authSecret = v.BETTER_AUTH_SECRET ?? DEV_AUTH_SECRET;
    // Ticket codes get their own key; by default one derived from the auth secret (see lib/tickets/codes.ts).
    return { ...v, BETTER_AUTH_SECRET: authSecret, TICKET_SIGNING_SECRET: v.TICKET_SIGNING_SECRET ?? `${authSecret}:ticket-codes` };
  });

/** The validated environment. */
export type Env = z.output<typeof schema>;

/** Raised when a variable is missing or malformed; the message names every bad variable. */
export class EnvError extends Error {
  constructor(readonly problems: { variable: string; message: string }[]) {
    super(
      "Invalid StarArena environment (see .env.example):\n" +
        problems.map((p) => `  - ${p.variable}: ${p.message}`).join("\n"),
    );
    this.name = "EnvError";
  }
}

/**
 * Parses an environment record (default: `process.env`).
 * @throws {EnvError} naming each missing or malformed variable.
 */
export function parseEnv(source: Record<string, string | undefined> = process.env): Env {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== ""));
  const result = schema.safeParse(cleaned);
  if (!result.success) {
    throw new EnvError(
      result.error.issues.map((issue) => ({ variable: String(issue.path[0] ?? "environment"), message: issue.message })),
    );
  }
  return result.data;
}

let cached: Env | undefined;

/** The process's validated environment, parsed on first use and then cached. @throws {EnvError} */
export function env(): Env {
  cached ??= parseEnv();
  return cached;
}
