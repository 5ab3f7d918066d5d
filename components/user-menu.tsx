"use client";
/**
 * Header links for the signed-in user (loaded in the browser so cached pages stay shared): an
 * organizer's dashboard and check-in, door staff's check-in (their only page), a fan's tickets.
 */
import Link from "next/link";
import { useTranslations } from "next-intl";
import { useRouter } from "next/navigation";
import { authClient } from "@/lib/auth/client";

export function UserMenu() {
  const { data, isPending } = authClient.useSession();
  const router = useRouter();
  const t = useTranslations("Shell");
  if (isPending) return <span className="text-sm text-white/60">…</span>;
  if (!data) {
    return (
      <div className="flex items-center gap-3 text-sm sm:gap-4">
        <Link href="/sign-in" className="hover:underline">
          {t("signIn")}
        </Link>
        <Link href="/sign-up" className="rounded bg-white/10 px-3 py-1 hover:bg-white/20">
          {t("createAccount")}
        </Link>
      </div>
    );
  }
  const role = (data.user as { role?: string }).role;
  return (
    <div className="flex min-w-0 flex-wrap items-center justify-end gap-x-3 gap-y-1 text-sm sm:gap-4">
      {role === "organizer" && (
        <Link href="/admin" className="hover:underline">
          {t("admin")}
        </Link>
      )}
      {(role === "organizer" || role === "door_staff") && (
        <Link href="/admin/scan" className="hover:underline" data-testid="nav-check-in">
          {t("checkIn")}
        </Link>
      )}
      {role !== "door_staff" && (
        <Link href="/tickets" className="hover:underline">
          {t("myTickets")}
        </Link>
      )}
      {/* On a phone the address would push "Sign out" off-screen: it is shown from the sm breakpoint, and as the button's title. */}
      <span className="hidden max-w-[16rem] truncate text-white/60 sm:inline" data-testid="signed-in-as">
        {data.user.email}
      </span>
      <button
        title={t("signedInAs", { email: data.user.email })}
        className="shrink-0 rounded bg-white/10 px-3 py-1 hover:bg-white/20"
        onClick={async () => {
          await authClient.signOut();
          router.refresh();
        }}
      >
        {t("signOut")}
      </button>
    </div>
  );
}
