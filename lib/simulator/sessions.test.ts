import { describe, expect, it } from "vitest";
import { FanBook } from "@/lib/simulator/sessions";

describe("FanBook", () => {
  it("gives back each fan's id and cookies exactly, across its off-heap chunks", () => {
    const book = new FanBook(3);
    const data = (i: number) => `eyJ${"x".repeat(800 + i)}.${i}`;
    // Added out of order, as a caller may.
    for (const i of [2, 0, 1]) book.add(i, `usr_${i}`, `tok${i}.sig%3D`, data(i));
    for (const i of [0, 1, 2]) {
      expect(book.ids[i]).toBe(`usr_${i}`);
      expect(book.cookies(i)).toEqual({ sessionCookie: `tok${i}.sig%3D`, sessionDataCookie: data(i) });
    }
  });
});
