/**
 * Input hygiene for everything that arrives from outside, in one place (docs/design.md
 * "Edges"): the route and action wrappers run {@link controlCharacterRefusal} over params,
 * query, body and action arguments before any schema or handler sees them, and the auth
 * route over its JSON body. A C0 control character other than tab, line feed and carriage
 * return — NUL above all, which Postgres refuses with an error — is never part of a name,
 * a description or an id a person typed, so the request is refused with 400 naming the field.
 * Tab and line breaks stay allowed (a description may have paragraphs); single-line fields
 * trim them in their own schemas.
 */
import { AppError } from "@/lib/errors";

const FORBIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const MAX_DEPTH = 32;

/** True when `s` holds a forbidden control character (C0 except tab, LF, CR; and DEL). */
export function hasForbiddenControl(s: string): boolean {
  return FORBIDDEN.test(s);
}

/** The path (`priceLevels.1.name`) of the first string in `value` with a forbidden control character, or null. */
export function findControlCharacter(value: unknown, path: string[] = [], depth = 0): string | null {
  if (typeof value === "string") return FORBIDDEN.test(value) ? path.join(".") || "value" : null;
  if (value === null || typeof value !== "object" || depth > MAX_DEPTH) return null;
  if (typeof FormData !== "undefined" && value instanceof FormData) {
    for (const [key, v] of value.entries()) {
      if (FORBIDDEN.test(key)) return key.replace(FORBIDDEN, "?");
      if (typeof v === "string" && FORBIDDEN.test(v)) return key;
    }
    return null;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findControlCharacter(value[i], [...path, String(i)], depth + 1);
      if (hit !== null) return hit;
    }
    return null;
  }
  for (const [key, v] of Object.entries(value)) {
    if (FORBIDDEN.test(key)) return [...path, key.replace(FORBIDDEN, "?")].join(".");
    const hit = findControlCharacter(v, [...path, key], depth + 1);
    if (hit !== null) return hit;
  }
  return null;
}

/**
 * A 400 `control_character` AppError when `value` holds a forbidden control character, else null.
 * @param value parsed JSON, a query or params record, action arguments, FormData
 */
export function controlCharacterRefusal(value: unknown): AppError | null {
  const field = findControlCharacter(value);
  if (field === null) return null;
  return new AppError("bad_request", "control_character", "This contains an invisible control character (such as a NUL byte) that cannot be stored. Remove it and try again.", { field });
}
