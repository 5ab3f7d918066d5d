import { describe, expect, it } from "vitest";
import { cpuBetween, cpuByName, parseLines, rssByName } from "./process-usage";

const ps = [
  "  100  2048     0 node /x/node_modules/.bin/tsx scripts/serve.ts -p 3300 -H 127.0.0.1",
  "  101 204800   41 /usr/bin/node --import tsx scripts/serve.ts -p 3300 -H 127.0.0.1",
  "  102 102400   17 /usr/bin/node --import tsx scripts/serve.ts -p 3301 -H 127.0.0.1",
  "  103 51200     9 /usr/bin/node --import tsx scripts/door.ts -p 3390 -H 127.0.0.1",
  "  104 40960     3 /usr/bin/node --import tsx scripts/worker.ts",
  "  105 9000      2 redis-server 127.0.0.1:6379",
  "  106 30000     1 /usr/lib/postgresql/15/bin/postgres -D /var/lib/postgresql/15/main",
  "  107 60000    12 postgres: 15/main: postgres stararena_onsale 127.0.0.1(5000) idle",
  "  108 1000      5 bash",
  "  200 300000    7 /usr/bin/node scripts/onsale.ts",
].join("\n");

describe("process usage", () => {
  it("names a run's processes, sums a name's RSS, and keeps Postgres's largest backend apart", () => {
    // Worked out by hand from the lines above (KiB).
    expect(rssByName(parseLines(ps, 200))).toEqual({
      "app 3300": 2048 + 204800,
      "app 3301": 102400,
      "door 3390": 51200,
      worker: 40960,
      "redis-server 127.0.0.1:6379": 9000,
      "postgres (all processes)": 90000,
      "postgres (largest backend)": 60000,
      simulator: 300000,
    });
  });

  it("sums CPU seconds per name from each process's last reading, and a phase's CPU is the difference", () => {
    const last = new Map<number, [string, number]>();
    for (const l of parseLines(ps, 200)) last.set(l.pid, [l.name, l.cpu]);
    const before = cpuByName(last);
    expect(before).toEqual({ "app 3300": 41, "app 3301": 17, "door 3390": 9, postgres: 13, "redis-server 127.0.0.1:6379": 2, simulator: 7, worker: 3 });
    // Later: app 3300 used 10 s more, a backend exited (its last reading stays), a new one used 4 s.
    last.set(101, ["app 3300", 51]);
    last.set(109, ["postgres", 4]);
    expect(cpuBetween(before, cpuByName(last))).toEqual({ "app 3300": 10, "app 3301": 0, "door 3390": 0, postgres: 4, "redis-server 127.0.0.1:6379": 0, simulator: 0, worker: 0 });
  });
});
