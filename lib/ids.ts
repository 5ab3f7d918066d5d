/**
 * Public identifiers: a short type prefix plus 16 random base-32 characters
 * (80 bits), e.g. `evt_k3j9x0q2m4n8p1r5`. Event ids double as the Redis hash tag
 * (`{evt_…}`), so every key of one event lands in one cluster slot (docs/design.md, Redis).
 */
import { z } from "zod";

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

/** Known id prefixes, one per entity that is addressed from outside the database. */
export type IdPrefix = "evt" | "ven" | "ord" | "pay" | "tkt" | "hld" | "pl" | "usr" | "dsc" | "pev" | "rfd";

/** Returns a new random id `${prefix}_xxxxxxxxxxxxxxxx`. */
export function newId(prefix: IdPrefix): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let out = "";
  for (const byte of bytes) out += ALPHABET[byte & 31];
  return `${prefix}_${out}`;
}

/**
 * Id schemas for ids that come from outside (URLs, bodies, forms): the one place that says
 * what a valid id looks like. Each refuses anything else with a message a person can read.
 */
const idSchema = (prefix: IdPrefix, what: string) =>
  z.string().regex(new RegExp(`^${prefix}_[0-9a-z]{1,32}$`), `That is not ${what} id (they look like ${prefix}_…)`);

/** A show's slug, its address under /events/: lower-case letters, digits and single dashes, at most 80 characters. */
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** The longest slug, in characters. */
export const SLUG_MAX_LENGTH = 80;

/** An event id as it appears in URLs (`evt_` + lower-case base-32). */
export const eventIdSchema = idSchema("evt", "an event");
/** An order id as it appears in URLs (`ord_` + lower-case base-32). */
export const orderIdSchema = idSchema("ord", "an order");
/** A price level id (`pl_` + lower-case base-32). */
export const priceLevelIdSchema = idSchema("pl", "a price level");
