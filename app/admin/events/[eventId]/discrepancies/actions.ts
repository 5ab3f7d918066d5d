"use server";
/** Server action of the discrepancies page: run one reconciliation pass for the show now. */
import { refresh } from "next/cache";
import { z } from "zod";
import { reconcileEventNow, type ReconcileSummary } from "@/lib/admin/discrepancies";
import { requireOrganizer, requireOrganizerOfEvent } from "@/lib/auth/session";
import { db } from "@/lib/db";

/** The pass's summary, or an error in words. */
export type ReconcileActionResult = { ok: true; summary: ReconcileSummary } | { ok: false; message: string };

/** Runs reconciliation for `eventId` (organizer of the show only; others get 403). */
export async function runReconciliationAction(eventId: unknown): Promise<ReconcileActionResult> {
  const parsed = z.string().regex(/^evt_[0-9a-z]{1,32}$/).safeParse(eventId);
  if (!parsed.success) {
    await requireOrganizer();
    return { ok: false, message: "There is no such show." };
  }
  const { user } = await requireOrganizerOfEvent(parsed.data, `/admin/events/${parsed.data}/discrepancies`);
  try {
    return { ok: true, summary: await reconcileEventNow(db(), user.id, parsed.data) };
  } catch (error) {
    console.error("reconciliation from the admin page failed", error);
    return { ok: false, message: "Reconciliation could not finish. Nothing is lost: it runs again by itself every minute; try again in a moment." };
  } finally {
    refresh();
  }
}
