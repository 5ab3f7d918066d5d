import { describe, expect, it } from "vitest";
import { safeNextPath } from "@/lib/redirects";

describe("safeNextPath: only ever a path on this site", () => {
  it("keeps same-origin paths with their query and fragment", () => {
    expect(safeNextPath("/events/nova?admitted=1#seats")).toBe("/events/nova?admitted=1#seats");
    expect(safeNextPath("/")).toBe("/");
  });

  it.each([
    ["/\\evil.example/x", "backslash after the slash (browsers read it as //evil.example)"],
    ["/\tevil.example/x", "a tab after the slash"],
    ["/\t/evil.example", "tab then slash"],
    ["//evil.example/x", "protocol-relative"],
    ["https://evil.example/x", "absolute"],
    ["javascript:alert(1)", "a script URL"],
    ["evil.example", "no leading slash"],
    ["/\nevil", "a line feed"],
    ["/%0d%0aSet-Cookie:x", "kept: an encoded CRLF stays encoded in the path"],
  ])("%s (%s)", (raw, why) => {
    const out = safeNextPath(raw, "/home");
    if (why.startsWith("kept")) expect(out).toBe(raw);
    else expect(out).toBe("/home");
  });

  it("missing or oversized targets fall back", () => {
    expect(safeNextPath(null)).toBe("/");
    expect(safeNextPath(undefined, "/x")).toBe("/x");
    expect(safeNextPath(`/${"a".repeat(3000)}`)).toBe("/");
  });
});
