import { createPublicKey, generateKeyPairSync } from "node:crypto";
import { CompactSign } from "jose";
import { describe, expect, it } from "vitest";
import { InvalidTicketCodeError, signTicketCode, ticketKeys, verifyTicketCode } from "@/lib/tickets/codes";
import { ticketQrSvg } from "@/lib/tickets/qr";

const SECRET = "test-ticket-signing-secret-0123456789abcdef";
const OTHER_SECRET = "another-ticket-signing-secret-0123456789abc";

/** Realistic ids (lib/ids.ts format) and a real seat label (lib/venues/plan.ts format). */
const claims = {
  ticketId: "tkt_k3j9x0q2m4n8p1r5",
  eventId: "evt_7hq2m4n8p1r5k3j9",
  seatLabel: "Sec 104 · Row 17 · Seat 128",
  orderId: "ord_x0q2m4n8p1r5k3j9",
};

/** Runs `fn` and returns the InvalidTicketCodeError it rejects with (fails the test otherwise). */
async function rejection(fn: () => Promise<unknown>): Promise<InvalidTicketCodeError> {
  try {
    await fn();
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidTicketCodeError);
    return err as InvalidTicketCodeError;
  }
  throw new Error("expected an InvalidTicketCodeError, got success");
}

/** Flips one character in the middle of a segment to another valid base64url character. */
function flipChar(segment: string, index = Math.floor(segment.length / 2)): string {
  const c = segment[index];
  const replacement = c === "A" ? "B" : "A";
  return segment.slice(0, index) + replacement + segment.slice(index + 1);
}

