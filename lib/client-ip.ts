/**
 * The caller's IP address, from the network rather than from what the caller writes
 * (docs/design.md "Edges"; docs/adr/0013).
 *
 * StarArena's HTTP server (scripts/serve.ts) is the only place that sees the TCP peer. It
 * resolves the client address once per request with {@link resolveClientIp} and writes it
 * into {@link CLIENT_IP_HEADER}, replacing any value the caller sent; everything behind it
 * (our per-IP limiters, better-auth's) reads that header through {@link clientIp}.
 *
 * `X-Forwarded-For` is believed only as far as `TRUSTED_PROXY_HOPS` says: with N trusted
 * proxies in front of the app, each appending the address it received the request from,
 * the client is the N-th address counted from the right of `X-Forwarded-For + peer`.
 * Anything further left was written by the client and is ignored, so rotating the header
 * changes nothing. This is the rule of RFC 7239 §7.4 / MDN's "X-Forwarded-For: selecting
 * an IP address" (rightmost minus the trusted hops).
 */

/** The request header the server writes with the resolved client address (callers' values are overwritten). */
export const CLIENT_IP_HEADER = "x-stararena-client-ip";

/** What {@link clientIp} answers when no server resolved an address (a test calling a handler directly). */
export const UNKNOWN_CLIENT = "unknown";

const MAX_FORWARDED_ENTRIES = 32;

/** `::ffff:1.2.3.4` → `1.2.3.4` (how Node reports IPv4 peers on dual-stack sockets); other values unchanged. */
function normalizeAddress(address: string): string {
  const a = address.trim().toLowerCase();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(a);
  if (mapped) return mapped[1]!;
  // `[2001:db8::1]:443` or `1.2.3.4:5678` as some proxies write them.
  const bracketed = /^\[([0-9a-f:.]+)\](?::\d+)?$/.exec(a);
  if (bracketed) return bracketed[1]!;
  const v4port = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(a);
  if (v4port) return v4port[1]!;
  return a;
}

/** True for something shaped like an IPv4 or IPv6 address (after {@link normalizeAddress}). */
function looksLikeIp(a: string): boolean {
  return /^\d{1,3}(?:\.\d{1,3}){3}$/.test(a) || (/^[0-9a-f:.]+$/.test(a) && a.includes(":") && a.length <= 45);
}

/**
 * The client address of one request.
 * @param peer the TCP peer's address (`socket.remoteAddress`); undefined when the socket is gone
 * @param forwardedFor the `X-Forwarded-For` header(s) as received, or undefined
 * @param trustedHops how many proxies in front of the app are trusted (≥ 0; 0 = believe only the peer)
 * @returns an address such as `203.0.113.7`, or {@link UNKNOWN_CLIENT} when there is no peer.
 *   When fewer addresses arrived than there are trusted hops, the leftmost one is taken (the
 *   request skipped a proxy; it is still one caller). An entry that is not an IP (`unknown`,
 *   garbage) at the chosen position falls back to the nearest trusted address to its right.
 */
export function resolveClientIp(peer: string | undefined, forwardedFor: string | string[] | undefined, trustedHops: number): string {
  const chain: string[] = [];
  if (trustedHops > 0 && forwardedFor !== undefined) {
    const raw = Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor;
    // Only the rightmost entries can matter; a 10 kB header costs nothing more than this.
    const entries = raw.split(",").slice(-MAX_FORWARDED_ENTRIES);
    for (const e of entries) chain.push(normalizeAddress(e));
  }
  if (peer) chain.push(normalizeAddress(peer));
  if (chain.length === 0) return UNKNOWN_CLIENT;
  const hops = Math.max(0, Math.floor(trustedHops));
  for (let i = Math.max(0, chain.length - 1 - hops); i < chain.length; i++) {
    if (looksLikeIp(chain[i]!)) return chain[i]!;
  }
  return UNKNOWN_CLIENT;
}

/**
 * The client address the server resolved for this request ({@link CLIENT_IP_HEADER}), or
 * {@link UNKNOWN_CLIENT}. Never `X-Forwarded-For`: that header is the caller's to write.
 */
export function clientIp(headers: Headers): string {
  return headers.get(CLIENT_IP_HEADER) || UNKNOWN_CLIENT;
}
