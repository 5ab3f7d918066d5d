import { Suspense } from "react";
import { ResetPasswordForm } from "@/components/password-reset-form";
import type { Metadata } from "next";
import { getTranslations, setRequestLocale } from "next-intl/server";
import type { Locale } from "@/lib/i18n/config";

export async function generateMetadata({ params }: PageProps<"/[locale]/reset-password">): Promise<Metadata> {
  const t = await getTranslations({ locale: (await params).locale as Locale, namespace: "Reset" });
  return { title: t("chooseTitle") };
}

export default async function ResetPasswordPage({ params }: PageProps<"/[locale]/reset-password">) {
  setRequestLocale((await params).locale as Locale);
  return (
    <Suspense>
      <ResetPasswordForm />
    </Suspense>
  );
}
