/**
 * What each process of a run uses (Linux `ps`), sampled every `everyMs`: peak resident memory
 * and CPU time. The on-sale simulator reports both, so that a run that fits the machine's time
 * but not its memory shows it (issue 15: "memory of every process stays within the machine"),
 * and so that the shop's CPU per sold seat can be read from a run (issue 15: "measure CPU per
 * sold order … report seats sold per second per core").
 *
 * Processes are named by what they run: "app 3300" (scripts/serve.ts -p 3300), "door 3390",
 * "worker", "simulator" (this process), "simulator crowd" (its crowd process), "redis-server" (one line per server), and Postgres as
 * "postgres (largest backend)" and "postgres (all processes)". A name's peak RSS is the largest
 * sum of the RSS of every process with that name at one sample (a tsx wrapper and its node
 * child count together), in MiB. A name's CPU is the sum over its processes of the last CPU
 * time (user + system, seconds, `ps`'s `cputimes`) seen for each: a process that exits between
 * two samples loses at most `everyMs` of its CPU; one that exits before its first sample is
 * not counted (short Postgres backends; the run's pools keep theirs).
 */
import { execFile } from "node:child_process";

/** Peak RSS (MiB) by process name. */
export type PeakRss = Record<string, number>;
/** CPU seconds (user + system) by process name. */
export type CpuSeconds = Record<string, number>;

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

/** One `ps -eo pid=,rss=,cputimes=,args=` line of a run's process. */
export interface ProcessLine {
  pid: number;
  name: string;
  /** KiB */
  rss: number;
  /** CPU seconds so far */
  cpu: number;
}

/** The lines of one `ps -eo pid=,rss=,cputimes=,args=` sample that belong to the run. */
export function parseLines(lines: string, self: number): ProcessLine[] {
  const out: ProcessLine[] = [];
  for (const line of lines.split("\n")) {
    const m = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const name = processName(m[4]!, self, Number(m[1]));
    if (name) out.push({ pid: Number(m[1]), name, rss: Number(m[2]), cpu: Number(m[3]) });
  }
  return out;
}

/** One sample's RSS (KiB) summed by name; Postgres also as its largest single process. */
export function rssByName(lines: ProcessLine[]): Record<string, number> {
  const kib: Record<string, number> = {};
  for (const { name, rss } of lines) {
    if (name === "postgres") {
      kib["postgres (all processes)"] = (kib["postgres (all processes)"] ?? 0) + rss;
      kib["postgres (largest backend)"] = Math.max(kib["postgres (largest backend)"] ?? 0, rss);
    } else kib[name] = (kib[name] ?? 0) + rss;
  }
  return kib;
}

/** CPU seconds by name from the last CPU time seen per process (`lastCpu`: pid → [name, seconds]). */
export function cpuByName(lastCpu: Map<number, [string, number]>): CpuSeconds {
  const s: CpuSeconds = {};
  for (const [name, cpu] of lastCpu.values()) s[name] = (s[name] ?? 0) + cpu;
  return Object.fromEntries(Object.entries(s).sort(([a], [b]) => a.localeCompare(b)));
}

/** CPU seconds used between two `cpu()` readings, by name (names only in `later` count from 0). */
export function cpuBetween(earlier: CpuSeconds, later: CpuSeconds): CpuSeconds {
  return Object.fromEntries(Object.entries(later).map(([k, v]) => [k, Math.max(0, v - (earlier[k] ?? 0))]));
}

/**
 * Starts sampling. @returns `peaks()` (RSS MiB by name, rounded, so far), `cpu()` (CPU seconds
 * by name so far; two readings' difference is a phase's CPU, `cpuBetween`), `sample()` (a fresh
 * sample now, resolved when read: take one at a phase's edges), and `stop()`, which ends the
 * sampling and returns the peaks. Never throws: a failed `ps` is skipped.
 */
export function watchProcesses(everyMs = 2_000): { stop: () => PeakRss; peaks: () => PeakRss; cpu: () => CpuSeconds; sample: () => Promise<void> } {
  const peak: Record<string, number> = {};
  const lastCpu = new Map<number, [string, number]>();
  const sample = () =>
    new Promise<void>((resolve) =>
      execFile("ps", ["-eo", "pid=,rss=,cputimes=,args="], { maxBuffer: 8 * 2 ** 20 }, (error, stdout) => {
        if (!error) {
          const lines = parseLines(stdout, process.pid);
          for (const [name, kib] of Object.entries(rssByName(lines))) peak[name] = Math.max(peak[name] ?? 0, kib);
          for (const l of lines) lastCpu.set(l.pid, [l.name, l.cpu]);
        }
        resolve();
      }),
    );
  void sample();
  const timer = setInterval(() => void sample(), everyMs);
  timer.unref();
  const peaks = () => Object.fromEntries(Object.entries(peak).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, Math.round(v / 1024)]));
  return {
    stop: () => {
      clearInterval(timer);
      return peaks();
    },
    peaks,
    cpu: () => cpuByName(lastCpu),
    sample,
  };
}
