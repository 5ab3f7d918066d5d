import Link from "next/link";
import { SiteShell } from "@/components/site-shell";
import { translator } from "@/lib/i18n/translate";

/**
 * Shown with HTTP 403 when a signed-in user lacks the role for a page outside the organizer's
 * area (which has its own, role-aware and translated: app/admin/forbidden.tsx). In English and
 * the same for everyone: Next renders this boundary into every page's payload, so it must not
 * read the request (that would make every page dynamic).
 */
export default function Forbidden() {
  const t = translator("en", "Forbidden");
  return (
    <SiteShell locale="en">
      <div className="space-y-3">
        <h1 className="text-3xl font-bold">{t("title")}</h1>
        <p className="text-white/70">{t("body")}</p>
        <Link href="/" className="underline">
          {t("back")}
        </Link>
      </div>
    </SiteShell>
  );
}
