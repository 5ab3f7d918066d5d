/**
 * The sandbox PSP's fault knobs over HTTP (development, simulator, e2e):
 *   GET  /sandbox-psp/api/faults                  → { overrides, effective } (global knobs)
 *   PUT  /sandbox-psp/api/faults                  body: partial knobs, replaces the global set ({} resets)
 *   GET/PUT /sandbox-psp/api/faults?checkout=sbx_cs_…  the same for one checkout's overrides
 * Bad JSON or knobs → 400 `{ error, code }` naming the problem. Exists only while the sandbox
 * is the payment provider (PAYMENT_PROVIDER=sandbox, lib/payments/sandbox/switch.ts); otherwise 404.
 */
import { z } from "zod";
import { AppError } from "@/lib/errors";
import { route } from "@/lib/http/route";
import { describeFaultsError, readFaultOverrides, sandboxFaultOverridesSchema } from "@/lib/payments/sandbox/faults";
import { effectiveFaults, getGlobalFaults, retrieve, sandboxCheckoutIdSchema, setCheckoutFaults, setGlobalFaults } from "@/lib/payments/sandbox/psp";
import { sandboxEnabled } from "@/lib/payments/sandbox/switch";

export const dynamic = "force-dynamic";

const query = z.object({ checkout: sandboxCheckoutIdSchema.optional() }).loose();
const enabled = () => {
  if (!sandboxEnabled()) throw new AppError("not_found", "not_found", "Not found");
};

/** GET the global knobs, or one checkout's (`?checkout=`). */
export const GET = route({ query }, async ({ query }) => {
  enabled();
  if (!query.checkout) return getGlobalFaults();
  const checkout = await retrieve(query.checkout);
  return { checkout: checkout.id, overrides: readFaultOverrides(checkout.faults), effective: await effectiveFaults(checkout.id) };
});

/** PUT replaces the global knobs (or one checkout's with `?checkout=`); knobs left out fall back to the defaults. */
export const PUT = route({ query, body: z.unknown(), bodyHint: 'Body must be a JSON object of fault knobs, e.g. {"webhookDelayMs": 2000, "duplicate": 1}' }, async ({ query, body }) => {
  enabled();
  const parsed = sandboxFaultOverridesSchema.safeParse(body);
  if (!parsed.success) throw new AppError("bad_request", "invalid_knobs", `Invalid fault knobs: ${describeFaultsError(parsed.error)}`);
  if (!query.checkout) return setGlobalFaults(parsed.data);
  return { checkout: query.checkout, overrides: parsed.data, effective: await setCheckoutFaults(query.checkout, parsed.data) };
});
