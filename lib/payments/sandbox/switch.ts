/**
 * The one switch of the sandbox PSP (docs/adr/0012): its hosted pay page and that page's
 * approve/decline actions, its approve/decline and fault-knob APIs, its webhook endpoint
 * and dispatcher all exist only while `PAYMENT_PROVIDER=sandbox`. Production has no
 * default provider (lib/env.ts), so the sandbox is never the production PSP by accident:
 * it is chosen explicitly, as the local demo's `.env.local` does; and off loopback it also
 * needs `SANDBOX_PSP_PUBLIC=1` (docs/adr/0026), so that demo file never serves the public.
 */
import { env } from "@/lib/env";

/** True when the sandbox PSP is the configured payment provider. */
export function sandboxEnabled(): boolean {
  return env().PAYMENT_PROVIDER === "sandbox";
}

