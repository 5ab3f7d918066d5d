"use client";
/**
 * The landing of an e-mailed confirmation link (/verified?next=…, ADR 0027): the auth library
 * has confirmed the address and signed no one in (the password proves who signed up), so this
 * says so and offers the sign-in page, which continues to `next` (where they were going when
 * they signed up). Someone already signed in in this browser continues to `next` after a moment. A
 * link that failed (`?error=`: expired, not valid) offers a password-reset link instead, which
 * confirms the address too.
 */
import Link from "next/link";
import { useTranslations } from "next-intl";
import { useRouter, useSearchParams } from "next/navigation";
import { useEffect } from "react";
import { authClient } from "@/lib/auth/client";
import { safeNextPath } from "@/lib/redirects";

/** How long the confirmation shows before the page continues (ms). */
const CONTINUE_AFTER_MS = 1_500;

export function VerifiedLanding() {
  const t = useTranslations("Auth");
  const router = useRouter();
  const params = useSearchParams();
  const next = safeNextPath(params.get("next"));
  const failed = params.has("error");
  const { data, isPending } = authClient.useSession();
  const signedIn = !failed && !!data;

  useEffect(() => {
    if (!signedIn) return;
    const timer = setTimeout(() => router.replace(next), CONTINUE_AFTER_MS);
    return () => clearTimeout(timer);
  }, [signedIn, next, router]);

  const signInHref = `/sign-in?next=${encodeURIComponent(next)}`;
  const href = failed ? "/forgot-password" : signedIn ? next : signInHref;
  return (
    <div className="mx-auto max-w-sm space-y-4 rounded-xl border border-white/10 bg-white/5 p-6" data-testid="verified">
      <h1 className="text-2xl font-bold">{failed ? t("verifyFailedTitle") : t("verifiedTitle")}</h1>
      {failed ? (
        <p role="alert">{t("verifyFailed")}</p>
      ) : isPending ? (
        <p>…</p>
      ) : (
        <p role="status">{signedIn ? t("verifiedSignedIn") : t("verifiedSignIn")}</p>
      )}
      <Link href={href} className="button-primary inline-block px-5 py-2" data-testid="verified-next">
        {failed ? t("getNewLink") : signedIn ? t("continue") : t("signIn")}
      </Link>
    </div>
  );
}
