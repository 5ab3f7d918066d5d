import Link from "next/link";
import { getTranslations } from "next-intl/server";
import { currentUser } from "@/lib/auth/session";

/**
 * The 403 page of the organizer's area (rendered inside app/admin/layout.tsx, so in the reader's
 * language with the site's header), saying to each account what it can do instead: door staff
 * are pointed to check-in, a fan to their tickets, an organizer (another organizer's show) to
 * their own shows. Next renders this boundary with every admin page, so the look-up is the
 * page's own (`currentUser`, once per request).
 */
export default async function AdminForbidden() {
  const [user, t] = await Promise.all([currentUser(), getTranslations("Forbidden")]);
  const link = "inline-block rounded bg-white/10 px-4 py-2 font-semibold hover:bg-white/20";
  if (user?.role === "door_staff") {
    return (
      <div className="space-y-3" data-testid="forbidden" data-role="door_staff">
        <h1 className="text-3xl font-bold">{t("staffTitle")}</h1>
        <p className="text-white/70">{t("staffBody")}</p>
        <Link href="/admin/scan" className="button-primary inline-block px-5 py-3 text-lg">
          {t("staffLink")}
        </Link>
      </div>
    );
  }
  if (user?.role === "organizer") {
    return (
      <div className="space-y-3" data-testid="forbidden" data-role="organizer">
        <h1 className="text-3xl font-bold">{t("organizerTitle")}</h1>
        <p className="text-white/70">{t("organizerBody")}</p>
        <Link href="/admin" className={link}>
          {t("organizerLink")}
        </Link>
      </div>
    );
  }
  return (
    <div className="space-y-3" data-testid="forbidden" data-role="fan">
      <h1 className="text-3xl font-bold">{t("fanTitle")}</h1>
      <p className="break-words text-white/70">{user ? t("fanBody", { email: user.email }) : t("body")}</p>
      <div className="flex flex-wrap gap-3">
        <Link href="/tickets" className={link}>
          {t("fanTickets")}
        </Link>
        <Link href="/" className={link}>
          {t("back")}
        </Link>
      </div>
    </div>
  );
}
