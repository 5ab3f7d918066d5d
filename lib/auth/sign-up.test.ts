/**
 * Sign-up never tells whether an address has an account (issue 41 case 8, ADR 0027), against
 * the real better-auth handler and Postgres: a taken and a new address get the same status,
 * body shape and (no) cookies; the taken one keeps its single account and password, and its
 * owner is told by e-mail; the new one gets a confirmation link through the e-mail outbox.
 * Signing in before confirming is refused and mails nothing; the link confirms the address
 * without signing anyone in and lands on /verified, whose sign-in continues to where they came
 * from. Someone who signed up with another person's address cannot have more links mailed,
 * and the owner's click on the one link puts nobody inside an account the squatter can enter.
 */
import { and, asc, eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { account, emails, session, user } from "@/db/schema";
import { auth } from "@/lib/auth";
import { closeDb, db } from "@/lib/db";
import { env } from "@/lib/env";
import { renderEmail } from "@/lib/mail/messages";
import { closeRedis } from "@/lib/redis";
import { makeUser } from "@/lib/testing/fixtures";

afterAll(async () => {
  await closeDb();
  await closeRedis();
});

/** A link is a JWT signed to the second: a second one in the same second is the same link (and the same message). */
const nextSecond = () => new Promise((r) => setTimeout(r, 1_100));
const unique = () => `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
const origin = () => new URL(env().APP_URL).origin;

/** A browser's POST to better-auth's endpoint `path` (same origin, JSON). */
async function post(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown>; cookies: string[] }> {
  const res = await auth().handler(
    new Request(`${origin()}/api/auth${path}`, { method: "POST", headers: { "content-type": "application/json", origin: origin() }, body: JSON.stringify(body) }),
  );
  const text = await res.text();
  return { status: res.status, body: (text.startsWith("{") ? JSON.parse(text) : { text }) as Record<string, unknown>, cookies: res.headers.getSetCookie() };
}

/** The JSON's shape: every key with the type of its value (null apart), recursively. */
function shape(v: unknown): unknown {
  if (v === null) return "null";
  if (Array.isArray(v)) return v.map(shape);
  if (typeof v === "object") return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, shape(x)]).sort(([a], [b]) => String(a).localeCompare(String(b))));
  return typeof v;
}

const queued = (address: string) => db().select().from(emails).where(eq(emails.toAddress, address)).orderBy(asc(emails.id));
const usersWith = (address: string) => db().select({ id: user.id, emailVerified: user.emailVerified }).from(user).where(eq(user.email, address));

describe("sign-up answers alike for a taken and a new address", () => {
  it("same status, body shape and no cookie; no second account; a link for the new address, a notice for the taken one", async () => {
    const taken = await makeUser(db());
    const fresh = `new-${unique()}@test.stararena`;

    const a = await post("/sign-up/email", { email: taken.email, password: "someone-elses-password", name: "Intruder", callbackURL: "/events/x" });
    const b = await post("/sign-up/email", { email: fresh, password: "a-good-password", name: "Intruder", callbackURL: "/events/x" });

    expect(a.status).toBe(200);
    expect(b.status).toBe(a.status);
    expect(shape(b.body)).toEqual(shape(a.body));
    expect(a.body).toMatchObject({ token: null, user: { email: taken.email, name: "Intruder", emailVerified: false } });
    expect(b.body).toMatchObject({ token: null, user: { email: fresh, name: "Intruder", emailVerified: false } });
    // The taken account's id is not given away.
    expect((a.body.user as { id: string }).id).not.toBe(taken.id);
    // No session for either.
    expect(a.cookies).toEqual([]);
    expect(b.cookies).toEqual([]);

    // One account each; the taken one keeps its name and password, the new one waits for confirmation.
    expect(await usersWith(taken.email)).toEqual([{ id: taken.id, emailVerified: true }]);
    expect(await db().select().from(account).where(eq(account.userId, taken.id))).toHaveLength(1);
    expect((await post("/sign-in/email", { email: taken.email, password: "someone-elses-password" })).status).toBe(401);
    expect((await post("/sign-in/email", { email: taken.email, password: "password-123" })).status).toBe(200);
    expect(await usersWith(fresh)).toEqual([{ id: expect.any(String), emailVerified: false }]);

    // The owner of the taken address is told; the new address gets its confirmation link.
    expect((await queued(taken.email)).map((m) => [m.kind, m.payload])).toEqual([["sign_up_existing", { name: "Test fan" }]]);
    const [link] = await queued(fresh);
    expect(link).toMatchObject({ kind: "email_verification", payload: { name: "Intruder", url: expect.stringMatching(/\/api\/auth\/verify-email\?token=/) } });
    expect(new URL((link!.payload as { url: string }).url).searchParams.get("callbackURL")).toBe("/verified?next=%2Fevents%2Fx");

    // Both messages read in either language, with their links.
    const en = await renderEmail(db(), "email_verification", link!.payload as { url: string; name: string }, "en");
    expect(en.subject).toBe("Confirm your e-mail for StarArena");
    expect(en.text).toContain((link!.payload as { url: string }).url);
    const zh = await renderEmail(db(), "sign_up_existing", { name: "Test fan" }, "zh-CN");
    expect(zh.subject).toBe("有人尝试用你的邮箱注册 StarArena");
    expect(zh.text).toContain(new URL("/forgot-password", env().APP_URL).toString());
  });

  it("an address signed up but never confirmed gets the notice, not a link; a reset from the mail replaces the first password and confirms it", async () => {
    // Someone signs up with another person's address first (account pre-hijacking), then its owner does.
    const address = `twice-${unique()}@test.stararena`;
    const first = await post("/sign-up/email", { email: address, password: "squatters-password", name: "Squatter" });
    const second = await post("/sign-up/email", { email: address, password: "owners-password", name: "Owner" });
    expect(second.status).toBe(first.status);
    expect(shape(second.body)).toEqual(shape(first.body));
    expect(await usersWith(address)).toEqual([{ id: expect.any(String), emailVerified: false }]);
    expect((await queued(address)).map((m) => m.kind)).toEqual(["email_verification", "sign_up_existing"]);
    expect((await post("/sign-in/email", { email: address, password: "owners-password" })).status).toBe(401);

    // The owner resets the password from the e-mailed link: the address is confirmed, the first password is gone.
    expect((await post("/request-password-reset", { email: address, redirectTo: "/reset-password" })).status).toBe(200);
    const reset = (await queued(address)).find((m) => m.kind === "password_reset")!;
    const token = /\/reset-password\/([^?]+)/.exec((reset.payload as { url: string }).url)![1]!;
    expect((await post("/reset-password", { token, newPassword: "owners-new-password" })).status).toBe(200);
    expect(await usersWith(address)).toEqual([{ id: expect.any(String), emailVerified: true }]);
    expect((await post("/sign-in/email", { email: address, password: "squatters-password" })).status).toBe(401);
    expect((await post("/sign-in/email", { email: address, password: "owners-new-password" })).status).toBe(200);
  });
});

describe("signing in before the address is confirmed", () => {
  it("is refused with EMAIL_NOT_VERIFIED and mails nothing; the link confirms without signing in; the password then signs in", async () => {
    const address = `unconfirmed-${unique()}@test.stararena`;
    await post("/sign-up/email", { email: address, password: "a-good-password", name: "Waiting", callbackURL: "/events/y" });
    expect(await queued(address)).toHaveLength(1);

    await nextSecond();
    const refused = await post("/sign-in/email", { email: address, password: "a-good-password" });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: "EMAIL_NOT_VERIFIED" });
    expect(refused.cookies).toEqual([]);
    // A wrong password is not told the address is unconfirmed; neither sends anything.
    expect((await post("/sign-in/email", { email: address, password: "a-wrong-password" })).status).toBe(401);
    const links = await queued(address);
    expect(links.map((m) => m.kind)).toEqual(["email_verification"]);

    // The link: confirmed, no session, on to /verified (whose sign-in continues to `next`).
    const res = await auth().handler(new Request((links[0]!.payload as { url: string }).url));
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/verified?next=%2Fevents%2Fy");
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(await usersWith(address)).toEqual([{ id: expect.any(String), emailVerified: true }]);
    expect((await post("/sign-in/email", { email: address, password: "a-good-password" })).status).toBe(200);

    // Used again, it still signs no one in.
    const again = await auth().handler(new Request((links[0]!.payload as { url: string }).url));
    expect(again.status).toBe(302);
    expect(again.headers.getSetCookie()).toEqual([]);
    const [row] = await db().select().from(user).where(and(eq(user.email, address), eq(user.emailVerified, true)));
    expect(row).toBeDefined();
  });
});

describe("account pre-hijacking: someone signs up with another person's address", () => {
  it("cannot make StarArena mail the owner links at will, and the owner's click on the one link puts nobody inside the squatter's account", async () => {
    const address = `owner-${unique()}@test.stararena`;
    await post("/sign-up/email", { email: address, password: "squatters-password", name: "Squatter" });
    expect((await queued(address)).map((m) => m.kind)).toEqual(["email_verification"]);

    // Signing in with the password they chose, again and again, or asking for a link outright: nothing more is mailed.
    for (let i = 0; i < 3; i++) {
      await nextSecond();
      expect((await post("/sign-in/email", { email: address, password: "squatters-password" })).status).toBe(403);
    }
    expect((await post("/send-verification-email", { email: address, callbackURL: "/" })).status).toBe(404);
    expect((await queued(address)).map((m) => m.kind)).toEqual(["email_verification"]);

    // The owner opens the one link: the address is confirmed, and the owner is not signed in
    // (no session to put tickets into an account whose password someone else knows).
    const [link] = await queued(address);
    const opened = await auth().handler(new Request((link!.payload as { url: string }).url));
    expect(opened.status).toBe(302);
    expect(opened.headers.getSetCookie()).toEqual([]);
    expect(await db().select().from(session).innerJoin(user, eq(session.userId, user.id)).where(eq(user.email, address))).toEqual([]);

    // To get in, the owner resets the password: the squatter's is gone, and so is any session of theirs.
    const squatter = await post("/sign-in/email", { email: address, password: "squatters-password" });
    expect(squatter.status).toBe(200);
    expect((await post("/request-password-reset", { email: address, redirectTo: "/reset-password" })).status).toBe(200);
    const reset = (await queued(address)).find((m) => m.kind === "password_reset")!;
    const token = /\/reset-password\/([^?]+)/.exec((reset.payload as { url: string }).url)![1]!;
    expect((await post("/reset-password", { token, newPassword: "owners-own-password" })).status).toBe(200);
    expect(await db().select().from(session).innerJoin(user, eq(session.userId, user.id)).where(eq(user.email, address))).toEqual([]);
    expect((await post("/sign-in/email", { email: address, password: "squatters-password" })).status).toBe(401);
    expect((await post("/sign-in/email", { email: address, password: "owners-own-password" })).status).toBe(200);
  });
});
