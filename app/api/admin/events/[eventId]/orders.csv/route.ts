/**
 * GET an organizer's show's orders as CSV (`?status=` filters as the orders page does),
 * streamed as it is read from the database (lib/admin/orders.ts `exportEventOrdersCsv`).
 * Signed out 401, a fan or another organizer's show 403, an unknown status 400.
 */
import { z } from "zod";
import { exportEventOrdersCsv } from "@/lib/admin/orders";
import { assertOrganizerOfEvent } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { route } from "@/lib/http/route";
import { eventIdSchema } from "@/lib/ids";

export const GET = route(
  {
    who: "organizer",
    signIn: "Sign in as the show's organizer.",
    params: z.object({ eventId: eventIdSchema }),
    badParams: "bad_request",
    query: z.object({ status: z.string().max(100).optional() }),
  },
  async ({ params, query, user }) => {
    await assertOrganizerOfEvent(user, params.eventId);
    const { filename, body } = await exportEventOrdersCsv(db(), user.id, params.eventId, { status: query.status });
    return new Response(body, {
      headers: {
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename="${filename}"`,
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
      },
    });
  },
);
