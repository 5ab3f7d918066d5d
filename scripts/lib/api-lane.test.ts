import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { LANE_ROUTES, matchLane, preloadLane, serveLane } from "./api-lane";

describe("the API lane's routes", () => {
  it.each(LANE_ROUTES.map((r) => [r.pattern, r.file]))("%s is the path Next gives %s, whose module imports nothing of Next's", (pattern, file) => {
    expect(existsSync(file)).toBe(true);
    const nextPath = `/${file.replace(/^app\//, "").replace(/\/route\.ts$/, "")}`.replace(/\[([a-zA-Z]+)\]/g, ":$1");
    expect(pattern).toBe(nextPath);
    expect(readFileSync(file, "utf8")).not.toMatch(/from\s+["']next\//);
  });

  it("loads every route's module at start (preloadLane), each exporting a handler", async () => {
    await preloadLane();
    const methods = ["GET", "POST", "PUT", "DELETE", "PATCH"] as const;
    for (const r of LANE_ROUTES) {
      const mod = (await import(/* @vite-ignore */ `@/${r.file}`)) as Record<string, unknown>;
      expect(methods.some((m) => typeof mod[m] === "function"), r.file).toBe(true);
    }
  });

  it("matches a path with its decoded parameters, whatever the query", async () => {
    const m = await matchLane("GET", "/api/orders/ord_abc%31?checkout=sbx_cs_1");
    expect(m?.params).toEqual({ orderId: "ord_abc1" });
    expect(typeof m?.handler).toBe("function");
    expect((await matchLane("POST", "/sandbox-psp/api/checkouts/sbx_cs_9/approve"))?.params).toEqual({ id: "sbx_cs_9", action: "approve" });
  });

  it("leaves to Next what it does not serve: other paths, HEAD, a method the route lacks, a trailing slash, a malformed escape", async () => {
    expect(await matchLane("GET", "/api/ping")).toBeNull();
    expect(await matchLane("GET", "/events/some-show")).toBeNull();
    expect(await matchLane("HEAD", "/api/events/evt_1/availability")).toBeNull();
    expect(await matchLane("PUT", "/api/events/evt_1/holds")).toBeNull();
    expect(await matchLane("GET", "/api/orders/ord_1/")).toBeNull();
    expect(await matchLane("GET", "/api/orders/%E0%A4%A")).toBeNull();
  });
});

describe("serveLane", () => {
  it("writes the handler's answer as it is: status, headers, every Set-Cookie, the body and its length; the handler reads the request's body and params", async () => {
    const seen: { body?: string; params?: Record<string, string>; url?: string } = {};
    const server = createServer((req, res) => {
      void serveLane(req, res, {
        params: { id: "x1" },
        handler: async (request, ctx) => {
          seen.body = await request.text();
          seen.params = await ctx.params;
          seen.url = request.url;
          const headers = new Headers({ "Content-Type": "application/json", "X-Thing": "1" });
          headers.append("Set-Cookie", "a=1; Path=/");
          headers.append("Set-Cookie", "b=2; Path=/");
          return new Response(JSON.stringify({ ok: "é" }), { status: 201, headers });
        },
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const port = (server.address() as AddressInfo).port;
      const res = await fetch(`http://127.0.0.1:${port}/sandbox-psp/api/faults?checkout=c1`, { method: "PUT", body: '{"drop":true}', headers: { "content-type": "application/json" } });
      expect(res.status).toBe(201);
      expect(res.headers.get("x-thing")).toBe("1");
      expect(res.headers.getSetCookie()).toEqual(["a=1; Path=/", "b=2; Path=/"]);
      expect(res.headers.get("content-length")).toBe(String(Buffer.byteLength(JSON.stringify({ ok: "é" }))));
      expect(await res.json()).toEqual({ ok: "é" });
      expect(seen).toEqual({ body: '{"drop":true}', params: { id: "x1" }, url: `http://127.0.0.1:${port}/sandbox-psp/api/faults?checkout=c1` });
    } finally {
      server.close();
    }
  });
});
