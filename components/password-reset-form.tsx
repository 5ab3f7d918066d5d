"use client";
/**
 * Password reset, both halves (better-auth client): asking for the link by e-mail
 * (/forgot-password), and choosing a new password from the link (/reset-password?token=…).
 * Asking never says whether an address has an account (the answer is the same either way).
 * The forms submit with onSubmit, not a form action: React resets a form after its action,
 * and a fan told "the two passwords differ" should not have to type both again.
 */
import Link from "next/link";
import { useTranslations } from "next-intl";
import { useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";
import { authClient } from "@/lib/auth/client";

export function ForgotPasswordForm() {
  const t = useTranslations("Reset");
  const [sent, setSent] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function onSubmit(form: FormData) {
    setBusy(true);
    setError(null);
    const email = String(form.get("email") ?? "").trim();
    const result = await authClient.requestPasswordReset({ email, redirectTo: "/reset-password" });
    setBusy(false);
    if (result.error) return setError(t("tryLater"));
    setSent(email);
  }
  return (
    <form onSubmit={(e) => { e.preventDefault(); void onSubmit(new FormData(e.currentTarget)); }} className="mx-auto max-w-sm space-y-4 rounded-xl border border-white/10 bg-white/5 p-6">
      <h1 className="text-2xl font-bold">{t("forgotTitle")}</h1>
      {sent ? (
        <p role="status" data-testid="reset-requested">
          {t("sent", { email: sent })}
        </p>
      ) : (
        <>
          <p className="text-sm text-white/70">{t("explain")}</p>
          <label className="block text-sm">
            {t("email")}
            <input name="email" type="email" required autoComplete="email" className="mt-1 w-full rounded bg-black/40 px-3 py-2" />
          </label>
          {error && (
            <p role="alert" className="text-sm text-red-300">
              {error}
            </p>
          )}
          <button disabled={busy} className="button-primary w-full py-2">
            {busy ? "…" : t("send")}
          </button>
        </>
      )}
      <p className="text-center text-sm">
        <Link href="/sign-in" className="underline">
          {t("backToSignIn")}
        </Link>
      </p>
    </form>
  );
}

export function ResetPasswordForm() {
  const t = useTranslations("Reset");
  const router = useRouter();
  const params = useSearchParams();
  const token = params.get("token");
  const linkError = params.get("error");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function onSubmit(form: FormData) {
    const password = String(form.get("password") ?? "");
    if (password !== String(form.get("confirm") ?? "")) return setError(t("differ"));
    setBusy(true);
    setError(null);
    const result = await authClient.resetPassword({ newPassword: password, token: token ?? "" });
    setBusy(false);
    if (result.error) return setError(t("askNew"));
    router.push("/sign-in?reset=1");
  }
  if (!token || linkError) {
    return (
      <div className="mx-auto max-w-sm space-y-4 rounded-xl border border-white/10 bg-white/5 p-6">
        <h1 className="text-2xl font-bold">{t("badLinkTitle")}</h1>
        <p role="alert">{t("badLink")}</p>
        <Link href="/forgot-password" className="button-primary inline-block px-5 py-2">
          {t("askNewLink")}
        </Link>
      </div>
    );
  }
  return (
    <form onSubmit={(e) => { e.preventDefault(); void onSubmit(new FormData(e.currentTarget)); }} className="mx-auto max-w-sm space-y-4 rounded-xl border border-white/10 bg-white/5 p-6">
      <h1 className="text-2xl font-bold">{t("chooseTitle")}</h1>
      <label className="block text-sm">
        {t("newPassword")}
        <input name="password" type="password" required minLength={8} autoComplete="new-password" className="mt-1 w-full rounded bg-black/40 px-3 py-2" />
      </label>
      <label className="block text-sm">
        {t("again")}
        <input name="confirm" type="password" required minLength={8} autoComplete="new-password" className="mt-1 w-full rounded bg-black/40 px-3 py-2" />
      </label>
      {error && (
        <p role="alert" className="text-sm text-red-300">
          {error}
        </p>
      )}
      <button disabled={busy} className="button-primary w-full py-2">
        {busy ? "…" : t("set")}
      </button>
    </form>
  );
}
