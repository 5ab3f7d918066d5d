/**
 * The sandbox PSP's fault knobs over HTTP (development, simulator, e2e):
 *   GET  /sandbox-psp/api/faults                  → { overrides, effective } (global knobs)
 *   PUT  /sandbox-psp/api/faults                  body: partial knobs, replaces the global set ({} resets)
 *   GET/PUT /sandbox-psp/api/faults?checkout=sbx_cs_…  the same for one checkout's overrides
 * Bad JSON or knobs → 400 `{ error }` naming the problem. Exists only while the sandbox
 * is the payment provider (PAYMENT_PROVIDER=sandbox, lib/payments/sandbox/switch.ts); otherwise 404.
 */
import { NextResponse } from "next/server";
import { jsonError } from "@/lib/http";
import { sandboxEnabled } from "@/lib/payments/sandbox/switch";
import { describeFaultsError, readFaultOverrides, sandboxFaultOverridesSchema } from "@/lib/payments/sandbox/faults";
import {
  effectiveFaults,
  findCheckout,
  getGlobalFaults,
  sandboxCheckoutIdSchema,
  setCheckoutFaults,
  setGlobalFaults,
} from "@/lib/payments/sandbox/psp";

export const dynamic = "force-dynamic";

const NO_STORE = { "Cache-Control": "no-store" };

/** The `?checkout=` id: undefined for the global knobs, null when malformed. */
function checkoutParam(req: Request): string | undefined | null {
  const raw = new URL(req.url).searchParams.get("checkout");
  if (raw === null) return undefined;
  const parsed = sandboxCheckoutIdSchema.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

/** GET the global knobs, or one checkout's (`?checkout=`). */
export async function GET(req: Request) {
  if (!sandboxEnabled()) return jsonError(404, "Not found");
  const checkoutId = checkoutParam(req);
  if (checkoutId === null) return jsonError(400, "checkout must be a sandbox checkout id (sbx_cs_…)");
  if (checkoutId === undefined) return NextResponse.json(await getGlobalFaults(), { headers: NO_STORE });
  const checkout = await findCheckout(checkoutId);
  if (!checkout) return jsonError(404, `No sandbox checkout ${checkoutId}`);
  return NextResponse.json(
    { checkout: checkoutId, overrides: readFaultOverrides(checkout.faults), effective: await effectiveFaults(checkoutId) },
    { headers: NO_STORE },
  );
}

/** PUT replaces the global knobs (or one checkout's with `?checkout=`); knobs left out fall back to the defaults. */
export async function PUT(req: Request) {
  if (!sandboxEnabled()) return jsonError(404, "Not found");
  const checkoutId = checkoutParam(req);
  if (checkoutId === null) return jsonError(400, "checkout must be a sandbox checkout id (sbx_cs_…)");
  let body: unknown;
  try {
    body = await req.json();
  } catch {
    return jsonError(400, 'Body must be a JSON object of fault knobs, e.g. {"webhookDelayMs": 2000, "duplicate": 1}');
  }
  const parsed = sandboxFaultOverridesSchema.safeParse(body);
  if (!parsed.success) return jsonError(400, `Invalid fault knobs: ${describeFaultsError(parsed.error)}`);
  if (checkoutId === undefined) return NextResponse.json(await setGlobalFaults(parsed.data), { headers: NO_STORE });
  if (!(await findCheckout(checkoutId))) return jsonError(404, `No sandbox checkout ${checkoutId}`);
  const effective = await setCheckoutFaults(checkoutId, parsed.data);
  return NextResponse.json({ checkout: checkoutId, overrides: parsed.data, effective }, { headers: NO_STORE });
}