describe("ticket codes", () => {
  it("round-trips the claims through sign and verify", async () => {
    const before = Math.floor(Date.now() / 1000);
    const code = await signTicketCode(claims, SECRET);
    const after = Math.floor(Date.now() / 1000);
    expect(code.split(".")).toHaveLength(3);

    const verified = await verifyTicketCode(code, ticketKeys(SECRET).publicKey);
    expect(verified).toMatchObject(claims);
    const iat = verified.issuedAt.getTime() / 1000;
    expect(iat).toBeGreaterThanOrEqual(before);
    expect(iat).toBeLessThanOrEqual(after);
  });

  it("verifies with only the exported public key PEM (no secret)", async () => {
    const code = await signTicketCode(claims, SECRET);
    // What a door scanner holds: a PEM string, nothing else.
    const pem = `${ticketKeys(SECRET).publicKeyPem}`;
    expect(pem).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    await expect(verifyTicketCode(code, pem)).resolves.toMatchObject(claims);
    // The JWK export describes the same key.
    const fromJwk = createPublicKey({ key: { ...ticketKeys(SECRET).publicKeyJwk }, format: "jwk" });
    await expect(verifyTicketCode(code, fromJwk)).resolves.toMatchObject(claims);
    // Scanned codes may carry a trailing newline.
    await expect(verifyTicketCode(`${code}\n`, pem)).resolves.toMatchObject(claims);
  });

  it("rejects a code signed with another secret as not genuine", async () => {
    const forged = await signTicketCode(claims, OTHER_SECRET);
    const err = await rejection(() => verifyTicketCode(forged, ticketKeys(SECRET).publicKeyPem));
    expect(err.reason).toBe("not_genuine");
    expect(err.message).toBe("This ticket code is not genuine");
  });

  it("rejects a code with one payload character changed", async () => {
    const code = await signTicketCode(claims, SECRET);
    const [header, payload, signature] = code.split(".") as [string, string, string];
    const tampered = [header, flipChar(payload), signature].join(".");
    expect(tampered).not.toBe(code);
    const err = await rejection(() => verifyTicketCode(tampered, ticketKeys(SECRET).publicKeyPem));
    expect(err.reason).toBe("not_genuine");
  });

  it("rejects a changed signature, including a different spelling of the same signature bytes", async () => {
    const code = await signTicketCode(claims, SECRET);
    const [header, payload, signature] = code.split(".") as [string, string, string];
    const pem = ticketKeys(SECRET).publicKeyPem;
    expect((await rejection(() => verifyTicketCode([header, payload, flipChar(signature)].join("."), pem))).reason).toBe(
      "not_genuine",
    );
    // 64 bytes → 86 chars: the last char carries 2 spare bits. Same bytes, different string.
    const last = signature.at(-1)!;
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const respelled = signature.slice(0, -1) + alphabet[alphabet.indexOf(last) ^ 1];
    expect(Buffer.from(respelled, "base64url").equals(Buffer.from(signature, "base64url"))).toBe(true);
    expect((await rejection(() => verifyTicketCode([header, payload, respelled].join("."), pem))).reason).toBe("not_genuine");
  });

  it.each([
    ["empty", ""],
    ["abc", "abc"],
    ["a.b.c", "a.b.c"],
    ["blank", "   "],
    ["two parts", "a.b"],
    ["dots only", ".."],
    ["prose", "not a code at all"],
    ["no signature", "eyJhbGciOiJFZERTQSJ9.e30."],
    ["huge", "x".repeat(5000)],
  ])("rejects garbage (%s) as not a StarArena ticket code", async (_label, garbage) => {
      const err = await rejection(() => verifyTicketCode(garbage, ticketKeys(SECRET).publicKeyPem));
      expect(err.reason).toBe("malformed");
      expect(err.message).toBe("This is not a StarArena ticket code");
  });

  it("rejects a genuinely signed payload that is not a ticket as not a ticket code", async () => {
    const { privateKey, publicKeyPem } = ticketKeys(SECRET);
    const notATicket = await new CompactSign(new TextEncoder().encode(JSON.stringify({ t: "tkt_1", iat: 1 })))
      .setProtectedHeader({ alg: "EdDSA" })
      .sign(privateKey);
    expect((await rejection(() => verifyTicketCode(notATicket, publicKeyPem))).reason).toBe("malformed");
  });

  it("rejects a token with another algorithm as not a ticket code", async () => {
    const hs256 = await new CompactSign(new TextEncoder().encode("{}"))
      .setProtectedHeader({ alg: "HS256" })
      .sign(new TextEncoder().encode("x".repeat(32)));
    expect((await rejection(() => verifyTicketCode(hs256, ticketKeys(SECRET).publicKeyPem))).reason).toBe("malformed");
  });

  it("refuses a public key that is not Ed25519 (configuration error, not a bad ticket)", async () => {
    const code = await signTicketCode(claims, SECRET);
    const { publicKey: ecKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    await expect(verifyTicketCode(code, ecKey)).rejects.toBeInstanceOf(TypeError);
    await expect(verifyTicketCode(code, "not a pem")).rejects.toBeInstanceOf(TypeError);
  });

  it("derives the same key pair from the same secret, and a different one from another", () => {
    const a = ticketKeys(SECRET);
    expect(ticketKeys(SECRET)).toBe(a); // cached
    expect(ticketKeys(OTHER_SECRET).publicKeyPem).not.toBe(a.publicKeyPem);
    // Stable across processes: pin the key for this secret so a derivation change can't slip in.
    expect(a.publicKeyJwk).toMatchObject({ kty: "OKP", crv: "Ed25519", alg: "EdDSA", use: "sig" });
    expect(a.publicKeyJwk.x).toMatch(/^[\w-]{43}$/);
    expect(a.publicKeyJwk.kid).toMatch(/^[\w-]{43}$/);
    expect(a.publicKeyJwk.x).toBe("4lNahzp6JHD9BQ1kRGZSU6V1UfGDXR_TA1-m0ptD-Bs");
    expect(() => ticketKeys("")).toThrow(TypeError);
  });

  it("renders the code as an SVG QR code", async () => {
    const code = await signTicketCode(claims, SECRET);
    const svg = await ticketQrSvg(code);
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg).toContain("<path");
    expect(svg.trimEnd().endsWith("</svg>")).toBe(true);
  });

  it("keeps a realistic code under 300 characters", async () => {
    const code = await signTicketCode(claims, SECRET);
    console.log(`ticket code length: ${code.length} characters\n${code}`);
    expect(code.length).toBeLessThan(300);
  });

  it("rejects empty claims when signing", async () => {
    await expect(signTicketCode({ ...claims, seatLabel: "" }, SECRET)).rejects.toBeInstanceOf(TypeError);
  });
});
