import type { ReactNode } from "react";
import { getLocale } from "next-intl/server";
import { SiteShell } from "@/components/site-shell";

/** The developer tools (the dev mailbox): the site's shell, in the visitor's language. */
export default async function DevLayout({ children }: { children: ReactNode }) {
  return <SiteShell locale={await getLocale()}>{children}</SiteShell>;
}
