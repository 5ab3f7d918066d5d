/**
 * HMAC-SHA256, SHA-256 and base64 without Node APIs (`@noble/hashes`, `@scure/base`: audited,
 * synchronous, pure JS; `atob`/`btoa`), for what runs on the door's hot path and must also run
 * at an edge runtime: the session cookie cache, admission tokens' key, queue tickets.
 * Synchronous on purpose: Web Crypto's `subtle.sign` costs ~25 µs of CPU per call in Node 20
 * against ~7 µs for @noble/hashes and ~3 µs for node:crypto (measured on this machine,
 * 300-byte messages), and a join verifies two signatures. On Node, node:crypto is used (found
 * at run time).
 *
 * Signatures travel as base64 text, so {@link hmacSha256Base64Url} and {@link hmacSha256Base64}
 * return that text directly: node:crypto writes it in the digest (~1 µs less than bytes and a
 * JS encoder). A key made once (node's `createSecretKey`) was measured too and is no faster
 * than passing the raw key: the cost is in setting up each HMAC, not in the key. Text ⇄
 * base64url goes through the platform's `btoa`/`atob` where the text is ASCII (every cookie the
 * door reads is): a 700-character session cookie decodes in ~0.5 µs against ~7.5 µs with the
 * pure-JS codec, a ticket's payload encodes in ~0.4 µs against ~2.9 µs (measured).
 */
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 as nobleSha256 } from "@noble/hashes/sha2.js";
import { base64, base64urlnopad } from "@scure/base";

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Bytes of a string (UTF-8) or the bytes themselves. */
const bytesOf = (x: string | Uint8Array) => (typeof x === "string" ? utf8.encode(x) : x);

/**
 * Node's own crypto when this runs on Node (≥ 20.16: `process.getBuiltinModule`), found at
 * run time rather than imported, so the module graph stays runtime-neutral: ~3 µs per HMAC
 * against ~7 µs for the pure-JS one, which is what every other runtime uses.
 */
type NodeDigest = { update(d: Uint8Array | string): { digest(): Uint8Array; digest(encoding: "base64" | "base64url"): string } };
type NodeCrypto = { createHmac(alg: string, key: Uint8Array | string): NodeDigest; createHash(alg: string): NodeDigest };
const nodeCrypto = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.("node:crypto") as NodeCrypto | undefined;

/** HMAC-SHA256(key, message): 32 bytes. Strings are taken as UTF-8. */
export function hmacSha256(key: string | Uint8Array, message: string | Uint8Array): Uint8Array {
  if (nodeCrypto) return nodeCrypto.createHmac("sha256", key).update(message).digest();
  return hmac(nobleSha256, bytesOf(key), bytesOf(message));
}

/** base64url without padding of HMAC-SHA256(key, message) (strings as UTF-8): the same text as `toBase64Url(hmacSha256(key, message))`. */
export function hmacSha256Base64Url(key: string | Uint8Array, message: string | Uint8Array): string {
  if (nodeCrypto) return nodeCrypto.createHmac("sha256", key).update(message).digest("base64url");
  return base64urlnopad.encode(hmac(nobleSha256, bytesOf(key), bytesOf(message)));
}

/** Standard base64 with padding of HMAC-SHA256(key, message) (strings as UTF-8): the same text as `toBase64(hmacSha256(key, message))`. */
export function hmacSha256Base64(key: string | Uint8Array, message: string | Uint8Array): string {
  if (nodeCrypto) return nodeCrypto.createHmac("sha256", key).update(message).digest("base64");
  return base64.encode(hmac(nobleSha256, bytesOf(key), bytesOf(message)));
}

/** SHA-256 of `data` (strings as UTF-8): 32 bytes. */
export function sha256(data: string | Uint8Array): Uint8Array {
  if (nodeCrypto) return nodeCrypto.createHash("sha256").update(data).digest();
  return nobleSha256(bytesOf(data));
}

/** Standard base64 with padding (RFC 4648 §4). */
export const toBase64 = (bytes: Uint8Array): string => base64.encode(bytes);

/** base64url without padding (RFC 4648 §5), as JWTs and better-auth's cookies write it. */
export const toBase64Url = (bytes: Uint8Array): string => base64urlnopad.encode(bytes);

