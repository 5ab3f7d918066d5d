/**
 * One process tree for everything StarArena runs (docs/adr/0013): the HTTP server
 * (scripts/serve.ts) and the worker (scripts/worker.ts) are children of one supervisor
 * (`npm start`, the e2e server, the on-sale simulator), started with an IPC channel.
 *  - A child exits when that channel closes ({@link exitWithParent}), so killing the
 *    supervisor — even with SIGKILL — never leaves a server or a worker behind.
 *  - When a child dies, the supervisor restarts it if its spec says so (the worker: a few
 *    times a minute at most) or stops every other child and reports the exit.
 *  - Ctrl-C / SIGTERM stops the children (SIGTERM, then SIGKILL after 10 s).
 * A second worker for the same database is still possible from another tree (a second
 * `npm start`); the worker's lease (lib/jobs/lease.ts) keeps it on standby, and says so.
 */
import { spawn, type ChildProcess } from "node:child_process";

/** What to run: a TypeScript entry point, through tsx's loader, under this Node. */
export interface ProcessSpec {
  name: string;
  /** The entry point, e.g. "scripts/serve.ts". */
  script: string;
  args?: string[];
  env?: NodeJS.ProcessEnv;
  /** Node flags before the script (e.g. `--max-semi-space-size=64`). */
  nodeArgs?: string[];
  /** Where the child's output goes: "inherit" (default), "stderr" (stdout dropped) or "ignore". */
  output?: "inherit" | "stderr" | "ignore";
  /** Restart the child when it dies on its own (at most 5 times in 60 s, 1 s apart). */
  restart?: boolean;
  /**
   * CPU niceness (`nice -n`, 1–19: lower priority than the rest of the tree), for every thread
   * of the child: the on-sale simulator runs its crowd and the door below the shop, as the door
   * would run on machines of its own.
   */
  nice?: number;
}

/** A running tree. */
export interface Supervisor {
  /** The live child of each spec, by name. */
  readonly children: Map<string, ChildProcess>;
  /** Stops every child; resolves when all have exited. */
  stop(): Promise<void>;
  /** Resolves with an exit code once the tree has stopped (a child died for good, or {@link Supervisor.stop}). */
  readonly done: Promise<number>;
}

const RESTART_BUDGET = 5;
const RESTART_WINDOW_MS = 60_000;
const KILL_AFTER_MS = 10_000;

/** Starts one child with an IPC channel, so it can notice its parent going away. */
export function startProcess(spec: ProcessSpec): ChildProcess {
  const out = spec.output ?? "inherit";
  const node = [process.execPath, ...(spec.nodeArgs ?? []), "--import", "tsx", spec.script, ...(spec.args ?? [])];
  const [command, ...args] = spec.nice ? ["nice", "-n", String(spec.nice), ...node] : node;
  return spawn(command!, args, {
    stdio: ["ignore", out === "inherit" ? "inherit" : "ignore", out === "ignore" ? "ignore" : "inherit", "ipc"],
    env: spec.env ?? process.env,
  });
}

/**
 * Starts `specs` as one tree.
 * @param opts.log where the supervisor reports restarts and deaths
 * @param opts.signals stop the tree on SIGINT/SIGTERM of this process (default true)
 */
export function supervise(specs: ProcessSpec[], opts: { log?: (line: string) => void; signals?: boolean } = {}): Supervisor {
  const log = opts.log ?? ((line: string) => console.error(line));
  const children = new Map<string, ChildProcess>();
  const restarts = new Map<string, number[]>();
  let stopping = false;
  let finish!: (code: number) => void;
  const done = new Promise<number>((resolve) => (finish = resolve));
  let exitCode = 0;

  const stop = async (): Promise<void> => {
    stopping = true;
    const alive = [...children.values()].filter((c) => c.exitCode === null && c.signalCode === null);
    await Promise.all(
      alive.map(
        (c) =>
          new Promise<void>((resolve) => {
            const timer = setTimeout(() => c.kill("SIGKILL"), KILL_AFTER_MS);
            c.once("exit", () => {
              clearTimeout(timer);
              resolve();
            });
            c.kill("SIGTERM");
          }),
      ),
    );
    finish(exitCode);
  };

  const launch = (spec: ProcessSpec) => {
    const child = startProcess(spec);
    children.set(spec.name, child);
    child.on("exit", (code, signal) => {
      if (stopping) return;
      const recent = (restarts.get(spec.name) ?? []).filter((t) => Date.now() - t < RESTART_WINDOW_MS);
      if (spec.restart && recent.length < RESTART_BUDGET) {
        restarts.set(spec.name, [...recent, Date.now()]);
        log(`✗ ${spec.name} exited (${signal ?? `code ${code}`}); restarting it in 1 s`);
        setTimeout(() => !stopping && launch(spec), 1_000);
        return;
      }
      log(`✗ ${spec.name} exited (${signal ?? `code ${code}`})${spec.restart ? " too often" : ""}: stopping the rest`);
      exitCode = code && code !== 0 ? code : 1;
      void stop();
    });
  };
  for (const spec of specs) launch(spec);
  if (opts.signals !== false) {
    process.once("SIGINT", () => void stop());
    process.once("SIGTERM", () => void stop());
  }
  return { children, stop, done };
}

/**
 * In a child: runs `onGone` when the parent that started it through {@link startProcess}
 * goes away (its IPC channel closes: exit, crash or SIGKILL). A no-op when the process was
 * started some other way (no channel).
 */
export function exitWithParent(onGone: () => void): void {
  if (!process.send) return;
  process.on("disconnect", onGone);
  // The channel must not keep this process alive by itself.
  process.channel?.unref();
}
