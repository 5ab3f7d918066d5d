"use client";
/**
 * Password reset, both halves (better-auth client): asking for the link by e-mail
 * (/forgot-password), and choosing a new password from the link (/reset-password?token=…).
 * Asking never says whether an address has an account (the answer is the same either way).
 * The forms submit with onSubmit, not a form action: React resets a form after its action,
 * and a fan told "the two passwords differ" should not have to type both again.
 */
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";
import { authClient } from "@/lib/auth/client";

export function ForgotPasswordForm() {
  const [sent, setSent] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function onSubmit(form: FormData) {
    setBusy(true);
    setError(null);
    const email = String(form.get("email") ?? "").trim();
    const result = await authClient.requestPasswordReset({ email, redirectTo: "/reset-password" });
    setBusy(false);
    if (result.error) return setError(result.error.message ?? "That did not work. Try again in a moment.");
    setSent(email);
  }
  return (
    <form onSubmit={(e) => { e.preventDefault(); void onSubmit(new FormData(e.currentTarget)); }} className="mx-auto max-w-sm space-y-4 rounded-xl border border-white/10 bg-white/5 p-6">
      <h1 className="text-2xl font-bold">Reset your password</h1>
      {sent ? (
        <p role="status" data-testid="reset-requested">
          If {sent} has a StarArena account, a link to choose a new password is on its way. It works for one hour.
        </p>
      ) : (
        <>
          <p className="text-sm text-white/70">We will e-mail you a link to choose a new password.</p>
          <label className="block text-sm">
            Email
            <input name="email" type="email" required autoComplete="email" className="mt-1 w-full rounded bg-black/40 px-3 py-2" />
          </label>
          {error && (
            <p role="alert" className="text-sm text-red-300">
              {error}
            </p>
          )}
          <button disabled={busy} className="w-full rounded bg-indigo-500 py-2 font-semibold hover:bg-indigo-400 disabled:opacity-50">
            {busy ? "…" : "Send the link"}
          </button>
        </>
      )}
      <p className="text-center text-sm">
        <Link href="/sign-in" className="underline">
          Back to sign in
        </Link>
      </p>
    </form>
  );
}

export function ResetPasswordForm() {
  const router = useRouter();
  const params = useSearchParams();
  const token = params.get("token");
  const linkError = params.get("error");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function onSubmit(form: FormData) {
    const password = String(form.get("password") ?? "");
    if (password !== String(form.get("confirm") ?? "")) return setError("The two passwords differ. Type the same new password twice.");
    setBusy(true);
    setError(null);
    const result = await authClient.resetPassword({ newPassword: password, token: token ?? "" });
    setBusy(false);
    if (result.error) return setError(result.error.message ?? "That did not work. Ask for a new link.");
    router.push("/sign-in?reset=1");
  }
  if (!token || linkError) {
    return (
      <div className="mx-auto max-w-sm space-y-4 rounded-xl border border-white/10 bg-white/5 p-6">
        <h1 className="text-2xl font-bold">This link does not work</h1>
        <p role="alert">The link has expired or was already used. Ask for a new one: links work for one hour, once.</p>
        <Link href="/forgot-password" className="inline-block rounded bg-indigo-500 px-5 py-2 font-semibold">
          Ask for a new link
        </Link>
      </div>
    );
  }
  return (
    <form onSubmit={(e) => { e.preventDefault(); void onSubmit(new FormData(e.currentTarget)); }} className="mx-auto max-w-sm space-y-4 rounded-xl border border-white/10 bg-white/5 p-6">
      <h1 className="text-2xl font-bold">Choose a new password</h1>
      <label className="block text-sm">
        New password
        <input name="password" type="password" required minLength={8} autoComplete="new-password" className="mt-1 w-full rounded bg-black/40 px-3 py-2" />
      </label>
      <label className="block text-sm">
        The same again
        <input name="confirm" type="password" required minLength={8} autoComplete="new-password" className="mt-1 w-full rounded bg-black/40 px-3 py-2" />
      </label>
      {error && (
        <p role="alert" className="text-sm text-red-300">
          {error}
        </p>
      )}
      <button disabled={busy} className="w-full rounded bg-indigo-500 py-2 font-semibold hover:bg-indigo-400 disabled:opacity-50">
        {busy ? "…" : "Set the new password"}
      </button>
    </form>
  );
}
