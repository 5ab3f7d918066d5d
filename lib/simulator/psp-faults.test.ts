/**
 * The simulator's money-fault check (lib/simulator/psp-faults.ts) against the real sandbox
 * PSP's records: a short capture left unrefunded, a signed forgery that got paid, and a fault
 * asked for but never injected each fail the verdict.
 */
import { afterAll, describe, expect, it } from "vitest";
import { closeDb, db } from "@/lib/db";
import * as psp from "@/lib/payments/sandbox/psp";
import { closeRedis } from "@/lib/redis";
import { checkPspFaults, pspFaultVerdict } from "@/lib/simulator/psp-faults";

afterAll(async () => {
  await closeDb();
  await closeRedis();
});

const requested = { shortCapture: 0.02, forgedSigned: 0.02 };

describe("the simulator's PSP money-fault check", () => {
  it("fails a requested fault that was never injected, and passes when none was requested", () => {
    const none = { shortRefundedInFull: () => true, forgedPaid: () => false };
    expect(pspFaultVerdict({ shortCaptured: [], forgedSigned: [], requested }, none)).toEqual({ shortCapturesNotRefunded: 0, forgedSignedPaid: 0, shortCaptureNotInjected: 1, forgedSignedNotInjected: 1 });
    expect(pspFaultVerdict({ shortCaptured: [], forgedSigned: [], requested: { shortCapture: 0, forgedSigned: 0 } }, none)).toEqual({ shortCapturesNotRefunded: 0, forgedSignedPaid: 0, shortCaptureNotInjected: 0, forgedSignedNotInjected: 0 });
  });

  it("counts a short capture the PSP still keeps, and passes once it is refunded in full; a forgery whose checkout the PSP captured is counted", async () => {
    const open = async (key: string, faults = {}) =>
      psp.createCheckout({ orderId: `ord_sim${key}`, amountMinor: 2_000, currency: "EUR", description: "sim", expiresAt: new Date(Date.now() + 60_000), returnUrl: "http://localhost/r", idempotencyKey: `psp-faults-${key}-${Date.now()}`, faults });
    const short = await open("short", { shortCaptureMinor: 150 });
    const captured = (await psp.approve(short.id)).checkout;
    expect(captured.amountMinor).toBe(1_850);
    const forged = await open("forged");
    const seen = { shortCaptured: [short.id], forgedSigned: [{ orderId: forged.orderId, checkoutId: forged.id }], requested };
    expect((await checkPspFaults(db(), seen)).violations).toEqual({ shortCapturesNotRefunded: 1, forgedSignedPaid: 0, shortCaptureNotInjected: 0, forgedSignedNotInjected: 0 });
    await psp.refund(captured.paymentId!, "sim-refund");
    await psp.approve(forged.id); // the PSP took money for the forged order's checkout after all
    const after = await checkPspFaults(db(), seen);
    expect(after.violations).toEqual({ shortCapturesNotRefunded: 0, forgedSignedPaid: 1, shortCaptureNotInjected: 0, forgedSignedNotInjected: 0 });
    expect(after.counted).toEqual({ shortCaptures: 1, shortCapturesRefundedInFull: 1, forgedSignedWebhooks: 1 });
  });
});
