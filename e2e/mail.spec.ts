/**
 * E-mail a fan can act on: a forgotten password is reset from the e-mailed link, end to end
 * (the sign-in page, the request, the message in the local SMTP server's mailbox, the link,
 * the new password), and only the new password signs in afterwards. Sign-up answers a taken
 * address as a new one ("check your inbox"; the owner gets a notice), and a fan who signs in
 * before opening the link is told to open it first (or reset the password); the link confirms
 * the address and the sign-in it offers continues to where the fan was going (ADR 0027).
 */
import { expect, test } from "@playwright/test";
import { confirmFromMailbox, FAN, mailedLink, signUp } from "./helpers";

test("a fan who forgot the password resets it from the e-mailed link", async ({ page }) => {
  // The page's own alerts (Next's route announcer is an alert too).
  const alert = page.locator("main").getByRole("alert");
  const email = await signUp(page, "Forgetful Fan");
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByRole("link", { name: "Sign in" })).toBeVisible();
  await page.goto("/sign-in");
  await page.getByRole("link", { name: "Forgot your password?" }).click();
  await expect(page).toHaveURL(/\/forgot-password$/);
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Send the link" }).click();
  await expect(page.getByTestId("reset-requested")).toContainText(`If ${email} has a StarArena account`);

  // The message, as the worker sent it to the local SMTP server.
  await expect(async () => {
    await page.goto(`/dev/mailbox?to=${encodeURIComponent(email)}`);
    await expect(page.getByTestId("mail-subject").first()).toHaveText("Reset your StarArena password", { timeout: 1_000 });
  }).toPass({ timeout: 30_000 });
  await page.getByTestId("mail").first().getByRole("link", { name: /\/api\/auth\/reset-password\// }).click();

  await expect(page).toHaveURL(/\/reset-password\?token=/);
  await page.getByLabel("New password").fill("a-brand-new-password");
  await page.getByLabel("The same again").fill("a-different-one");
  await page.getByRole("button", { name: "Set the new password" }).click();
  await expect(alert).toHaveText("The two passwords differ. Type the same new password twice.");
  await page.getByLabel("The same again").fill("a-brand-new-password");
  await page.getByRole("button", { name: "Set the new password" }).click();
  await expect(page).toHaveURL(/\/sign-in\?reset=1/);

  // The old password no longer works; the new one does.
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("a-good-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(alert).toBeVisible();
  await page.getByLabel("Password").fill("a-brand-new-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("signed-in-as")).toHaveText(email);

  // The link works once.
  await page.goto(`/dev/mailbox?to=${encodeURIComponent(email)}`);
  await page.getByTestId("mail").first().getByRole("link", { name: /\/api\/auth\/reset-password\// }).click();
  await expect(page.getByRole("heading", { name: "This link does not work" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Ask for a new link" })).toHaveAttribute("href", "/forgot-password");
});

test("sign-up says 'check your inbox' for a taken address too; signing in before confirming is refused until the link is opened", async ({ page }) => {
  // A taken address (the demo fan's): the same answer as a new one, and its owner is told by e-mail.
  await page.goto("/sign-up");
  await page.getByLabel("Name").fill("Someone Else");
  await page.getByLabel("Email").fill(FAN.email);
  await page.getByLabel("Password").fill("not-the-fans-password");
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByRole("heading", { name: "Check your inbox" })).toBeVisible();
  await expect(page.getByTestId("sign-up-sent")).toContainText(`We sent a message to ${FAN.email}.`);
  await expect(page.getByTestId("signed-in-as")).toHaveCount(0);
  expect(await mailedLink(page.request, FAN.email, /\/forgot-password$/)).toMatch(/\/forgot-password$/);

  // A new address, signing in before the link is opened: told to open it first (nothing more is mailed).
  const email = `early-${Date.now()}@example.test`;
  await page.goto("/sign-up?next=/tickets");
  await page.getByLabel("Name").fill("Early Fan");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("a-good-password");
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByTestId("sign-up-sent")).toContainText(`We sent a message to ${email}.`);
  await page.goto("/sign-in?next=/tickets");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("a-good-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.locator("main").getByRole("alert")).toHaveText(
    `Confirm your e-mail first: open the link we sent to ${email} when you signed up, then sign in. No message? Use “Forgot your password?” below: its link confirms the address too.`,
  );
  await expect(page.getByTestId("signed-in-as")).toHaveCount(0);
  await confirmFromMailbox(page, email, "/tickets");
});
