/**
 * Peak resident memory per process of a run (Linux `ps`), sampled every `everyMs`: the
 * on-sale simulator reports it so that a run that fits the machine's time but not its
 * memory shows it (issue: "memory of every process stays within the machine").
 *
 * Processes are named by what they run: "app 3300" (scripts/serve.ts -p 3300), "door 3390",
 * "worker", "simulator" (this process), "simulator crowd" (its crowd process), "redis-server" (one line per server), and Postgres as
 * "postgres (largest backend)" and "postgres (all processes)". A name's peak is the largest
 * sum of the RSS of every process with that name at one sample (a tsx wrapper and its node
 * child count together), in MiB.
 */
import { execFile } from "node:child_process";

/** Peak RSS (MiB) by process name. */
export type PeakRss = Record<string, number>;

/** The name a `ps` line's command belongs to, or null when it is not part of a run. */
export function processName(args: string, self: number, pid: number): string | null {
  if (pid === self) return "simulator";
  const port = / -p (\d+)/.exec(args)?.[1];
  if (args.includes("scripts/serve.ts")) return `app ${port ?? "?"}`;
  if (args.includes("scripts/door.ts")) return `door ${port ?? "?"}`;
  if (args.includes("scripts/worker.ts")) return "worker";
  if (args.includes("scripts/lib/onsale-crowd.ts")) return "simulator crowd";
  if (args.startsWith("redis-server")) return args.split(/\s+/).slice(0, 2).join(" ");
  if (args.startsWith("postgres") || args.includes("/bin/postgres")) return "postgres";
  return null;
}

/** One `ps` sample: RSS (KiB) summed by name; Postgres also as its largest single process. */
export function sampleLines(lines: string, self: number): Record<string, number> {
  const kib: Record<string, number> = {};
  for (const line of lines.split("\n")) {
    const m = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const name = processName(m[3]!, self, Number(m[1]));
    if (!name) continue;
    const rss = Number(m[2]);
    if (name === "postgres") {
      kib["postgres (all processes)"] = (kib["postgres (all processes)"] ?? 0) + rss;
      kib["postgres (largest backend)"] = Math.max(kib["postgres (largest backend)"] ?? 0, rss);
    } else kib[name] = (kib[name] ?? 0) + rss;
  }
  return kib;
}

/**
 * Starts sampling. @returns `stop()`, which resolves to the peaks (MiB, rounded), and `now()`
 * for the latest sample's peaks so far. Never throws: a failed `ps` is skipped.
 */
export function watchPeakRss(everyMs = 2_000): { stop: () => PeakRss; peaks: () => PeakRss } {
  const peak: Record<string, number> = {};
  const sample = () =>
    execFile("ps", ["-eo", "pid=,rss=,args="], { maxBuffer: 8 * 2 ** 20 }, (error, stdout) => {
      if (error) return;
      for (const [name, kib] of Object.entries(sampleLines(stdout, process.pid))) peak[name] = Math.max(peak[name] ?? 0, kib);
    });
  sample();
  const timer = setInterval(sample, everyMs);
  timer.unref();
  const peaks = () => Object.fromEntries(Object.entries(peak).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, Math.round(v / 1024)]));
  return {
    stop: () => {
      clearInterval(timer);
      return peaks();
    },
    peaks,
  };
}
