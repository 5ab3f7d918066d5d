/** Short ticket codes (lib/tickets/short-code.ts): the alphabet, the format, and reading what people type. */
import { describe, expect, it } from "vitest";
import { CROCKFORD_ALPHABET, formatShortCode, newShortCode, parseShortCode } from "@/lib/tickets/short-code";

describe("short ticket codes", () => {
  it("are 10 characters of Crockford's alphabet (32 symbols, no I, L, O, U), all of them used", () => {
    expect(CROCKFORD_ALPHABET).toHaveLength(32);
    expect(CROCKFORD_ALPHABET).not.toMatch(/[ILOU]/);
    const seen = new Set<string>();
    for (let i = 0; i < 2_000; i++) {
      const code = newShortCode();
      expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{10}$/);
      for (const c of code) seen.add(c);
    }
    expect(seen.size).toBe(32);
  });

  it("are shown in two groups of five and read back however they were typed", () => {
    expect(formatShortCode("7K3QDM9XW2")).toBe("7K3QD-M9XW2");
    expect(parseShortCode("7K3QD-M9XW2")).toBe("7K3QDM9XW2");
    expect(parseShortCode(" 7k3qd m9xw2 ")).toBe("7K3QDM9XW2");
    // Look-alikes: O is zero, I and L are one.
    expect(parseShortCode("O1ILO-00000")).toBe("01110" + "00000");
    expect(parseShortCode("7K3QD-M9XW")).toBeNull(); // 9 characters
    expect(parseShortCode("7K3QD-M9XWU")).toBeNull(); // U is not a digit
    expect(parseShortCode("")).toBeNull();
  });
});
