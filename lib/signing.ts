/**
 * HMAC-SHA256, SHA-256 and base64 without Node APIs (`@noble/hashes`, `@scure/base`: audited,
 * synchronous, pure JS), for what runs on the door's hot path and must also run at an edge
 * runtime: the session cookie cache, admission tokens' key, queue tickets. Synchronous on
 * purpose: Web Crypto's `subtle.sign` costs ~25 µs of CPU per call in Node 20 against ~7 µs
 * for @noble/hashes and ~3 µs for node:crypto (measured on this machine, 300-byte messages),
 * and a join verifies two signatures. On Node, node:crypto is used (found at run time).
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
type NodeCrypto = { createHmac(alg: string, key: Uint8Array | string): { update(d: Uint8Array | string): { digest(): Uint8Array } }; createHash(alg: string): { update(d: Uint8Array | string): { digest(): Uint8Array } } };
const nodeCrypto = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.("node:crypto") as NodeCrypto | undefined;

/** HMAC-SHA256(key, message): 32 bytes. Strings are taken as UTF-8. */
export function hmacSha256(key: string | Uint8Array, message: string | Uint8Array): Uint8Array {
  if (nodeCrypto) return nodeCrypto.createHmac("sha256", key).update(message).digest();
  return hmac(nobleSha256, bytesOf(key), bytesOf(message));
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

/** UTF-8 text as base64url without padding. */
export const textToBase64Url = (text: string): string => base64urlnopad.encode(utf8.encode(text));

/**
 * The UTF-8 text a base64url string (padded or not) encodes.
 * @returns null when it is not base64url or not UTF-8.
 */
export function textFromBase64Url(encoded: string): string | null {
  try {
    return fromUtf8.decode(base64urlnopad.decode(encoded.replace(/=+$/, "")));
  } catch {
    return null;
  }
}

/** Compares two strings in time that depends only on their length (signatures, never secrets of unknown length). */
export function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
