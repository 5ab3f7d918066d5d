"use server";
/** Server action of the discrepancies page: run one reconciliation pass for the show now. */
import { refresh } from "next/cache";
import { z } from "zod";
import { reconcileEventNow, type ReconcileSummary } from "@/lib/admin/discrepancies";
import { requireOrganizerOfEvent } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { action } from "@/lib/http/action";
import { eventIdSchema } from "@/lib/ids";

/**
 * The pass's summary, or why it did not run: `noSuchShow` and `unfinished` are worded by the
 * page (`Discrepancies` catalogue); any other refusal comes as its message, already in the
 * caller's language (lib/http/action.ts).
 */
export type ReconcileActionResult = { ok: true; summary: ReconcileSummary } | { ok: false; reason: "noSuchShow" | "unfinished" } | { ok: false; message: string };

/** Runs reconciliation for `eventId` (organizer of the show only; others get 403). */
export const runReconciliationAction = action(
  {
    who: { organizer: true },
    args: z.tuple([eventIdSchema]),
    onError: (failure): ReconcileActionResult => {
      refresh();
      if (failure.code === "invalid_input") return { ok: false, reason: "noSuchShow" };
      return failure.code === "internal" ? { ok: false, reason: "unfinished" } : { ok: false, message: failure.error };
    },
  },
  async (_call, eventId): Promise<ReconcileActionResult> => {
    const { user } = await requireOrganizerOfEvent(eventId, `/admin/events/${eventId}/discrepancies`);
    const summary = await reconcileEventNow(db(), user.id, eventId);
    refresh();
    return { ok: true, summary };
  },
);
