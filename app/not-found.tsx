import { NotFoundBody } from "@/components/not-found-body";
import { SiteShell } from "@/components/site-shell";

/**
 * Not found outside the fan pages (e.g. /admin/no-such-page), with the shell since the root layout
 * passes through. In English, reading nothing from the request: Next renders this boundary into
 * every page's payload. Fan pages have their own, translated, app/[locale]/not-found.tsx; both
 * render the one NotFoundBody.
 */
export default function NotFound() {
  return (
    <SiteShell locale="en">
      <NotFoundBody />
    </SiteShell>
  );
}
