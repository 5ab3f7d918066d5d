import { NotFoundBody } from "@/components/not-found-body";

/**
 * Not found in the organizer's area — an address no organizer page has (app/admin/[...rest]) or
 * a show or order that does not exist — rendered inside app/admin/layout.tsx, so in the reader's
 * language with the site's header, like app/admin/forbidden.tsx.
 */
export default function AdminNotFound() {
  return <NotFoundBody />;
}
