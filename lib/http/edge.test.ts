import { describe, expect, it } from "vitest";
import { actionBodyRefusal, edgeRefusal, isActionRequest, loopbackRedirect, pathRefusal, wantsJson } from "@/lib/http/edge";
import { findControlCharacter } from "@/lib/http/input";
import { crossOriginRefusal } from "@/lib/http/origin";

const ORIGINS = ["http://127.0.0.1:3000", "http://localhost:3000"];

describe("pathRefusal", () => {
  it.each(["/events/%ZZ", "/orders/%ZZ", "/api/orders/%ZZ", "/sandbox-psp/checkout/%F0", "/admin/events/%ZZ/live", "/events/a%00b", "/events/%E0%A4%A", "/api/events/../holds", "/api/x/%2e%2e/y", "/./x"])("refuses %s with 400", (url) => {
    const e = pathRefusal(url);
    expect(e?.status).toBe(400);
    expect(e?.code).toBe("bad_path");
  });

  it("refuses a NUL or another control character in the query", () => {
    expect(pathRefusal("/admin/events/evt_1/orders?q=a%00b")?.code).toBe("control_character");
    expect(pathRefusal("/x?%01=1")?.code).toBe("control_character");
  });

  it("lets ordinary and Unicode paths through", () => {
    for (const url of ["/", "/events/nova-lights", "/events/caf%C3%A9", "/api/events/evt_1/queue?rejoin=1", "/x?q=%ZZ", "/orders/ord_1?checkout=sbx"]) expect(pathRefusal(url)).toBeNull();
  });
});

describe("same-origin writes", () => {
  it("a foreign Origin is refused with 403 cross_origin, whatever the content type", () => {
    const e = crossOriginRefusal({ origin: "http://evil.example" }, ORIGINS);
    expect(e?.status).toBe(403);
    expect(e?.code).toBe("cross_origin");
    expect(crossOriginRefusal({ origin: "null" }, ORIGINS)?.status).toBe(403);
  });

  it("the app's own origins, same-origin fetch metadata and header-less clients pass", () => {
    expect(crossOriginRefusal({ origin: "http://localhost:3000" }, ORIGINS)).toBeNull();
    expect(crossOriginRefusal({ "sec-fetch-site": "same-origin" }, ORIGINS)).toBeNull();
    expect(crossOriginRefusal({}, ORIGINS)).toBeNull();
  });

  it("cross-site fetch metadata without a listed Origin is refused", () => {
    expect(crossOriginRefusal({ "sec-fetch-site": "cross-site" }, ORIGINS)?.status).toBe(403);
    expect(crossOriginRefusal(new Headers({ "sec-fetch-site": "same-site" }), ORIGINS)?.status).toBe(403);
  });

  it("server actions from a foreign origin are refused at the edge; other requests are the routes' to judge", () => {
    expect(edgeRefusal({ method: "POST", url: "/events/x", headers: { "next-action": "7f00", origin: "http://evil.example" } }, ORIGINS)?.status).toBe(403);
    expect(edgeRefusal({ method: "POST", url: "/api/events/evt_1/queue", headers: { origin: "http://evil.example" } }, ORIGINS)).toBeNull();
  });
});

describe("server action bodies", () => {
  it("checks the body of every server action and every multipart POST, API paths included", () => {
    const multipart = { "content-type": "multipart/form-data; boundary=xyz" };
    expect(isActionRequest({ method: "POST", url: "/events/x", headers: { "next-action": "7f00" } })).toBe(true);
    expect(isActionRequest({ method: "POST", url: "/events/x", headers: multipart })).toBe(true);
    // Next decodes a multipart POST to a path with no route handler as a form action on the not-found page (the fuzz suite found it).
    expect(isActionRequest({ method: "POST", url: "/api/holds", headers: multipart })).toBe(true);
    expect(isActionRequest({ method: "POST", url: "/api/events/evt_1/holds", headers: { "content-type": "application/json" } })).toBe(false);
    expect(isActionRequest({ method: "GET", url: "/events/x", headers: multipart })).toBe(false);
  });

  it("malformed JSON or an unfinished multipart body is 400; a good one passes", () => {
    expect(actionBodyRefusal("text/plain;charset=UTF-8", Buffer.from("[[["))?.status).toBe(400);
    expect(actionBodyRefusal("text/plain;charset=UTF-8", Buffer.from('["evt_1",{"mode":"best"}]'))).toBeNull();
    expect(actionBodyRefusal("multipart/form-data; boundary=xyz", Buffer.from("garbage"))?.status).toBe(400);
    expect(actionBodyRefusal("multipart/form-data; boundary=xyz", Buffer.from('--xyz\r\nContent-Disposition: form-data; name="0"\r\n\r\n["x"]\r\n--xyz--\r\n'))).toBeNull();
    expect(actionBodyRefusal("application/x-www-form-urlencoded", Buffer.from("a=1"))?.status).toBe(400);
    expect(actionBodyRefusal("text/plain", Buffer.alloc(1024 * 1024 + 1, 0x20))?.status).toBe(413);
  });
});

