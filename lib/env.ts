/**
 * StarArena's environment, validated once with zod.
 *
 * Connection settings have defaults that work on a development machine with Postgres on
 * 127.0.0.1:5432 (user postgres, trust auth) and Redis on 127.0.0.1:6379. Secrets and
 * the payment provider do not, outside local development (docs/adr/0012): with
 * `NODE_ENV=production`, or a public deployment ({@link isPublicDeployment}: an `APP_URL`,
 * `HOST` or `APP_ORIGINS` entry that is not a loopback address), a
 * missing `BETTER_AUTH_SECRET`, `TICKET_SIGNING_SECRET` or (with the sandbox PSP)
 * `SANDBOX_PSP_WEBHOOK_SECRET` stops start-up, and so does production without an explicit
 * `PAYMENT_PROVIDER`; the sandbox PSP in a public deployment needs `SANDBOX_PSP_PUBLIC=1` besides
 * (docs/adr/0026). `npm start` writes random local secrets into `.env.local` once
 * (scripts/lib/local-env.ts). A malformed or missing value stops start-up with an
 * {@link EnvError} whose message names the variable. `.env.example` documents each one.
 */
import { z } from "zod";
import { AppError } from "@/lib/errors";

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** True for a loopback host name or address (localhost, 127.0.0.0/8, ::1). */
export function isLoopbackHost(host: string): boolean {
  return LOCAL_HOSTS.has(host) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Whether the deployment is served to others ("public", docs/adr/0026): `APP_URL`'s host,
 * `HOST` (a server's `-H`) or any origin in `APP_ORIGINS` is not a loopback address. An
 * `APP_ORIGINS` entry counts because same-origin writes and the auth library accept it: a
 * tunnel or reverse proxy on this machine serving https://tickets.example to a loopback app
 * reaches the public. The one judge of that for the built-in secrets, the sandbox PSP,
 * `INNGEST_DEV` and the development mailbox alike.
 */
export function isPublicDeployment(v: { APP_URL: string; HOST?: string; APP_ORIGINS?: readonly string[] }): boolean {
  if (!isLoopbackHost(new URL(v.APP_URL).hostname)) return true;
  if (v.HOST !== undefined && !isLoopbackHost(v.HOST)) return true;
  return (v.APP_ORIGINS ?? []).some((origin) => !isLoopbackHost(new URL(origin).hostname));
}

/**
 * Built-in values for local development only (NODE_ENV development/test, served from a
 * loopback address): anywhere else the variables are required. Public on purpose — they
 * protect nothing.
 */
const DEV_SECRETS = {
  BETTER_AUTH_SECRET: "stararena-local-development-secret-do-not-use-in-production",
  TICKET_SIGNING_SECRET: "stararena-local-development-ticket-key-not-for-production",
  SANDBOX_PSP_WEBHOOK_SECRET: "stararena-local-development-sandbox-webhooks",
} as const;

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
    /**
     * What sits between the app and Postgres (lib/db.ts): `none` (the default) or `transaction`
     * for a transaction-mode pooler (PgBouncer `pool_mode = transaction`, RDS Proxy, Neon's and
     * Supabase's poolers): named prepared statements are then off, since consecutive
     * transactions of one client may run on different server connections.
     */
    DATABASE_POOLER: z.enum(["none", "transaction"], { error: "must be none or transaction" }).default("none"),
    /** Longest any one Postgres query or transaction start may wait, in ms (lib/db.ts); 1.5 s while Postgres is known to be down. */
    DATABASE_QUERY_TIMEOUT_MS: z.coerce.number().int().min(500).max(600_000).default(30_000),
    /** Longest wait for a new Postgres connection, in seconds: past it a request answers 503 (lib/db.ts). */
    DATABASE_CONNECT_TIMEOUT_SECONDS: z.coerce.number().min(0.5).max(60).default(2),
    /**
     * Sign-ins and sign-ups one client address may make per minute (better-auth's per-IP limit,
     * lib/auth/index.ts). 30 by default; raise it where many people share one address (a venue's
     * Wi-Fi, carrier-grade NAT) — the e2e server does, since the whole suite signs in from 127.0.0.1.
     */
    AUTH_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(30),
    /** Longest any request may take before the server answers 503 itself, in ms (scripts/serve.ts); 2 s while a dependency is down. */
    REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(30_000),
    /**
     * The admission pacer's target (lib/waiting-room/pacing.ts): the hold latency p99 (ms, from
     * the request's arrival) it keeps the shop under by lowering the active cap; 0 (the default) = off.
     * On a shop tier of its own, 250 is a sensible start; sharing cores with the door it throttles the shop
     * without helping (docs/adr/0015).
     */
    ADMISSION_PACING_HOLD_P99_MS: z.coerce.number().int().min(0).max(60_000).default(0),
    /** Longest wait for one Redis reply, in ms: past it a request answers 503 (lib/redis-tcp.ts). */
    REDIS_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(2_000),
    REDIS_URL: z
      .url({ protocol: /^rediss?$/, error: "must be a redis:// URL, e.g. redis://127.0.0.1:6379" })
      .default("redis://127.0.0.1:6379"),
    /**
     * Seed nodes of a Redis Cluster, `host:port,host:port,…` (lib/redis-tcp.ts): when set, the
     * TCP transport speaks to the cluster, and REDIS_URL supplies only its user, password and TLS.
     */
    REDIS_CLUSTER_NODES: z
      .string()
      .optional()
      .transform((v, ctx) => {
        if (!v || !v.trim()) return undefined;
        const nodes = v.split(",").map((part) => part.trim()).filter(Boolean).map((part) => {
          const m = /^([A-Za-z0-9.-]+|\[[0-9a-fA-F:]+\]):(\d{1,5})$/.exec(part);
          const port = m ? Number(m[2]) : 0;
          if (!m || port < 1 || port > 65_535) {
            ctx.addIssue({ code: "custom", message: `"${part.slice(0, 60)}" is not host:port (e.g. 127.0.0.1:7001)` });
            return { host: "", port: 0 };
          }
          return { host: m[1]!.replace(/^\[|\]$/g, ""), port };
        });
        return nodes;
      }),
    UPSTASH_REDIS_REST_URL: z.url({ error: "must be an https:// URL of an Upstash REST endpoint" }).optional(),
    UPSTASH_REDIS_REST_TOKEN: z.string().min(1).optional(),
    REDIS_KEY_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9:_-]*$/, "may only contain letters, digits, ':', '_' and '-'")
      .default("sa:"),
    APP_URL: z.url({ error: "must be the public base URL of the app, e.g. http://localhost:3000" }).default("http://localhost:3000"),
    /**
     * Further origins the app is served from, comma-separated (`https://tickets.example,https://www.example`):
     * same-origin writes (lib/http/origin.ts) and the auth library accept them besides APP_URL's.
     */
    APP_ORIGINS: z
      .string()
      .optional()
      .transform((v, ctx) => {
        const list: string[] = [];
        for (const raw of (v ?? "").split(",").map((x) => x.trim()).filter(Boolean)) {
          const url = URL.canParse(raw) ? new URL(raw) : null;
          if (!url || !/^https?:$/.test(url.protocol) || url.origin !== raw.replace(/\/$/, "").toLowerCase()) {
            ctx.addIssue({ code: "custom", message: `must list origins such as https://tickets.example (scheme, host and port only), not ${JSON.stringify(raw.slice(0, 80))}` });
            return z.NEVER;
          }
          list.push(url.origin);
        }
        return list;
      }),
    /**
     * How many proxies in front of the app append to X-Forwarded-For (a CDN, a load balancer…).
     * 0 (default): the client is the TCP peer and X-Forwarded-For is ignored (lib/client-ip.ts).
     */
    TRUSTED_PROXY_HOPS: z.coerce.number().int("must be a whole number").min(0).max(10).default(0),
    PORT: z.coerce.number().int().min(1).max(65535).default(3000),
    /** Port of the standalone door process (scripts/door.ts). */
    DOOR_PORT: z.coerce.number().int().min(1).max(65535).default(3001),
    /** Where the app forwards the door's paths (/api/events/:id/queue…), e.g. http://127.0.0.1:3001; unset: the app answers them itself. */
    DOOR_URL: z.string().url().optional(),
    /** The address `npm start` binds to (default: 127.0.0.1 for a loopback APP_URL, else 0.0.0.0). */
    HOST: z.string().regex(/^[0-9A-Za-z.:[\]-]+$/, "must be a host name or an IP address, e.g. 127.0.0.1 or 0.0.0.0").optional(),
    BETTER_AUTH_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
    DEMO_ONSALE_DELAY_MINUTES: z.coerce.number().min(0).max(60 * 24 * 30).default(5),
    PAYMENT_PROVIDER: z.enum(["sandbox", "stripe"], { error: 'must be "stripe" or "sandbox"' }).optional(),
    /**
     * Checkouts a second StarArena may open at the PSP, across all instances (lib/payments/psp-budget.ts):
     * default 50 with Stripe (its live limit is 100 operations/s), unlimited with the sandbox; 0 = unlimited.
     */
    PSP_CHECKOUTS_PER_SECOND: z.coerce.number().int("must be a whole number").min(0).max(100_000).optional(),
    STRIPE_SECRET_KEY: z.string().startsWith("sk_", "must be a Stripe secret key (sk_…)").optional(),
    STRIPE_WEBHOOK_SECRET: z.string().startsWith("whsec_", "must be a Stripe webhook signing secret (whsec_…)").optional(),
    SANDBOX_PSP_WEBHOOK_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
    TICKET_SIGNING_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
    /** Where e-mail goes: `smtp://user:pass@host:587` or `smtps://…:465` (lib/mail/transport.ts); unset: messages wait in the outbox. */
    SMTP_URL: z.url({ protocol: /^smtps?$/, error: "must be an smtp:// or smtps:// URL, e.g. smtp://user:password@smtp.example.com:587" }).optional(),
    /** The sender of StarArena's e-mail. */
    MAIL_FROM: z.string().min(3).default("StarArena <tickets@stararena.test>"),
    /** Serves /dev/mailbox (every message the local development mailbox received, reset links included): never in a public deployment. */
    DEV_MAILBOX: boolish,
    /**
     * The acknowledgement that the sandbox PSP is served to others on purpose (a shared demo):
     * required when it is the provider in a public deployment ({@link isPublicDeployment}), since
     * anyone who reaches the app can approve their own checkout there (docs/adr/0026).
     */
    SANDBOX_PSP_PUBLIC: boolish,
    INNGEST_DEV: boolish,
    /**
     * The acknowledgement that the Inngest dev server's mode is used off loopback on purpose: in
     * it the SDK runs any call to /api/inngest without checking a signature (docs/adr/0026).
     */
    INNGEST_DEV_PUBLIC: boolish,
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
    const local = isLocalDevelopment(v);
    const production = v.NODE_ENV === "production";
    if (!v.PAYMENT_PROVIDER && production) {
      ctx.addIssue({
        code: "custom",
        path: ["PAYMENT_PROVIDER"],
        message:
          "is required in production: set PAYMENT_PROVIDER=stripe (with STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET) for real payments, " +
          "or PAYMENT_PROVIDER=sandbox for a demo with the built-in test PSP (anyone can approve their own checkout: never where real fans buy)",
      });
    }
    const loopback = !isPublicDeployment(v);
    if (v.DEV_MAILBOX && !loopback) {
      ctx.addIssue({ code: "custom", path: ["DEV_MAILBOX"], message: "shows every e-mail sent (password-reset links too): it is only allowed when APP_URL, HOST and every APP_ORIGINS entry are loopback addresses" });
    }
    const provider = v.PAYMENT_PROVIDER ?? "sandbox";
    if (provider === "sandbox" && !loopback && !v.SANDBOX_PSP_PUBLIC) {
      ctx.addIssue({
        code: "custom",
        path: ["SANDBOX_PSP_PUBLIC"],
        message:
          `must be 1 to serve the sandbox PSP (PAYMENT_PROVIDER=${v.PAYMENT_PROVIDER ? "sandbox" : "sandbox, the default outside production"}) when APP_URL, HOST or an APP_ORIGINS entry is not a loopback address: ` +
          "anyone who reaches this app could approve their own checkout there and get tickets for free. " +
          "Set PAYMENT_PROVIDER=stripe (with STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET) for real payments, " +
          "serve the demo on a loopback address only (APP_URL=http://localhost:3000, HOST unset or 127.0.0.1, no public APP_ORIGINS), " +
          "or set SANDBOX_PSP_PUBLIC=1 to serve the test PSP to others on purpose (a shared demo, never a real sale)",
      });
    }
    if (v.INNGEST_DEV && !loopback && !v.INNGEST_DEV_PUBLIC) {
      ctx.addIssue({
        code: "custom",
        path: ["INNGEST_DEV_PUBLIC"],
        message:
          "must be 1 to use INNGEST_DEV when APP_URL, HOST or an APP_ORIGINS entry is not a loopback address: in dev mode the Inngest SDK runs any call to /api/inngest " +
          "without checking its signature, so anyone who reaches this app could start its jobs. Use INNGEST_SIGNING_KEY and INNGEST_EVENT_KEY " +
          "off loopback, or set INNGEST_DEV_PUBLIC=1 on a network you trust",
      });
    }
    if (!local) {
      const why = production ? "with NODE_ENV=production" : "when APP_URL, HOST or an APP_ORIGINS entry is not a loopback address";
      const required: (keyof typeof DEV_SECRETS)[] = ["BETTER_AUTH_SECRET", "TICKET_SIGNING_SECRET", ...(provider === "sandbox" ? (["SANDBOX_PSP_WEBHOOK_SECRET"] as const) : [])];
      for (const name of required) {
        if (!v[name]) ctx.addIssue({ code: "custom", path: [name], message: `is required ${why} (generate one with \`openssl rand -base64 32\`; \`npm start\` writes local ones into .env.local)` });
      }
    }
  })
  .transform((v) => {
    const local = isLocalDevelopment(v);
    const dev = (name: keyof typeof DEV_SECRETS) => v[name] ?? (local ? DEV_SECRETS[name] : "");
    return {
      ...v,
      PAYMENT_PROVIDER: v.PAYMENT_PROVIDER ?? ("sandbox" as const),
      BETTER_AUTH_SECRET: dev("BETTER_AUTH_SECRET"),
      TICKET_SIGNING_SECRET: dev("TICKET_SIGNING_SECRET"),
      SANDBOX_PSP_WEBHOOK_SECRET: dev("SANDBOX_PSP_WEBHOOK_SECRET"),
    };
  });

