import type { ReactNode } from "react";
import { getLocale } from "next-intl/server";
import { SiteShell } from "@/components/site-shell";

/** The organizer's pages: the site's shell in the visitor's language, which the pages speak too (ADR 0029). */
export default async function AdminLayout({ children }: { children: ReactNode }) {
  return <SiteShell locale={await getLocale()}>{children}</SiteShell>;
}