describe("findControlCharacter", () => {
  it("names the first field holding a NUL, in bodies, arrays and FormData; tabs and line breaks pass", () => {
    expect(findControlCharacter({ name: "ok", priceLevels: [{ name: "a" }, { name: "b\u0000" }] })).toBe("priceLevels.1.name");
    expect(findControlCharacter({ description: "line one\nline two\ttabbed\r\n" })).toBeNull();
    const form = new FormData();
    form.set("name", "x\u0007y");
    expect(findControlCharacter(form)).toBe("name");
    expect(findControlCharacter(["\u001b[31m"])).toBe("0");
  });
});

describe("wantsJson", () => {
  it("API paths and actions get JSON; a browser's page request gets a page", () => {
    expect(wantsJson({ url: "/api/health", headers: {} })).toBe(true);
    expect(wantsJson({ url: "/events/x", headers: { "next-action": "1" } })).toBe(true);
    expect(wantsJson({ url: "/events/x", headers: { accept: "text/html,application/xhtml+xml" } })).toBe(false);
  });
});

describe("loopbackRedirect", () => {
  const nav = (host: string, url = "/orders/ord_1", extra: Record<string, string> = {}) => ({ method: "GET", url, headers: { host, "sec-fetch-mode": "navigate", ...extra } });

  it("sends a page opened at another loopback name of a local app to APP_URL, path and query kept", () => {
    expect(loopbackRedirect(nav("127.0.0.1:3000", "/events/nova?x=1"), "http://localhost:3000")).toBe("http://localhost:3000/events/nova?x=1");
    expect(loopbackRedirect(nav("localhost:3000"), "http://127.0.0.1:3000")).toBe("http://127.0.0.1:3000/orders/ord_1");
    expect(loopbackRedirect({ ...nav("[::1]:3000"), method: "HEAD" }, "http://localhost:3000")).toBe("http://localhost:3000/orders/ord_1");
  });

  it("never leaves APP_URL's origin, whatever the path says", () => {
    expect(loopbackRedirect(nav("127.0.0.1:3000", "//evil.example/x"), "http://localhost:3000")).toBe("http://localhost:3000//evil.example/x");
  });

  it("serves as it is: the same host, another port, a public APP_URL or host, API calls, assets, fetches, other methods", () => {
    expect(loopbackRedirect(nav("localhost:3000"), "http://localhost:3000")).toBeNull();
    expect(loopbackRedirect(nav("127.0.0.1:8080"), "http://localhost:3000")).toBeNull();
    expect(loopbackRedirect(nav("127.0.0.1:443"), "https://tickets.example")).toBeNull();
    expect(loopbackRedirect(nav("evil.example:3000"), "http://localhost:3000")).toBeNull();
    expect(loopbackRedirect(nav("127.0.0.1:3000", "/api/health"), "http://localhost:3000")).toBeNull();
    expect(loopbackRedirect(nav("127.0.0.1:3000", "/_next/static/chunk.js"), "http://localhost:3000")).toBeNull();
    expect(loopbackRedirect({ method: "GET", url: "/events/nova", headers: { host: "127.0.0.1:3000", "sec-fetch-mode": "cors" } }, "http://localhost:3000")).toBeNull();
    expect(loopbackRedirect({ method: "GET", url: "/events/nova", headers: { host: "127.0.0.1:3000" } }, "http://localhost:3000")).toBeNull();
    expect(loopbackRedirect({ ...nav("127.0.0.1:3000"), method: "POST" }, "http://localhost:3000")).toBeNull();
    expect(loopbackRedirect(nav("bad host"), "http://localhost:3000")).toBeNull();
  });
});