/** Only ASCII characters: their UTF-8 bytes are their char codes, which is what `btoa` and `atob` work in. */
const ASCII = /^[\x00-\x7f]*$/;
/** base64url's alphabet, without padding. */
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** UTF-8 text as base64url without padding. */
export function textToBase64Url(text: string): string {
  if (!ASCII.test(text)) return base64urlnopad.encode(utf8.encode(text));
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * The UTF-8 text a base64url string (padded or not) encodes.
 * @returns null when it is not base64url or not UTF-8.
 */
export function textFromBase64Url(encoded: string): string | null {
  const unpadded = encoded.replace(/=+$/, "");
  if (!canonicalBase64Url(unpadded)) return null;
  const binary = atob(unpadded.replace(/-/g, "+").replace(/_/g, "/"));
  if (ASCII.test(binary)) return binary;
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  try {
    return fromUtf8.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * True when `s` is base64url without padding as an encoder writes it — what @scure/base
 * accepts, so that `atob` (which is forgiving: whitespace, stray bits) decodes only that: the
 * alphabet alone, a length that ends on whole bytes, and zero bits after the last byte.
 */
function canonicalBase64Url(s: string): boolean {
  const tail = s.length % 4;
  if (tail === 1 || !BASE64URL.test(s)) return false;
  if (tail === 0) return true;
  const last = s.charCodeAt(s.length - 1);
  // The last character's value (0–63) in base64url's alphabet order: A–Z, a–z, 0–9, -, _.
  const value = last === 95 ? 63 : last === 45 ? 62 : last >= 97 ? last - 71 : last >= 65 ? last - 65 : last + 4;
  // Two characters carry one byte (4 bits left over), three carry two (2 bits left over).
  return (value & (tail === 2 ? 0x0f : 0x03)) === 0;
}

/** Compares two strings in time that depends only on their length (signatures, never secrets of unknown length). */
export function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * Signed values already verified, so that the same value is not verified again: a fan's
 * retries and polls present the same cookies, and a signature check costs more than the rest
 * of such a request (an HMAC is ~3 µs of CPU on an idle machine, ~8 µs in a busy door process).
 * Only values that passed the full check are remembered, each with the secret that checked it
 * (a value is only ever found again under that secret); whatever the result says about time
 * (an expiry) the caller still checks on every use. Memory: each key keeps the string it was
 * cut from (the Cookie header).
 *
 * Eviction by two generations of `capacity / 2` each: values go into the newer one; when it is
 * full it becomes the older one and the older one is dropped whole. So the newest `capacity / 2`
 * values are always remembered, at most `capacity` are, and every operation is O(1). (A single
 * Map evicting its first key, as this class did before, made each `set` at capacity walk the
 * deleted entries V8 keeps at the front of a Map until it rehashes: ~50 µs a `set` at 50,000
 * entries, 14 % of the door's CPU in the 1,000,000-fan run, BENCHMARKS.md 2026-12-06 night.)
 */
export class VerifiedMemo<T> {
  private newer = new Map<string, { secret: string; result: T }>();
  private older = new Map<string, { secret: string; result: T }>();
  private readonly half: number;

  /** @param capacity how many values to remember at most (≥ 2; the newest half of them always). */
  constructor(capacity: number) {
    this.half = Math.max(1, Math.floor(capacity / 2));
  }

  /** What was remembered for `key` verified with `secret`, or undefined. */
  get(key: string, secret: string): T | undefined {
    const hit = this.newer.get(key) ?? this.older.get(key);
    return hit !== undefined && hit.secret === secret ? hit.result : undefined;
  }

  /** Remembers `result` for `key`, verified with `secret` (replacing what `key` had; it counts as the newest). */
  set(key: string, secret: string, result: T): void {
    this.older.delete(key);
    if (!this.newer.has(key) && this.newer.size >= this.half) {
      this.older = this.newer;
      this.newer = new Map();
    }
    this.newer.set(key, { secret, result });
  }

  /** Forgets `key` (e.g. its result expired). */
  delete(key: string): void {
    this.newer.delete(key);
    this.older.delete(key);
  }

  /** How many values are remembered. */
  get size(): number {
    return this.newer.size + this.older.size;
  }
}
