/**
 * Public identifiers: a short type prefix plus 16 random base-32 characters
 * (80 bits), e.g. `evt_k3j9x0q2m4n8p1r5`. Event ids double as the Redis hash tag
 * (`{evt_…}`), so every key of one event lands in one cluster slot (DESIGN.md, Redis).
 */
import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

/** Known id prefixes, one per entity that is addressed from outside the database. */
export type IdPrefix = "evt" | "ven" | "ord" | "pay" | "tkt" | "hld" | "pl" | "usr" | "dsc" | "pev";

/** Returns a new random id `${prefix}_xxxxxxxxxxxxxxxx`. */
export function newId(prefix: IdPrefix): string {
  const bytes = randomBytes(16);
  let out = "";
  for (const byte of bytes) out += ALPHABET[byte & 31];
  return `${prefix}_${out}`;
}
