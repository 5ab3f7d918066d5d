"use client";
/** Email + password sign-in / sign-up form (better-auth client). Returns to `?next=` afterwards. */
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";
import { authClient } from "@/lib/auth/client";
import { safeNextPath } from "@/lib/redirects";

export function AuthForm({ mode }: { mode: "sign-in" | "sign-up" }) {
  const router = useRouter();
  const params = useSearchParams();
  const next = safeNextPath(params.get("next"));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function onSubmit(form: FormData) {
    setBusy(true);
    setError(null);
    const email = String(form.get("email") ?? "").trim();
    const password = String(form.get("password") ?? "");
    const result =
      mode === "sign-in"
        ? await authClient.signIn.email({ email, password })
        : await authClient.signUp.email({ email, password, name: String(form.get("name") ?? "").trim() || email });
    setBusy(false);
    if (result.error) {
      setError(result.error.message ?? "That did not work. Check your email and password.");
      return;
    }
    router.push(next);
    router.refresh();
  }

  return (
    <form onSubmit={(e) => { e.preventDefault(); void onSubmit(new FormData(e.currentTarget)); }} className="mx-auto max-w-sm space-y-4 rounded-xl border border-white/10 bg-white/5 p-6">
      <h1 className="text-2xl font-bold">{mode === "sign-in" ? "Sign in" : "Create your fan account"}</h1>
      {mode === "sign-in" && params.get("reset") === "1" && (
        <p role="status" className="text-sm text-emerald-300">
          Your password was changed. Sign in with the new one.
        </p>
      )}
      {mode === "sign-up" && (
        <label className="block text-sm">
          Name
          <input name="name" autoComplete="name" className="mt-1 w-full rounded bg-black/40 px-3 py-2" />
        </label>
      )}
      <label className="block text-sm">
        Email
        <input name="email" type="email" required autoComplete="email" className="mt-1 w-full rounded bg-black/40 px-3 py-2" />
      </label>
      <label className="block text-sm">
        Password
        <input
          name="password"
          type="password"
          required
          minLength={8}
          autoComplete={mode === "sign-in" ? "current-password" : "new-password"}
          className="mt-1 w-full rounded bg-black/40 px-3 py-2"
        />
      </label>
      {error && (
        <p role="alert" className="text-sm text-red-300">
          {error}
        </p>
      )}
      <button disabled={busy} className="w-full rounded bg-indigo-500 py-2 font-semibold hover:bg-indigo-400 disabled:opacity-50">
        {busy ? "…" : mode === "sign-in" ? "Sign in" : "Create account"}
      </button>
      {mode === "sign-in" && (
        <p className="text-center text-sm">
          <Link href="/forgot-password" className="underline">
            Forgot your password?
          </Link>
        </p>
      )}
      <p className="text-center text-sm text-white/60">
        {mode === "sign-in" ? (
          <>
            New here? <Link href={`/sign-up?next=${encodeURIComponent(next)}`} className="underline">Create an account</Link>
          </>
        ) : (
          <>
            Have an account? <Link href={`/sign-in?next=${encodeURIComponent(next)}`} className="underline">Sign in</Link>
          </>
        )}
      </p>
    </form>
  );
}
