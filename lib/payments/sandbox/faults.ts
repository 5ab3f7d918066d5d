/**
 * The sandbox PSP's fault knobs: the ways it can misbehave on purpose so the app's
 * payment handling is exercised against the failure table in docs/design.md (lost, late,
 * duplicated and reordered webhooks, declines, slow approvals, late captures, short
 * captures, a failing webhook endpoint).
 *
 * Knobs come from two places and are merged per action:
 *   defaults ← global settings (sandbox_psp.settings, PUT /sandbox-psp/api/faults)
 *            ← per-checkout overrides (sandbox_psp.checkouts.faults)
 * The later source wins for every knob it sets.
 */
import { z } from "zod";

/** Longest allowed webhook delay / slow approval (ms): 10 minutes. */
const MAX_MS = 10 * 60_000;

/**
 * A partial set of knobs, as stored globally or per checkout and as accepted by the
 * faults API. Unknown keys are rejected so a typo is a 400, not a silent no-op.
 */
export const sandboxFaultOverridesSchema = z.strictObject({
  /** Milliseconds between the PSP-side event (capture, decline, …) and the webhook being due. */
  webhookDelayMs: z.number().int().min(0).max(MAX_MS).optional(),
  /** Deliver each webhook this many EXTRA times (same event id each time). */
  duplicate: z.number().int().min(0).max(10).optional(),
  /** Never deliver the `payment.captured` webhook (the app must find the payment by querying). */
  drop: z.boolean().optional(),
  /** Deliver this checkout's webhooks later-ones-first: a new event overtakes the still-pending earlier ones. */
  reorder: z.boolean().optional(),
  /** "Approve payment" declines instead. */
  decline: z.boolean().optional(),
  /** Approval takes this many milliseconds before the capture (like a 3-D Secure challenge). */
  slowApprovalMs: z.number().int().min(0).max(MAX_MS).optional(),
  /** The app's webhook endpoint is considered failing: the first N attempts of each delivery fail without calling it. */
  failWebhookTimes: z.number().int().min(0).max(20).optional(),
  /** An approval succeeds even after `expires_at` (or after expiry/cancellation): a payment that lands late. */
  captureAfterExpiry: z.boolean().optional(),
  /**
   * A short capture: the approval takes this many minor units less than the checkout's amount
   * (at least 1 unit is still taken), and the PSP's record says so. 0 = the full amount.
   */
  shortCaptureMinor: z.number().int().min(0).max(2_000_000_000).optional(),
});

/** A partial set of fault knobs (global settings or per-checkout overrides). */
export type SandboxFaultOverrides = z.infer<typeof sandboxFaultOverridesSchema>;

/** Every knob with a value: what one PSP action actually applies. */
export type SandboxFaults = Required<SandboxFaultOverrides>;

/** The knobs when nobody set anything: webhooks 200 ms after the event, no faults. */
export const DEFAULT_SANDBOX_FAULTS: Readonly<SandboxFaults> = Object.freeze({
  webhookDelayMs: 200,
  duplicate: 0,
  drop: false,
  reorder: false,
  decline: false,
  slowApprovalMs: 0,
  failWebhookTimes: 0,
  captureAfterExpiry: false,
  shortCaptureMinor: 0,
});

/**
 * Reads stored overrides leniently: anything that does not validate (an old or hand-edited
 * row) is ignored knob by knob instead of breaking payments.
 */
export function readFaultOverrides(stored: unknown): SandboxFaultOverrides {
  if (!stored || typeof stored !== "object") return {};
  const out: Record<string, unknown> = {};
  const shape = sandboxFaultOverridesSchema.shape;
  for (const [key, value] of Object.entries(stored)) {
    if (!(key in shape)) continue;
    const parsed = shape[key as keyof typeof shape].safeParse(value);
    if (parsed.success && parsed.data !== undefined) out[key] = parsed.data;
  }
  return out as SandboxFaultOverrides;
}

/**
 * Merges defaults ← global ← per-checkout. `undefined` in a later source leaves the
 * earlier value in place.
 * @returns every knob with a value.
 */
export function mergeFaults(global: SandboxFaultOverrides = {}, perCheckout: SandboxFaultOverrides = {}): SandboxFaults {
  const merged: SandboxFaults = { ...DEFAULT_SANDBOX_FAULTS };
  for (const source of [global, perCheckout]) {
    for (const [key, value] of Object.entries(source)) {
      if (value !== undefined) (merged as Record<string, unknown>)[key] = value;
    }
  }
  return merged;
}

/**
 * Formats a zod error as one readable line per problem, e.g.
 * `webhookDelayMs: Too big: expected number to be <=600000`.
 */
export function describeFaultsError(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.join(".");
      if (issue.code === "unrecognized_keys") {
        const known = Object.keys(sandboxFaultOverridesSchema.shape).join(", ");
        return `unknown knob ${issue.keys.map((k) => `"${k}"`).join(", ")} (known: ${known})`;
      }
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join("; ");
}
