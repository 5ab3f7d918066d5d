import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getTranslations, setRequestLocale } from "next-intl/server";
import { SiteShell } from "@/components/site-shell";
import { isLocale, LOCALES } from "@/lib/i18n/config";

/** One static shell per language: the proxy (proxy.ts) rewrites every fan page to its locale's path. */
export function generateStaticParams(): { locale: string }[] {
  return LOCALES.map((locale) => ({ locale }));
}

export async function generateMetadata({ params }: LayoutProps<"/[locale]">): Promise<Metadata> {
  const { locale } = await params;
  const t = await getTranslations({ locale: isLocale(locale) ? locale : "en", namespace: "Shell" });
  return {
    title: { default: "StarArena", template: "%s · StarArena" },
    description: t("tagline"),
    icons: { icon: "/favicon.svg" },
    manifest: "/manifest.webmanifest",
  };
}

/** The fan pages' shell, in the locale the proxy chose. It reads no cookies, so pages below it stay cacheable; the user menu loads client-side. */
export default async function LocaleLayout({ children, params }: LayoutProps<"/[locale]">) {
  const { locale } = await params;
  if (!isLocale(locale)) notFound();
  setRequestLocale(locale);
  return <SiteShell locale={locale}>{children}</SiteShell>;
}
