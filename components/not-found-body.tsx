"use client";
import Link from "next/link";
import { useTranslations } from "next-intl";

/** "Not found" in the page's language, with the way back to the shows. */
export function NotFoundBody() {
  const t = useTranslations("NotFound");
  return (
    <div className="space-y-3">
      <h1 className="text-3xl font-bold">{t("title")}</h1>
      <p className="text-white/70">{t("body")}</p>
      <Link href="/" className="underline">
        {t("seeAll")}
      </Link>
    </div>
  );
}
