/**
 * lib/signing.ts against the references it replaces on the hot path: signatures as text are the
 * bytes' base64, and text ⇄ base64url through `btoa`/`atob` accepts and yields exactly what
 * @scure/base does — no more (forgiving `atob` would take whitespace and stray bits), no less;
 * and the memo of verified values answers only for the value and secret it was given.
 */
import { base64urlnopad } from "@scure/base";
import { describe, expect, it } from "vitest";
import { hmacSha256, hmacSha256Base64, hmacSha256Base64Url, textFromBase64Url, textToBase64Url, toBase64, toBase64Url, VerifiedMemo } from "@/lib/signing";

/** What textFromBase64Url did before it used atob: @scure/base's strict codec, then strict UTF-8. */
function reference(encoded: string): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(base64urlnopad.decode(encoded.replace(/=+$/, "")));
  } catch {
    return null;
  }
}

/** A deterministic pseudo-random generator (so a failure reproduces). */
function rng(seed: number) {
  return () => ((seed = (seed * 1_103_515_245 + 12_345) >>> 0) / 2 ** 32);
}

describe("signatures as text", () => {
  it("are the base64 and base64url of the HMAC's bytes", () => {
    for (const [key, message] of [
      ["secret", "message"],
      [new Uint8Array(32).fill(7), "ticket payload"],
      ["ключ", "сообщение ✓"],
    ] as const) {
      expect(hmacSha256Base64Url(key, message)).toBe(toBase64Url(hmacSha256(key, message)));
      expect(hmacSha256Base64(key, message)).toBe(toBase64(hmacSha256(key, message)));
    }
  });
});

describe("text ⇄ base64url", () => {
  it("round-trips ASCII and non-ASCII text, as @scure/base encodes it", () => {
    for (const text of ["", "a", "ab", "abc", '{"e":"evt_1","p":3}', "Zoë ✓ 中文 🎟️", "x".repeat(1000)]) {
      const encoded = textToBase64Url(text);
      expect(encoded).toBe(base64urlnopad.encode(new TextEncoder().encode(text)));
      expect(textFromBase64Url(encoded)).toBe(text);
    }
  });

  it("accepts exactly what @scure/base accepts: random bytes, then every one-character change of them", () => {
    const random = rng(42);
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/ .é";
    let compared = 0;
    for (let n = 0; n < 400; n++) {
      const bytes = Uint8Array.from({ length: Math.floor(random() * 40) }, () => (random() < 0.7 ? Math.floor(random() * 128) : Math.floor(random() * 256)));
      const encoded = base64urlnopad.encode(bytes);
      const variants = [encoded, `${encoded}=`, `${encoded}==`, encoded.slice(0, -1), `${encoded}A`];
      for (let k = 0; k < 6 && encoded.length > 0; k++) {
        const at = Math.floor(random() * encoded.length);
        variants.push(encoded.slice(0, at) + alphabet[Math.floor(random() * alphabet.length)] + encoded.slice(at + 1));
      }
      for (const v of variants) {
        expect(textFromBase64Url(v), JSON.stringify(v)).toBe(reference(v));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(3_000);
  });

  it("refuses stray bits after the last byte, whitespace and foreign letters", () => {
    expect(textFromBase64Url("YQ")).toBe("a");
    expect(textFromBase64Url("YR")).toBeNull(); // same byte, non-zero trailing bits
    expect(textFromBase64Url("YWI")).toBe("ab");
    expect(textFromBase64Url("YWJ")).toBeNull();
    expect(textFromBase64Url("YW Jj")).toBeNull();
    expect(textFromBase64Url("YWJj+")).toBeNull();
    expect(textFromBase64Url("Y")).toBeNull();
  });
});

describe("the memo of verified values", () => {
  it("answers only for the exact key and the secret that verified it", () => {
    const memo = new VerifiedMemo<number>(10);
    memo.set("value", "secret-a", 1);
    expect(memo.get("value", "secret-a")).toBe(1);
    expect(memo.get("value", "secret-b")).toBeUndefined();
    expect(memo.get("valu", "secret-a")).toBeUndefined();
    memo.set("value", "secret-b", 2);
    expect(memo.get("value", "secret-a")).toBeUndefined();
    expect(memo.get("value", "secret-b")).toBe(2);
    memo.delete("value");
    expect(memo.get("value", "secret-b")).toBeUndefined();
  });

  it("keeps at most its capacity and always the newest half, the oldest remembered leaving first", () => {
    const memo = new VerifiedMemo<number>(4); // two generations of 2
    memo.set("v1", "s", 1);
    memo.set("v2", "s", 2);
    memo.set("v3", "s", 3); // the newer generation was full: v1, v2 become the older one
    memo.set("v1", "s", 10); // remembered again: in the newer generation now
    expect(memo.size).toBe(3);
    memo.set("v4", "s", 4); // the newer (v3, v1) becomes the older; v2 is forgotten
    expect(memo.get("v2", "s")).toBeUndefined();
    expect([memo.get("v1", "s"), memo.get("v3", "s"), memo.get("v4", "s")]).toEqual([10, 3, 4]);
    for (let i = 5; i < 1_000; i++) {
      memo.set(`v${i}`, "s", i);
      expect(memo.size).toBeLessThanOrEqual(4);
      expect([memo.get(`v${i - 1}`, "s"), memo.get(`v${i}`, "s")]).toEqual([i - 1, i]);
    }
  });
});
