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

  it("requires the Upstash URL and token together, and a real secret off localhost", () => {
    expect(() => parseEnv({ UPSTASH_REDIS_REST_URL: "https://eu1.upstash.io" })).toThrow(/UPSTASH_REDIS_REST_TOKEN/);
    expect(() => parseEnv({ APP_URL: "https://tickets.example.com" })).toThrow(/BETTER_AUTH_SECRET: is required/);
    expect(parseEnv({ APP_URL: "https://tickets.example.com", BETTER_AUTH_SECRET: "x".repeat(32) }).BETTER_AUTH_SECRET).toBe("x".repeat(32));
  });

  it("treats empty values as unset", () => {
    expect(parseEnv({ REDIS_URL: "" }).REDIS_URL).toBe("redis://127.0.0.1:6379");
  });
});
