/**
 * E-mail a fan can act on: a forgotten password is reset from the e-mailed link, end to end
 * (the sign-in page, the request, the message in the local SMTP server's mailbox, the link,
 * the new password), and only the new password signs in afterwards.
 */
import { expect, test } from "@playwright/test";
import { signUp } from "./helpers";

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
