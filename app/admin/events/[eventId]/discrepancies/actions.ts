"use server";
/** Server action of the discrepancies page: run one reconciliation pass for the show now. */
import { refresh } from "next/cache";
import { z } from "zod";
import { reconcileEventNow, type ReconcileSummary } from "@/lib/admin/discrepancies";
import { requireOrganizerOfEvent } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { action } from "@/lib/http/action";
import { eventIdSchema } from "@/lib/ids";

/** The pass's summary, or an error in words. */
export type ReconcileActionResult = { ok: true; summary: ReconcileSummary } | { ok: false; message: string };

/** Runs reconciliation for `eventId` (organizer of the show only; others get 403). */
export const runReconciliationAction = action(
  {
    who: { organizer: true },
    args: z.tuple([eventIdSchema]),
    onError: (failure): ReconcileActionResult => {
      refresh();
      if (failure.code === "invalid_input") return { ok: false, message: "There is no such show." };
      return { ok: false, message: failure.code === "internal" ? "Reconciliation could not finish. Nothing is lost: it runs again by itself every minute; try again in a moment." : failure.error };
    },
  },
  async (_call, eventId): Promise<ReconcileActionResult> => {
    const { user } = await requireOrganizerOfEvent(eventId, `/admin/events/${eventId}/discrepancies`);
    const summary = await reconcileEventNow(db(), user.id, eventId);
    refresh();
    return { ok: true, summary };
  },
);
