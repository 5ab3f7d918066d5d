import { Suspense } from "react";
import { AuthForm } from "@/components/auth-form";
import type { Metadata } from "next";
import { getTranslations, setRequestLocale } from "next-intl/server";
import type { Locale } from "@/lib/i18n/config";

export async function generateMetadata({ params }: PageProps<"/[locale]/sign-in">): Promise<Metadata> {
  const t = await getTranslations({ locale: (await params).locale as Locale, namespace: "Auth" });
  return { title: t("signInTitle") };
}

export default async function SignInPage({ params }: PageProps<"/[locale]/sign-in">) {
  setRequestLocale((await params).locale as Locale);
  return (
    <Suspense>
      <AuthForm mode="sign-in" />
    </Suspense>
  );
}
