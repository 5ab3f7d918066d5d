import { describe, expect, it } from "vitest";
import { EnvError, isPublicDeployment, parseEnv } from "@/lib/env";

describe("parseEnv", () => {
  it("works with nothing set, using this machine's defaults", () => {
    const e = parseEnv({});
    expect(e.DATABASE_URL).toBe("postgres://postgres@127.0.0.1:5432/stararena");
    expect(e.REDIS_URL).toBe("redis://127.0.0.1:6379");
    expect(e.PORT).toBe(3000);
    expect(e.BETTER_AUTH_SECRET.length).toBeGreaterThanOrEqual(32);
  });

  it("names each malformed variable", () => {
    const error = (() => {
      try {
        parseEnv({ DATABASE_URL: "mysql://x", PORT: "99999" });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(EnvError);
    expect((error as EnvError).problems.map((p) => p.variable).sort()).toEqual(["DATABASE_URL", "PORT"]);
    expect((error as EnvError).message).toMatch(/DATABASE_URL: must be a postgres:\/\/ URL/);
  });

  it("requires the Upstash URL and token together", () => {
    expect(() => parseEnv({ UPSTASH_REDIS_REST_URL: "https://eu1.upstash.io" })).toThrow(/UPSTASH_REDIS_REST_TOKEN/);
  });

  const problems = (source: Record<string, string>) => {
    try {
      parseEnv(source);
      return [];
    } catch (e) {
      return (e as EnvError).problems.map((p) => p.variable).sort();
    }
  };
  const secrets = { BETTER_AUTH_SECRET: "a".repeat(32), TICKET_SIGNING_SECRET: "t".repeat(32), SANDBOX_PSP_WEBHOOK_SECRET: "w".repeat(32) };

  it("the development mailbox page is refused off loopback, and SMTP_URL must be an smtp URL", () => {
    expect(problems({ DEV_MAILBOX: "1" })).toEqual([]);
    expect(problems({ ...secrets, SANDBOX_PSP_PUBLIC: "1", DEV_MAILBOX: "1", APP_URL: "https://tickets.example" })).toEqual(["DEV_MAILBOX"]);
    expect(problems({ ...secrets, SANDBOX_PSP_PUBLIC: "1", DEV_MAILBOX: "1", HOST: "0.0.0.0" })).toEqual(["DEV_MAILBOX"]);
    expect(problems({ SMTP_URL: "http://mail.example" })).toEqual(["SMTP_URL"]);
    expect(parseEnv({ SMTP_URL: "smtps://u:p@smtp.example.com:465" }).SMTP_URL).toBe("smtps://u:p@smtp.example.com:465");
  });

  it("no secret has a built-in value off loopback or in production (docs/adr/0012)", () => {
    // Off loopback: every secret is required, each named (and the sandbox, the default outside production, its acknowledgement).
    expect(problems({ APP_URL: "https://tickets.example.com" })).toEqual(["BETTER_AUTH_SECRET", "SANDBOX_PSP_PUBLIC", "SANDBOX_PSP_WEBHOOK_SECRET", "TICKET_SIGNING_SECRET"]);
    // Bound to every interface, even with a local URL.
    expect(problems({ HOST: "0.0.0.0" })).toEqual(["BETTER_AUTH_SECRET", "SANDBOX_PSP_PUBLIC", "SANDBOX_PSP_WEBHOOK_SECRET", "TICKET_SIGNING_SECRET"]);
    // Production on localhost: the same secrets, plus the provider choice.
    expect(problems({ NODE_ENV: "production" })).toEqual(["BETTER_AUTH_SECRET", "PAYMENT_PROVIDER", "SANDBOX_PSP_WEBHOOK_SECRET", "TICKET_SIGNING_SECRET"]);
    const given = parseEnv({ APP_URL: "https://tickets.example.com", SANDBOX_PSP_PUBLIC: "1", ...secrets });
    expect([given.BETTER_AUTH_SECRET, given.TICKET_SIGNING_SECRET, given.SANDBOX_PSP_WEBHOOK_SECRET]).toEqual([secrets.BETTER_AUTH_SECRET, secrets.TICKET_SIGNING_SECRET, secrets.SANDBOX_PSP_WEBHOOK_SECRET]);
    // The sandbox's webhook secret is not needed when Stripe is the provider.
    expect(problems({ NODE_ENV: "production", PAYMENT_PROVIDER: "stripe", STRIPE_SECRET_KEY: "sk_test_x", STRIPE_WEBHOOK_SECRET: "whsec_x", BETTER_AUTH_SECRET: secrets.BETTER_AUTH_SECRET, TICKET_SIGNING_SECRET: secrets.TICKET_SIGNING_SECRET })).toEqual([]);
  });

  it("production has no default payment provider, and the refusal names the choice", () => {
    const error = (() => {
      try {
        parseEnv({ NODE_ENV: "production", ...secrets });
      } catch (e) {
        return e as EnvError;
      }
    })();
    expect(error?.problems).toEqual([{ variable: "PAYMENT_PROVIDER", message: expect.stringMatching(/PAYMENT_PROVIDER=stripe .* or PAYMENT_PROVIDER=sandbox for a demo/) }]);
    expect(parseEnv({ NODE_ENV: "production", PAYMENT_PROVIDER: "sandbox", ...secrets }).PAYMENT_PROVIDER).toBe("sandbox");
    // Local development keeps the sandbox as its default.
    expect(parseEnv({}).PAYMENT_PROVIDER).toBe("sandbox");
    expect(parseEnv({ NODE_ENV: "test" }).PAYMENT_PROVIDER).toBe("sandbox");
  });

  it("the sandbox PSP off loopback needs SANDBOX_PSP_PUBLIC=1, and the refusal says why (docs/adr/0026)", () => {
    const publicUrl = { APP_URL: "https://tickets.example.com" };
    // The demo's .env.local (PAYMENT_PROVIDER=sandbox) started for the public: refused, whatever makes it public.
    const places: Record<string, string>[] = [{ ...publicUrl, HOST: "0.0.0.0" }, publicUrl, { HOST: "0.0.0.0" }, { HOST: "192.0.2.10" }, { APP_URL: "http://192.0.2.10:3000" }];
    for (const where of places) {
      for (const nodeEnv of ["development", "production"]) {
        expect(problems({ ...secrets, NODE_ENV: nodeEnv, PAYMENT_PROVIDER: "sandbox", ...where })).toEqual(["SANDBOX_PSP_PUBLIC"]);
      }
    }
    const refusal = (() => {
      try {
        parseEnv({ ...secrets, ...publicUrl, HOST: "0.0.0.0", PAYMENT_PROVIDER: "sandbox" });
      } catch (e) {
        return (e as EnvError).message;
      }
    })();
    expect(refusal).toMatch(/SANDBOX_PSP_PUBLIC: must be 1 .* not a loopback address: anyone who reaches this app could approve their own checkout there and get tickets for free/);
    // Non-production without a provider defaults to the sandbox: the same refusal.
    expect(problems({ ...secrets, ...publicUrl })).toEqual(["SANDBOX_PSP_PUBLIC"]);
    // "0" and "false" are no acknowledgement.
    expect(problems({ ...secrets, ...publicUrl, PAYMENT_PROVIDER: "sandbox", SANDBOX_PSP_PUBLIC: "0" })).toEqual(["SANDBOX_PSP_PUBLIC"]);
    expect(problems({ ...secrets, ...publicUrl, PAYMENT_PROVIDER: "sandbox", SANDBOX_PSP_PUBLIC: "false" })).toEqual(["SANDBOX_PSP_PUBLIC"]);
    // Acknowledged: a shared demo starts.
    const shared = parseEnv({ ...secrets, ...publicUrl, HOST: "0.0.0.0", NODE_ENV: "production", PAYMENT_PROVIDER: "sandbox", SANDBOX_PSP_PUBLIC: "1" });
    expect([shared.PAYMENT_PROVIDER, shared.SANDBOX_PSP_PUBLIC]).toEqual(["sandbox", true]);
    // Stripe needs no acknowledgement anywhere.
    const stripe = { PAYMENT_PROVIDER: "stripe", STRIPE_SECRET_KEY: "sk_live_x", STRIPE_WEBHOOK_SECRET: "whsec_x" };
    expect(problems({ ...secrets, ...publicUrl, HOST: "0.0.0.0", NODE_ENV: "production", ...stripe })).toEqual([]);
    // The local demo (`npm start` on loopback) is unchanged, in development and production mode alike.
    const locals: Record<string, string>[] = [{}, { APP_URL: "http://localhost:3000" }, { APP_URL: "http://127.0.0.1:3100", HOST: "127.0.0.1" }, { HOST: "::1" }, { HOST: "localhost" }];
    for (const local of locals) {
      expect(problems({ PAYMENT_PROVIDER: "sandbox", ...local })).toEqual([]);
      expect(problems({ ...secrets, NODE_ENV: "production", PAYMENT_PROVIDER: "sandbox", ...local })).toEqual([]);
    }
    // The development mailbox has no acknowledgement: it shows every account's reset links, so off loopback it is refused outright.
    expect(problems({ ...secrets, ...publicUrl, PAYMENT_PROVIDER: "sandbox", SANDBOX_PSP_PUBLIC: "1", DEV_MAILBOX: "1" })).toEqual(["DEV_MAILBOX"]);
  });

  it("a public origin in APP_ORIGINS makes the deployment public: a tunnel to a loopback app needs every acknowledgement too", () => {
    // APP_URL and HOST local, the public reaching the app through a tunnel or reverse proxy on this machine.
    const tunnel = { APP_URL: "http://localhost:3000", APP_ORIGINS: "https://tickets.example" };
    expect(isPublicDeployment({ APP_URL: "http://localhost:3000", APP_ORIGINS: ["https://tickets.example"] })).toBe(true);
    expect(problems({ ...secrets, ...tunnel, PAYMENT_PROVIDER: "sandbox" })).toEqual(["SANDBOX_PSP_PUBLIC"]);
    expect(problems({ ...secrets, ...tunnel, PAYMENT_PROVIDER: "sandbox", SANDBOX_PSP_PUBLIC: "1", INNGEST_DEV: "1" })).toEqual(["INNGEST_DEV_PUBLIC"]);
    expect(problems({ ...secrets, ...tunnel, PAYMENT_PROVIDER: "sandbox", SANDBOX_PSP_PUBLIC: "1", DEV_MAILBOX: "1" })).toEqual(["DEV_MAILBOX"]);
    // …and no built-in secret either.
    expect(problems({ ...tunnel, SANDBOX_PSP_PUBLIC: "1" })).toEqual(["BETTER_AUTH_SECRET", "SANDBOX_PSP_WEBHOOK_SECRET", "TICKET_SIGNING_SECRET"]);
    expect(problems({ ...secrets, ...tunnel, SANDBOX_PSP_PUBLIC: "1" })).toEqual([]);
    // Any one public entry among loopback ones is enough.
    expect(problems({ ...secrets, APP_ORIGINS: "http://127.0.0.1:3100,https://www.tickets.example", PAYMENT_PROVIDER: "sandbox" })).toEqual(["SANDBOX_PSP_PUBLIC"]);
    // Loopback origins keep the local demo local.
    const local = { APP_ORIGINS: "http://127.0.0.1:3100,http://[::1]:3000,http://localhost:4000" };
    expect(isPublicDeployment({ APP_URL: "http://localhost:3000", APP_ORIGINS: ["http://127.0.0.1:3100", "http://[::1]:3000"] })).toBe(false);
    expect(problems({ ...local, PAYMENT_PROVIDER: "sandbox", DEV_MAILBOX: "1", INNGEST_DEV: "1" })).toEqual([]);
  });

  it("the Inngest dev mode (no signature checks on /api/inngest) off loopback needs INNGEST_DEV_PUBLIC=1", () => {
    expect(problems({ INNGEST_DEV: "1" })).toEqual([]);
    const off = { ...secrets, SANDBOX_PSP_PUBLIC: "1", HOST: "0.0.0.0" };
    expect(problems({ ...off, INNGEST_DEV: "1" })).toEqual(["INNGEST_DEV_PUBLIC"]);
    expect(problems({ ...off, INNGEST_DEV: "1", INNGEST_DEV_PUBLIC: "1" })).toEqual([]);
    expect(problems({ ...off, INNGEST_SIGNING_KEY: "signkey-prod-x", INNGEST_EVENT_KEY: "k" })).toEqual([]);
  });

  it("treats empty values as unset", () => {
    expect(parseEnv({ REDIS_URL: "" }).REDIS_URL).toBe("redis://127.0.0.1:6379");
  });
});
