/** Runs once when the Next server starts: a malformed environment stops start-up with a message naming the variable. */
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { env } = await import("@/lib/env");
    env();
  }
}
