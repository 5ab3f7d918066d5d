/** Loads .env / .env.local the same way Next does, for scripts run outside Next. */
import nextEnv from "@next/env";

export function loadProjectEnv(): void {
  nextEnv.loadEnvConfig(process.cwd(), process.env.NODE_ENV !== "production");
}
