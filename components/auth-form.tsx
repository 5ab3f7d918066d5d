"use client";
/**
 * Email + password sign-in / sign-up form (better-auth client). Returns to `?next=` afterwards.
 * Sign-up always ends in "check your inbox", whether or not the address has an account (ADR
 * 0027): the e-mailed link confirms it and lands on /verified, whose sign-in continues to
 * `next`. Sign-in before confirming is refused and says to open the link, or to reset the
 * password (which confirms the address) when the message is lost.
 */
import Link from "next/link";
import { useTranslations } from "next-intl";
import { useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";
import { authClient } from "@/lib/auth/client";
import { safeNextPath } from "@/lib/redirects";

/** better-auth's error codes with words of our own (catalogue `Auth.error_<CODE>`); any other keeps the library's (English) message, or our generic one. */
const AUTH_ERRORS = new Set(["INVALID_EMAIL_OR_PASSWORD", "USER_ALREADY_EXISTS", "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL", "PASSWORD_TOO_SHORT", "INVALID_EMAIL", "TOO_MANY_REQUESTS"]);

/** What a fan reads when sign-in or sign-up is refused, in the page's language. */
function authErrorMessage(t: ReturnType<typeof useTranslations<"Auth">>, error: { code?: string; message?: string; status?: number }, email: string): string {
  const code = error.status === 429 ? "TOO_MANY_REQUESTS" : error.code;
  if (code === "EMAIL_NOT_VERIFIED") return t("error_EMAIL_NOT_VERIFIED", { email });
  if (code && AUTH_ERRORS.has(code)) return t(`error_${code}` as "error_INVALID_EMAIL");
  return t("failed");
}

export function AuthForm({ mode }: { mode: "sign-in" | "sign-up" }) {
  const router = useRouter();
  const t = useTranslations("Auth");
  const params = useSearchParams();
  const next = safeNextPath(params.get("next"));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [sentTo, setSentTo] = useState<string | null>(null);

  async function onSubmit(form: FormData) {
    setBusy(true);
    setError(null);
    const email = String(form.get("email") ?? "").trim();
    const password = String(form.get("password") ?? "");
    // callbackURL: where the e-mailed link continues to (via /verified); on a sign-in that
    // succeeds, the client library goes there itself.
    const result =
      mode === "sign-in"
        ? await authClient.signIn.email({ email, password, callbackURL: next })
        : await authClient.signUp.email({ email, password, name: String(form.get("name") ?? "").trim() || email, callbackURL: next });
    setBusy(false);
    if (result.error) {
      setError(authErrorMessage(t, result.error, email));
      return;
    }
    if (mode === "sign-up") {
      setSentTo(email);
      return;
    }
    if (!(result.data as { redirect?: boolean } | null)?.redirect) {
      router.push(next);
      router.refresh();
    }
  }

  if (sentTo) {
    return (
      <div className="mx-auto max-w-sm space-y-4 rounded-xl border border-white/10 bg-white/5 p-6">
        <h1 className="text-2xl font-bold">{t("checkInboxTitle")}</h1>
        <p role="status" data-testid="sign-up-sent">
          {t("checkInbox", { email: sentTo })}
        </p>
        <p className="text-sm text-white/60">{t("checkInboxSpam")}</p>
      </div>
    );
  }

  return (
    <form onSubmit={(e) => { e.preventDefault(); void onSubmit(new FormData(e.currentTarget)); }} className="mx-auto max-w-sm space-y-4 rounded-xl border border-white/10 bg-white/5 p-6">
      <h1 className="text-2xl font-bold">{mode === "sign-in" ? t("signInTitle") : t("signUpTitle")}</h1>
      {mode === "sign-in" && params.get("reset") === "1" && (
        <p role="status" className="text-sm text-emerald-300">
          {t("passwordChanged")}
        </p>
      )}
      {mode === "sign-up" && (
        <label className="block text-sm">
          {t("name")}
          <input name="name" autoComplete="name" className="mt-1 w-full rounded bg-black/40 px-3 py-2" />
        </label>
      )}
      <label className="block text-sm">
        {t("email")}
        <input name="email" type="email" required autoComplete="email" className="mt-1 w-full rounded bg-black/40 px-3 py-2" />
      </label>
      <label className="block text-sm">
        {t("password")}
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
      <button disabled={busy} className="button-primary w-full py-2">
        {busy ? "…" : mode === "sign-in" ? t("signIn") : t("createAccount")}
      </button>
      {mode === "sign-in" && (
        <p className="text-center text-sm">
          <Link href="/forgot-password" className="underline">
            {t("forgot")}
          </Link>
        </p>
      )}
      <p className="text-center text-sm text-white/60">
        {mode === "sign-in" ? (
          <>
            {t("newHere")}{" "}
            <Link href={`/sign-up?next=${encodeURIComponent(next)}`} className="underline">
              {t("createAnAccount")}
            </Link>
          </>
        ) : (
          <>
            {t("haveAccount")}{" "}
            <Link href={`/sign-in?next=${encodeURIComponent(next)}`} className="underline">
              {t("signIn")}
            </Link>
          </>
        )}
      </p>
    </form>
  );
}
