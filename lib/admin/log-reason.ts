/**
 * A transition's logged reason (order_transitions.reason, I8), read back into pieces the
 * catalogue words (`AdminOrders.reason.<key>`), so the order page shows the log in the reader's
 * language. The log is written in English by the code that makes each change, often composed
 * ("hold expiry sweep: hold expired at 2026-12-07T21:48:05.000Z", "payment.captured sbx_evt_1;
 * the PSP was asked"): it is split at ": " and "; " and every fragment must be one this module
 * knows, else the whole reason is unknown (null) and the page shows it as logged.
 *
 * Pure. Values named `at` are instants (ISO 8601 UTC as logged), `status` a stored status,
 * `type` a PSP's event type (a code), `reason` what the organizer typed.
 */

/** The catalogue keys of the fragments (`AdminOrders.reason.<key>`). */
export type ReasonKey =
  | "held"
  | "fanGaveBack"
  | "fanReturned"
  | "checkedIn"
  | "orderPaid"
  | "holdExpiry"
  | "holdExpirySweep"
  | "holdExpiredAt"
  | "pspAsked"
  | "pspAskedFirst"
  | "checkoutCancelled"
  | "orderNow"
  | "webhookEvent"
  | "refundedAtPsp"
  | "finishingPartialRefund"
  | "partialRefund"
  | "refundedByOrganizer"
  | "releasedByOrganizer"
  | "pspQueried"
  | "noWebhookYet"
  | "issuanceRetry"
  | "latePaymentSweep"
  | "latePayment"
  | "latePaymentOf"
  | "seatsReclaimed"
  | "refundedInFull"
  | "secondCapture"
  | "secondCaptureFor"
  | "refundedI3"
  | "amountMismatch"
  | "captureMismatch"
  | "notPaidByIt"
  | "captureNotMatching"
  | "refundRetried";

/** One fragment of a reason: its key and arguments, and the separator logged before it ("" for the first). */
export interface ReasonPiece {
  key: ReasonKey;
  values: Record<string, string>;
  /** ": " or "; " — how it was joined to the fragment before it ("" for the first). */
  after: "" | ": " | "; ";
}

const ISO = String.raw`(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)`;

/** The fragments the app logs (lib/orders, lib/payments, lib/tickets, lib/reconciliation, inngest), with their arguments' names. */
const FRAGMENTS: readonly [RegExp, ReasonKey, readonly string[]][] = [
  [new RegExp(`^held (\\d+) seat\\(s\\) until ${ISO}$`), "held", ["count", "at"]],
  [/^fan gave the seats back$/, "fanGaveBack", []],
  [/^fan returned from the payment page$/, "fanReturned", []],
  [/^checked in at the door$/, "checkedIn", []],
  [/^order paid$/, "orderPaid", []],
  [/^hold expiry$/, "holdExpiry", []],
  [/^hold expiry sweep$/, "holdExpirySweep", []],
  [new RegExp(`^hold expired at ${ISO}$`), "holdExpiredAt", ["at"]],
  [/^the PSP was asked$/, "pspAsked", []],
  [/^the PSP was asked first$/, "pspAskedFirst", []],
  [/^checkout cancelled$/, "checkoutCancelled", []],
  [/^order ([a-z_]+)$/, "orderNow", ["status"]],
  [/^([a-z_]+(?:\.[a-z_]+)+) ([\w-]+)$/, "webhookEvent", ["type", "id"]],
  [/^refunded at the PSP$/, "refundedAtPsp", []],
  [/^finishing a partial refund$/, "finishingPartialRefund", []],
  [/^refunded by the organizer$/, "refundedByOrganizer", []],
  [/^stuck hold released by the organizer$/, "releasedByOrganizer", []],
  [/^active PSP query$/, "pspQueried", []],
  [/^no webhook yet$/, "noWebhookYet", []],
  [/^ticket issuance retry$/, "issuanceRetry", []],
  [/^late payment sweep$/, "latePaymentSweep", []],
  [/^late payment$/, "latePayment", []],
  [/^late payment (pay_[0-9a-z]+)$/, "latePaymentOf", ["id"]],
  [/^seats still free, re-claimed$/, "seatsReclaimed", []],
  [/^refunded in full$/, "refundedInFull", []],
  [/^second capture for the order \(I3\)$/, "secondCapture", []],
  [/^second capture for order (ord_[0-9a-z]+)$/, "secondCaptureFor", ["id"]],
  [/^refunded \(I3\)$/, "refundedI3", []],
  [/^amount mismatch$/, "amountMismatch", []],
  [/^the capture is not what the order asked for$/, "captureMismatch", []],
  [/^the order is not paid by it$/, "notPaidByIt", []],
  [/^capture not matching its order$/, "captureNotMatching", []],
  [/^refund retried$/, "refundRetried", []],
];

function fragment(text: string, after: ReasonPiece["after"]): ReasonPiece | null {
  for (const [pattern, key, names] of FRAGMENTS) {
    const m = pattern.exec(text);
    if (m) return { key, values: Object.fromEntries(names.map((name, i) => [name, m[i + 1]!])), after };
  }
  return null;
}

/**
 * A logged reason as catalogue pieces, or null when any part of it is not known here (then
 * it is shown as logged). A partial refund's reason ("partial refund rfd_…: <what the
 * organizer typed>") is one piece whose `reason` is the organizer's text, whatever it holds.
 */
export function readLoggedReason(reason: string): ReasonPiece[] | null {
  const partial = /^partial refund (rfd_[0-9a-z]+): ([\s\S]*)$/.exec(reason);
  if (partial) return [{ key: "partialRefund", values: { id: partial[1]!, reason: partial[2]! }, after: "" }];
  // split with a capturing group keeps the separators at odd indexes: text, separator, text, …
  const parts = reason.split(/(: |; )/);
  const pieces: ReasonPiece[] = [];
  for (let i = 0; i < parts.length; i += 2) {
    const piece = fragment(parts[i]!, i === 0 ? "" : (parts[i - 1] as ": " | "; "));
    if (!piece) return null;
    pieces.push(piece);
  }
  return pieces;
}
