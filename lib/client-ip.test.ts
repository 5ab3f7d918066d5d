import { describe, expect, it } from "vitest";
import { clientIp, CLIENT_IP_HEADER, resolveClientIp, UNKNOWN_CLIENT } from "@/lib/client-ip";

describe("resolveClientIp (rightmost minus the trusted hops)", () => {
  it("with no trusted proxy, the TCP peer is the client and X-Forwarded-For is ignored", () => {
    expect(resolveClientIp("203.0.113.7", "1.1.1.1", 0)).toBe("203.0.113.7");
    expect(resolveClientIp("203.0.113.7", undefined, 0)).toBe("203.0.113.7");
  });

  it("rotating X-Forwarded-For changes nothing without trusted hops", () => {
    const seen = new Set(Array.from({ length: 50 }, (_, i) => resolveClientIp("198.51.100.9", `10.0.0.${i}`, 0)));
    expect([...seen]).toEqual(["198.51.100.9"]);
  });

  it("behind one proxy, the client is the address that proxy appended; what the client wrote to the left is ignored", () => {
    // The client sent "X-Forwarded-For: 1.1.1.1"; the proxy appended the real address 203.0.113.7; the peer is the proxy.
    expect(resolveClientIp("10.0.0.2", "1.1.1.1, 203.0.113.7", 1)).toBe("203.0.113.7");
    expect(resolveClientIp("10.0.0.2", "203.0.113.7", 1)).toBe("203.0.113.7");
  });

  it("behind two proxies (CDN, then a load balancer), it counts two from the right", () => {
    // client → CDN (appends client) → LB (appends CDN edge) → app (peer = LB)
    expect(resolveClientIp("10.0.0.3", "6.6.6.6, 203.0.113.7, 192.0.2.44", 2)).toBe("203.0.113.7");
  });

  it("a request that skipped the proxies (fewer entries than hops) keys on the leftmost address it has", () => {
    expect(resolveClientIp("203.0.113.7", undefined, 2)).toBe("203.0.113.7");
    expect(resolveClientIp("10.0.0.2", "203.0.113.7", 3)).toBe("203.0.113.7");
  });

  it("normalizes IPv4-mapped IPv6 peers and ports; garbage at the chosen position falls back to the next trusted address", () => {
    expect(resolveClientIp("::ffff:203.0.113.7", undefined, 0)).toBe("203.0.113.7");
    expect(resolveClientIp("10.0.0.2", "[2001:db8::1]:443", 1)).toBe("2001:db8::1");
    expect(resolveClientIp("10.0.0.2", "203.0.113.7:5555", 1)).toBe("203.0.113.7");
    expect(resolveClientIp("10.0.0.2", "not-an-ip", 1)).toBe("10.0.0.2");
  });

  it("an enormous header costs no more than its last entries", () => {
    const huge = Array.from({ length: 10_000 }, (_, i) => `10.${(i >> 8) & 255}.${i & 255}.1`).join(", ") + ", 203.0.113.7";
    expect(resolveClientIp("10.0.0.2", huge, 1)).toBe("203.0.113.7");
  });

  it("no peer at all is unknown", () => {
    expect(resolveClientIp(undefined, undefined, 0)).toBe(UNKNOWN_CLIENT);
  });

  it("clientIp reads only the header the server wrote, never X-Forwarded-For", () => {
    expect(clientIp(new Headers({ "x-forwarded-for": "1.1.1.1" }))).toBe(UNKNOWN_CLIENT);
    expect(clientIp(new Headers({ [CLIENT_IP_HEADER]: "203.0.113.7", "x-forwarded-for": "1.1.1.1" }))).toBe("203.0.113.7");
  });
});
