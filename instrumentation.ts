/**
 * Runs once when the Next server starts:
 * - a malformed environment stops start-up with a message naming the variable;
 * - with PAYMENT_PROVIDER=sandbox, the sandbox PSP's webhook dispatcher starts (it is
 *   "outside" the app, but lives in this process so development needs nothing else).
 *   SANDBOX_PSP_DISPATCHER=0 turns it off.
 * And on every request Next fails on its own (a page render, an action payload it cannot
 * decode), `onRequestError` tells our HTTP server what failed it (lib/request-scope.ts),
 * so a dependency outage is answered 503 and a bad payload 400 rather than 500.
 */
import type { Instrumentation } from "next";
// Static, so the failure is recorded synchronously — before Next writes the response's status.
import { noteRequestFailure } from "@/lib/request-scope";
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

export const onRequestError: Instrumentation.onRequestError = (error, _request, context) => {
  noteRequestFailure(error, { routeType: context.routeType });
};
