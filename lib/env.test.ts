import { describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "@/lib/env";

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
    expect(problems({ ...secrets, DEV_MAILBOX: "1", APP_URL: "https://tickets.example" })).toEqual(["DEV_MAILBOX"]);
    expect(problems({ ...secrets, DEV_MAILBOX: "1", HOST: "0.0.0.0" })).toEqual(["DEV_MAILBOX"]);
    expect(problems({ SMTP_URL: "http://mail.example" })).toEqual(["SMTP_URL"]);
    expect(parseEnv({ SMTP_URL: "smtps://u:p@smtp.example.com:465" }).SMTP_URL).toBe("smtps://u:p@smtp.example.com:465");
  });

  it("no secret has a built-in value off loopback or in production (docs/adr/0012)", () => {
    // Off loopback: every secret is required, each named.
    expect(problems({ APP_URL: "https://tickets.example.com" })).toEqual(["BETTER_AUTH_SECRET", "SANDBOX_PSP_WEBHOOK_SECRET", "TICKET_SIGNING_SECRET"]);
    // Bound to every interface, even with a local URL.
    expect(problems({ HOST: "0.0.0.0" })).toEqual(["BETTER_AUTH_SECRET", "SANDBOX_PSP_WEBHOOK_SECRET", "TICKET_SIGNING_SECRET"]);
    // Production on localhost: the same, plus the provider choice.
    expect(problems({ NODE_ENV: "production" })).toEqual(["BETTER_AUTH_SECRET", "PAYMENT_PROVIDER", "SANDBOX_PSP_WEBHOOK_SECRET", "TICKET_SIGNING_SECRET"]);
    const given = parseEnv({ APP_URL: "https://tickets.example.com", ...secrets });
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

  it("treats empty values as unset", () => {
    expect(parseEnv({ REDIS_URL: "" }).REDIS_URL).toBe("redis://127.0.0.1:6379");
  });
});
