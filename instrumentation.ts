/**
 * Runs once when the Next server starts:
 * - a malformed environment stops start-up with a message naming the variable;
 * - with PAYMENT_PROVIDER=sandbox, the sandbox PSP's webhook dispatcher starts (it is
 *   "outside" the app, but lives in this process so development needs nothing else).
 *   SANDBOX_PSP_DISPATCHER=0 turns it off.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { env } = await import("@/lib/env");
    const { sandboxEnabled } = await import("@/lib/payments/sandbox/switch");
    env();
    if (sandboxEnabled() && process.env.SANDBOX_PSP_DISPATCHER !== "0") {
      const { startSandboxDispatcher } = await import("@/lib/payments/sandbox/psp");
      startSandboxDispatcher();
    }
  }
}
