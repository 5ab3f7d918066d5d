import { Suspense } from "react";
import type { Metadata } from "next";
import { getTranslations, setRequestLocale } from "next-intl/server";
import { VerifiedLanding } from "@/components/verified-landing";
import type { Locale } from "@/lib/i18n/config";

export async function generateMetadata({ params }: PageProps<"/[locale]/verified">): Promise<Metadata> {
  const t = await getTranslations({ locale: (await params).locale as Locale, namespace: "Auth" });
  return { title: t("verifiedTitle") };
}

/** Where an e-mailed confirmation link lands (better-auth's /api/auth/verify-email redirects here, lib/auth). */
export default async function VerifiedPage({ params }: PageProps<"/[locale]/verified">) {
  setRequestLocale((await params).locale as Locale);
  return (
    <Suspense>
      <VerifiedLanding />
    </Suspense>
  );
}
