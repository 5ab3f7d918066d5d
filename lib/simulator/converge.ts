/**
 * After the sale: wait until the sweeps and the ledger reconciliation have converged — no
 * order still pending, no captured payment (ours, or the PSP's own record of one) on an
 * order without tickets, no tickets without money at the PSP — or a deadline passes.
 */
import { sql } from "drizzle-orm";
import type { Db } from "@/lib/db";
import { checkPspInvariants } from "@/lib/reconciliation/invariants";

/**
 * Polls every 2 s until converged or `deadline` (epoch ms).
 * @returns true when it converged.
 */
export async function waitForConvergence(db: Db, eventId: string, deadline: number): Promise<boolean> {
  while (Date.now() < deadline) {
    const [pending] = (await db.execute(sql`select count(*)::int as n from orders where event_id = ${eventId} and status = 'pending_payment'`)) as unknown as { n: number }[];
    const [paidNoTickets] = (await db.execute(
      sql`select count(*)::int as n from payments p join orders o on o.id = p.order_id where o.event_id = ${eventId} and p.status = 'captured' and o.status <> 'ticketed'`,
    )) as unknown as { n: number }[];
    // The PSP's side: money it holds for an order that is not ticketed, tickets it holds no money for.
    const psp = pending!.n === 0 && paidNoTickets!.n === 0 ? await checkPspInvariants(db, { eventId, graceMs: 0 }) : null;
    if (psp && psp.pspCapturedWithoutTickets === 0 && psp.pspTicketsWithoutCapture === 0 && psp.pspDoubleCharged === 0) return true;
    await new Promise((r) => setTimeout(r, 2_000));
  }
  return false;
}
