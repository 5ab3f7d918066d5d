/**
 * The simulator's check of the PSP faults that test money, against the PSP's own records
 * after the run converged (scripts/onsale.ts):
 * - every short capture (the sandbox took less than the checkout's amount) ended refunded in
 *   full at the PSP: money that cannot become tickets is given back;
 * - no order named by a forged but correctly signed capture webhook was paid or ticketed,
 *   and the PSP never captured its checkout: a signed message is not money;
 * - a fault the run asked for (a share above 0) was injected at least once: a check that
 *   checked nothing is a failure too.
 */
import { inArray, sql } from "drizzle-orm";
import { orders } from "@/db/schema";
import type { Db } from "@/lib/db";
import * as psp from "@/lib/payments/sandbox/psp";

/** What the fans did to the PSP, and what the run asked for. */
export interface PspFaultsSeen {
  shortCaptured: readonly string[];
  forgedSigned: readonly { orderId: string; checkoutId: string }[];
  /** The fault shares the run was started with. */
  requested: { shortCapture: number; forgedSigned: number };
}

/** Counts that must be zero. */
export interface PspFaultViolations {
  shortCapturesNotRefunded: number;
  forgedSignedPaid: number;
  shortCaptureNotInjected: number;
  forgedSignedNotInjected: number;
}

/** The verdict from what the PSP's records and our orders say about each injected fault (pure). */
export function pspFaultVerdict(
  seen: PspFaultsSeen,
  found: { shortRefundedInFull: (checkoutId: string) => boolean; forgedPaid: (f: { orderId: string; checkoutId: string }) => boolean },
): PspFaultViolations {
  return {
    shortCapturesNotRefunded: seen.shortCaptured.filter((id) => !found.shortRefundedInFull(id)).length,
    forgedSignedPaid: seen.forgedSigned.filter((f) => found.forgedPaid(f)).length,
    shortCaptureNotInjected: seen.requested.shortCapture > 0 && seen.shortCaptured.length === 0 ? 1 : 0,
    forgedSignedNotInjected: seen.requested.forgedSigned > 0 && seen.forgedSigned.length === 0 ? 1 : 0,
  };
}

/**
 * Reads the sandbox PSP's records of the faulted checkouts and our orders and tickets, then judges.
 * @returns the violations and, for the report, what was counted.
 */
export async function checkPspFaults(db: Db, seen: PspFaultsSeen): Promise<{ violations: PspFaultViolations; counted: Record<string, number> }> {
  const records = new Map<string, psp.SandboxCheckout>();
  const ids = [...new Set([...seen.shortCaptured, ...seen.forgedSigned.map((f) => f.checkoutId)])];
  for (const id of ids) {
    const c = await psp.findCheckout(id);
    if (c) records.set(id, c);
  }
  const orderIds = seen.forgedSigned.map((f) => f.orderId);
  const paidOrders = new Set<string>();
  for (let i = 0; i < orderIds.length; i += 1_000) {
    const chunk = orderIds.slice(i, i + 1_000);
    const rows = await db
      .select({ id: orders.id })
      .from(orders)
      .where(
        sql`${inArray(orders.id, chunk)} and (${orders.status} in ('paid','ticketed') or exists (select 1 from tickets t where t.order_id = ${orders.id}))`,
      );
    for (const r of rows) paidOrders.add(r.id);
  }
  const shortRefundedInFull = (id: string) => {
    const c = records.get(id);
    return c !== undefined && c.status === "refunded" && c.refundedMinor === c.amountMinor;
  };
  const violations = pspFaultVerdict(seen, {
    shortRefundedInFull,
    forgedPaid: (f) => paidOrders.has(f.orderId) || ["captured", "refunded"].includes(records.get(f.checkoutId)?.status ?? ""),
  });
  return {
    violations,
    counted: {
      shortCaptures: seen.shortCaptured.length,
      shortCapturesRefundedInFull: seen.shortCaptured.filter(shortRefundedInFull).length,
      forgedSignedWebhooks: seen.forgedSigned.length,
    },
  };
}
