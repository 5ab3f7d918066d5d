import { NotFoundBody } from "@/components/not-found-body";
import { SiteShell } from "@/components/site-shell";

/**
 * Not found where no area has its own page (an address with a dot, /dev/…), with the shell since
 * the root layout passes through. In English, reading nothing from the request: Next renders this
 * boundary into every page's payload. The fan pages (app/[locale]/not-found.tsx) and the
 * organizer's (app/admin/not-found.tsx) have their own, in the reader's language; all render the
 * one NotFoundBody.
 */
export default function NotFound() {
  return (
    <SiteShell locale="en">
      <NotFoundBody />
    </SiteShell>
  );
}
