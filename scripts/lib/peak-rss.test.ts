import { describe, expect, it } from "vitest";
import { sampleLines } from "./peak-rss";

describe("sampleLines", () => {
  it("names a run's processes, sums a name's processes, and keeps Postgres's largest backend apart", () => {
    const ps = [
      "  100  2048 node /x/node_modules/.bin/tsx scripts/serve.ts -p 3300 -H 127.0.0.1",
      "  101 204800 /usr/bin/node --import tsx scripts/serve.ts -p 3300 -H 127.0.0.1",
      "  102 102400 /usr/bin/node --import tsx scripts/serve.ts -p 3301 -H 127.0.0.1",
      "  103 51200 /usr/bin/node --import tsx scripts/door.ts -p 3390 -H 127.0.0.1",
      "  104 40960 /usr/bin/node --import tsx scripts/worker.ts",
      "  105 9000 redis-server 127.0.0.1:6379",
      "  106 30000 /usr/lib/postgresql/15/bin/postgres -D /var/lib/postgresql/15/main",
      "  107 60000 postgres: 15/main: postgres stararena_onsale 127.0.0.1(5000) idle",
      "  108 1000 bash",
      "  200 300000 /usr/bin/node scripts/onsale.ts",
    ].join("\n");
    // Worked out by hand from the lines above (KiB).
    expect(sampleLines(ps, 200)).toEqual({
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
});
