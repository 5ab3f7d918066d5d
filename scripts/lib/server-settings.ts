/**
 * What an HTTP server of ours (scripts/serve.ts, scripts/door.ts) reads before it listens: the
 * project's environment, validated (an invalid one ends the process with the problems listed,
 * never a stack trace), the `-p PORT` and `-H HOST` flags, and the host to bind — 127.0.0.1 for a
 * loopback APP_URL, else 0.0.0.0, unless HOST or `-H` says otherwise. `-H` counts as HOST in the
 * validation, so a server bound off loopback meets the same rules as HOST=0.0.0.0.
 */
import { loadProjectEnv } from "../load-env";
import { env, EnvError, isLoopbackHost, type Env } from "@/lib/env";

/** The server's settings; `defaultPort` picks the port when `-p` is absent (e.g. PORT or DOOR_PORT). */
export function serverSettings(defaultPort: (e: Env) => number): { e: Env; argv: string[]; port: number; host: string } {
  loadProjectEnv();
  const argv = process.argv.slice(2);
  const flag = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  // `-H` is where this server is reachable, as HOST is: lib/env.ts judges loopback by it (the
  // secrets, the development mailbox, the sandbox PSP's SANDBOX_PSP_PUBLIC).
  const bind = flag("-H");
  if (bind) process.env.HOST = bind;
  let e: Env;
  try {
    e = env();
  } catch (error) {
    if (error instanceof EnvError) {
      console.error(`\n✗ ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const port = Number(flag("-p") ?? defaultPort(e));
  const host = bind ?? e.HOST ?? (isLoopbackHost(new URL(e.APP_URL).hostname) ? "127.0.0.1" : "0.0.0.0");
  return { e, argv, port, host };
}
