/**
 * The organizer audit log (`admin_actions`): every organizer action on an order or a
 * ticket — refund, re-issue, release of a stuck hold, check-in, a reconciliation run —
 * with who, on what, the outcome and when. Successful actions are written in the same
 * transaction as their state change; refused ones (a typed error the organizer saw) are
 * written on their own, so the log shows attempts too.
 */
import { asc, eq } from "drizzle-orm";
import { adminActions, user } from "@/db/schema";
import type { Db } from "@/lib/db";

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0] | Db;

/** Names of the actions in the log. */
export type AdminActionName = "refund" | "refund_tickets" | "reissue_tickets" | "release_hold" | "check_in" | "reconcile";

/** One entry to append. */
export interface AdminActionInput {
  organizerId: string;
  eventId: string;
  orderId?: string | null;
  ticketId?: string | null;
  action: AdminActionName;
  /** The outcome: `{ outcome: "done", … }` or `{ outcome: "refused", code, message }`, plus what was touched. */
  detail: Record<string, unknown>;
}

/** Appends one entry to the audit log (inside `tx` when given a transaction). */
export async function recordAdminAction(tx: Tx, input: AdminActionInput): Promise<void> {
  await tx.insert(adminActions).values({
    organizerId: input.organizerId,
    eventId: input.eventId,
    orderId: input.orderId ?? null,
    ticketId: input.ticketId ?? null,
    action: input.action,
    detail: input.detail,
  });
}

/** One audit entry as the admin pages show it. */
export interface AdminActionView {
  id: number;
  organizerEmail: string;
  ticketId: string | null;
  action: string;
  detail: Record<string, unknown>;
  at: Date;
}

/** An order's audit entries, oldest first. */
export async function listOrderAdminActions(db: Db, orderId: string): Promise<AdminActionView[]> {
  return db
    .select({ id: adminActions.id, organizerEmail: user.email, ticketId: adminActions.ticketId, action: adminActions.action, detail: adminActions.detail, at: adminActions.at })
    .from(adminActions)
    .innerJoin(user, eq(adminActions.organizerId, user.id))
    .where(eq(adminActions.orderId, orderId))
    .orderBy(asc(adminActions.at), asc(adminActions.id));
}
