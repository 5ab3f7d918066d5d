/**
 * A ticket's short code: 10 characters of Douglas Crockford's base 32 (digits and capital
 * letters without I, L, O and U, so nothing reads as something else), 50 random bits, shown
 * as two groups of five (`7K3QD-M9XW2`). A person can read it out or type it at the door
 * when the QR code will not scan; the signed code (./codes.ts) stays what a scanner verifies.
 * Source of the alphabet and its reading rules: https://www.crockford.com/base32.html
 * Browser-safe (Web Crypto only): the order page formats codes with it.
 */
/** Crockford's base-32 digits, in value order. */
export const CROCKFORD_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/** Characters in a short code (without the separator). */
export const SHORT_CODE_LENGTH = 10;

/** A new random short code, stored without the separator (e.g. "7K3QDM9XW2"). */
export function newShortCode(): string {
  // 256 is a multiple of 32: the low five bits of a random byte are uniform.
  const bytes = crypto.getRandomValues(new Uint8Array(SHORT_CODE_LENGTH));
  let out = "";
  for (const b of bytes) out += CROCKFORD_ALPHABET[b & 31];
  return out;
}

/** A stored short code as people see it: "7K3QD-M9XW2". */
export function formatShortCode(code: string): string {
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

/**
 * What a person typed, as a stored short code, or null when it cannot be one. Case, spaces and
 * dashes do not matter, and the look-alikes read as Crockford says: O → 0, I and L → 1.
 */
export function parseShortCode(typed: string): string | null {
  const code = typed
    .toUpperCase()
    .replace(/[\s-]/g, "")
    .replace(/O/g, "0")
    .replace(/[IL]/g, "1");
  if (code.length !== SHORT_CODE_LENGTH) return null;
  for (const c of code) if (!CROCKFORD_ALPHABET.includes(c)) return null;
  return code;
}
