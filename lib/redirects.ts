/**
 * Where to send a person after signing in, when the target came from a request (`?next=`):
 * only ever a path on this site (docs/design.md "Edges"; OWASP Unvalidated Redirects and
 * Forwards Cheat Sheet). Browsers read `/\evil.example`, `/\tevil.example` and
 * `//evil.example` as another host, so the check is not "starts with a slash": the target is
 * parsed with `URL` against a placeholder origin and must stay on it, and anything with a
 * backslash or a control character is refused before parsing. Safe in the browser and on
 * the server (no imports).
 */

const PLACEHOLDER = "https://stararena.invalid";
const UNSAFE = /[\\\u0000-\u001f\u007f]/;

/**
 * `raw` as a same-origin path (`/events/x?y#z`), or `fallback` when it is missing, too long
 * (> 2,048 characters), absolute, protocol-relative, or contains a backslash or a control
 * character.
 */
export function safeNextPath(raw: string | null | undefined, fallback = "/"): string {
  if (typeof raw !== "string" || raw.length === 0 || raw.length > 2_048) return fallback;
  if (!raw.startsWith("/") || raw.startsWith("//") || UNSAFE.test(raw)) return fallback;
  let url: URL;
  try {
    url = new URL(raw, PLACEHOLDER);
  } catch {
    return fallback;
  }
  if (url.origin !== PLACEHOLDER) return fallback;
  return `${url.pathname}${url.search}${url.hash}`;
}
