import Link from "next/link";
import { SiteShell } from "@/components/site-shell";
import { translator } from "@/lib/i18n/translate";

/**
 * Not found outside the fan pages (e.g. /admin/no-such-page), with a shell since the root layout
 * passes through. In English, reading nothing from the request: Next renders this boundary into
 * every page's payload. Fan pages have their own,
 * translated, app/[locale]/not-found.tsx.
 */
export default function NotFound() {
  const t = translator("en", "NotFound");
  return (
    <SiteShell locale="en">
      <div className="space-y-3">
        <h1 className="text-3xl font-bold">{t("title")}</h1>
        <p className="text-white/70">{t("body")}</p>
        <Link href="/" className="underline">
          {t("seeAll")}
        </Link>
      </div>
    </SiteShell>
  );
}