/**
 * Local development: not production, and not a public deployment ({@link isPublicDeployment}).
 * Only then do secrets fall back to built-in values.
 */
function isLocalDevelopment(v: { NODE_ENV: string; APP_URL: string; HOST?: string; APP_ORIGINS?: readonly string[] }): boolean {
  return v.NODE_ENV !== "production" && !isPublicDeployment(v);
}

/** The validated environment. */
export type Env = z.output<typeof schema>;

/**
 * The origins the app is served from: APP_URL's, and for a loopback APP_URL the same port
 * under the other loopback names (`npm start` prints http://127.0.0.1:3000 while APP_URL
 * says localhost; both are this machine), plus APP_ORIGINS. Used by the same-origin rule
 * (lib/http/origin.ts) and the auth library's origin check.
 */
export function appOrigins(e: Pick<Env, "APP_URL"> & Partial<Pick<Env, "APP_ORIGINS">>): string[] {
  const url = new URL(e.APP_URL);
  const extra = e.APP_ORIGINS ?? [];
  if (!isLoopbackHost(url.hostname)) return [...new Set([url.origin, ...extra])];
  const port = url.port ? `:${url.port}` : "";
  return [...new Set([url.origin, ...["localhost", "127.0.0.1", "[::1]"].map((h) => `${url.protocol}//${h}${port}`), ...extra])];
}

/** Raised when a variable is missing or malformed; the message names every bad variable. */
export class EnvError extends AppError {
  constructor(readonly problems: { variable: string; message: string }[]) {
    super(
      "internal",
      "invalid_environment",
      "Invalid StarArena environment (see .env.example):\n" + problems.map((p) => `  - ${p.variable}: ${p.message}`).join("\n"),
    );
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
