/**
 * Logged reasons read back into catalogue pieces: the ones the app writes (including composed
 * ones) are all known and every piece has a message in both languages; anything else is
 * unknown as a whole, so the page shows it as logged rather than half translated.
 */
import { describe, expect, it } from "vitest";
import en from "@/lib/i18n/messages/en.json";
import zhCN from "@/lib/i18n/messages/zh-CN.json";
import { readLoggedReason } from "@/lib/admin/log-reason";

describe("readLoggedReason", () => {
  it("reads the reasons the app logs, composed ones too, with their arguments", () => {
    expect(readLoggedReason("held 2 seat(s) until 2026-12-07T21:48:05.123Z")).toEqual([{ key: "held", values: { count: "2", at: "2026-12-07T21:48:05.123Z" }, after: "" }]);
    expect(readLoggedReason("hold expiry sweep: hold expired at 2026-12-07T21:48:05.000Z")).toEqual([
      { key: "holdExpirySweep", values: {}, after: "" },
      { key: "holdExpiredAt", values: { at: "2026-12-07T21:48:05.000Z" }, after: ": " },
    ]);
    expect(readLoggedReason("payment.captured sbx_evt_4k2; the PSP was asked: refunded at the PSP")?.map((p) => [p.key, p.values, p.after])).toEqual([
      ["webhookEvent", { type: "payment.captured", id: "sbx_evt_4k2" }, ""],
      ["pspAsked", {}, "; "],
      ["refundedAtPsp", {}, ": "],
    ]);
    expect(readLoggedReason("checkout cancelled: order expired")?.map((p) => [p.key, p.values])).toEqual([
      ["checkoutCancelled", {}],
      ["orderNow", { status: "expired" }],
    ]);
    // The organizer's own words after a partial refund's id are kept whole, colons and all.
    expect(readLoggedReason("partial refund rfd_9x: Seat broken: the arm rest; sorry")).toEqual([{ key: "partialRefund", values: { id: "rfd_9x", reason: "Seat broken: the arm rest; sorry" }, after: "" }]);
    for (const logged of ["fan gave the seats back", "fan returned from the payment page", "checked in at the door", "order paid", "hold expiry", "finishing a partial refund", "refunded by the organizer", "stuck hold released by the organizer", "active PSP query: no webhook yet", "ticket issuance retry", "late payment sweep", "late payment pay_1a: seats still free, re-claimed", "second capture for order ord_7q: refunded (I3)", "amount mismatch: the capture is not what the order asked for; refunded in full", "capture not matching its order: refund retried"]) {
      expect(readLoggedReason(logged), logged).not.toBeNull();
    }
  });

  it("reads a reason with any unknown part as unknown (shown as logged)", () => {
    expect(readLoggedReason("the PSP's ledger shows capture of pay_1 (ours: created)")).toBeNull();
    expect(readLoggedReason("hold expiry sweep: something new")).toBeNull();
    expect(readLoggedReason("late payment: seats taken meanwhile; refunded in full")).toBeNull();
    expect(readLoggedReason("")).toBeNull();
  });

  it("has a message for every piece in both languages", () => {
    const keys = ["held", "fanGaveBack", "fanReturned", "checkedIn", "orderPaid", "holdExpiry", "holdExpirySweep", "holdExpiredAt", "pspAsked", "pspAskedFirst", "checkoutCancelled", "orderNow", "webhookEvent", "refundedAtPsp", "finishingPartialRefund", "partialRefund", "refundedByOrganizer", "releasedByOrganizer", "pspQueried", "noWebhookYet", "issuanceRetry", "latePaymentSweep", "latePayment", "latePaymentOf", "seatsReclaimed", "refundedInFull", "secondCapture", "secondCaptureFor", "refundedI3", "amountMismatch", "captureMismatch", "notPaidByIt", "captureNotMatching", "refundRetried"];
    for (const catalogue of [en, zhCN]) {
      const words = (catalogue as unknown as { AdminOrders: { reason: Record<string, string> } }).AdminOrders.reason;
      expect(keys.filter((k) => typeof words[k] !== "string")).toEqual([]);
      expect(Object.keys(words).sort()).toEqual([...keys].sort());
    }
  });
});
